/* appso.c: the executable of appso (gen-extra.sh); most of its work is in
   the shared library built from so.c. */
#include <stdio.h>
#include <stdlib.h>

int so_work(int n, int (*cb)(int, int));

static int helper(int x) { return x % 3 == 0 ? x + 7 : x; }
static int mix(int a, int b) { return a * 3 + b; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  int acc = 0;
  for (int i = 0; i < n; i++)
    acc = (acc + helper(i)) & 0xffff;
  acc += so_work(n, mix);
  printf("%d\n", acc);
  return 0;
}
