/* lib.c: the second file of app (gen.sh); its static helper has the same
   name as app.c's; the two-condition decision gives MC/DC a bitmap. */
static int helper(int x) { return x & 1 ? x - 1 : x + 1; }

int lib_work(int n) {
  int s = 0;
  for (int i = 0; i < n * 2; i++) {
    s += helper(i);
    if (i > 2 && (i & 4))
      s++;
  }
  return s;
}
