/* app.c: a small C program for instrumented-profile fixtures (see gen.sh).
   Loops, branches, a static function that lib.c also defines, an indirect
   call and variable-size memcpy (value profiles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lib_work(int n);

static int helper(int x) { return x % 3 == 0 ? x / 3 : x * 2 + 1; }

static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int (*const ops[])(int, int) = {add, mul};

static int never_called(int x) { return x * 7; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  char src[256], dst[256];
  int acc = 0;
  memset(src, 'x', sizeof src);
  for (int i = 0; i < n; i++) {
    acc += helper(i);
    acc = ops[i % 2](acc, i) & 0xffff;
    memcpy(dst, src, (size_t)(i % 200) + 1);
    acc += dst[i % 100];
  }
  if (n < 0)
    acc += never_called(n);
  acc += lib_work(n);
  printf("%d\n", acc);
  return 0;
}
