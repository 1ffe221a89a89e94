/* so.c: the shared library of appso (gen-extra.sh). Its static helper has
   the same name as appso.c's; the indirect call reaches targets in the
   library and, through a callback, in the executable; memcpy of variable
   size gives a memop value profile. */
#include <string.h>

static int helper(int x) { return x & 1 ? x * 5 : x / 2; }

static int sub(int a, int b) { return a - b; }
static int xor2(int a, int b) { return a ^ b; }

int so_work(int n, int (*cb)(int, int)) {
  int (*ops[3])(int, int) = {sub, xor2, cb};
  char src[128], dst[128];
  int s = 0;
  memset(src, 'y', sizeof src);
  for (int i = 0; i < n; i++) {
    s = ops[i % 3](s, helper(i)) & 0xffff;
    memcpy(dst, src, (size_t)(i % 100) + 1);
    s += dst[i % 64];
  }
  return s;
}
