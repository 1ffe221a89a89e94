// The MemProf program of the mutation fixtures (gen.sh): a hot and a cold
// allocation site, few enough stacks that the raw profile stays small.
#include <cstdio>
#include <cstring>

__attribute__((noinline)) char *hot(int n) {
  char *p = new char[64];
  memset(p, n, 64);
  return p;
}

__attribute__((noinline)) char *cold() { return new char[4096]; }

int main() {
  long sum = 0;
  for (int i = 0; i < 1000; i++) {
    char *p = hot(i);
    for (int j = 0; j < 64; j++)
      sum += p[j];
    delete[] p;
  }
  char *c = cold();
  printf("%ld %p\n", sum, (void *)c);
  return 0;
}
