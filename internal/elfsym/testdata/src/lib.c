// Built by elfsym_test.go with main.cc (see main.cc's first line); C unit, static inline and loops.
static inline int mix(int a, int b) { return (a * 31) ^ b; }

static int table[64];

static int fill(int n) {
  int s = 0;
  for (int i = 0; i < n && i < 64; i++) {
    table[i] = mix(i, n);
    if (table[i] & 1)
      s += table[i];
    else
      s -= mix(s, i);
  }
  return s;
}

int c_work(int n) {
  int t = 0;
  for (int k = 0; k < 3; k++)
    t += fill(n + k);
  return t;
}

// Never called: removed by --gc-sections, leaving tombstoned DWARF.
int unused_fn(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += mix(i, s);
  return s;
}
