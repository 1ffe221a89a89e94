// clang++-N -fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie memprog.cc -o memprog.N
// Histogram variant (hist.N): add -mllvm -memprof-use-callbacks=true -mllvm -memprof-histogram. Fixtures: gen.sh.
// Small MemProf fixture program: operator new from several functions, an
// always-inlined helper, recursion, and a hot and a cold (long-lived) path.
#include <cstring>
#include <unistd.h>

static inline __attribute__((always_inline)) char *inl_alloc(int n) {
  return new char[n];
}

__attribute__((noinline)) char *alloc(int n) { return inl_alloc(n); }

__attribute__((noinline)) int *make_ints(int n) {
  int *p = new int[n];
  for (int i = 0; i < n; i++)
    p[i] = i;
  return p;
}

__attribute__((noinline)) long recurse(int depth) {
  if (depth == 0) {
    long *p = new long[4];
    memset(p, 0, 4 * sizeof(long));
    long s = p[0] + p[3];
    delete[] p;
    return s;
  }
  return recurse(depth - 1) + depth;
}

struct Node {
  Node *next;
  int val;
};

__attribute__((noinline)) Node *build_list(int n) {
  Node *head = nullptr;
  for (int i = 0; i < n; i++) {
    Node *x = new Node;
    x->next = head;
    x->val = i;
    head = x;
  }
  return head;
}

__attribute__((noinline)) void hot_path() {
  for (int k = 0; k < 3; k++) {
    char *p = alloc(64);
    for (int j = 0; j < 100; j++)
      memset(p, j, 64);
    delete[] p;
  }
}

__attribute__((noinline)) char *cold_path() {
  char *p = alloc(128);
  memset(p, 1, 128);
  return p;
}

int main() {
  char *cold = cold_path();
  hot_path();
  int *ints = make_ints(50);
  long s = recurse(3) + recurse(1);
  Node *l = build_list(5);
  usleep(1000);
  long sum = ints[3] + s;
  while (l) {
    Node *n = l->next;
    sum += l->val;
    delete l;
    l = n;
  }
  delete[] ints;
  delete[] cold;
  return sum == 12345;
}
