/* order.c: a temporal-profiling program (gen-extra.sh) that calls eight
   functions in an order drawn from its argument, so runs with different
   arguments record different traces. */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) static void f0(void) { sink += 0; }
__attribute__((noinline)) static void f1(void) { sink += 1; }
__attribute__((noinline)) static void f2(void) { sink += 2; }
__attribute__((noinline)) static void f3(void) { sink += 3; }
__attribute__((noinline)) static void f4(void) { sink += 4; }
__attribute__((noinline)) static void f5(void) { sink += 5; }
__attribute__((noinline)) static void f6(void) { sink += 6; }
__attribute__((noinline)) static void f7(void) { sink += 7; }

static void (*const fs[8])(void) = {f0, f1, f2, f3, f4, f5, f6, f7};

int main(int argc, char **argv) {
  unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  int idx[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 7; i > 0; i--) {
    k = k * 1103515245u + 12345u;
    int j = (int)((k >> 16) % (unsigned)(i + 1)), t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  for (int i = 0; i < 8; i++)
    fs[idx[i]]();
  return 0;
}
