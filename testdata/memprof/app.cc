// clang++-19 -O1 -fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie -pthread app.cc -o app
//
// gen.sh builds this file with clang++-16, -19 and -22, as PIE (-pie) and
// non-PIE (-no-pie), with exactly the flags above (the compiler name
// changes). It is the MemProf test program of internal/memprof: allocation
// through operator new only, with
//   - a hot site: many short-lived, heavily accessed buffers;
//   - a cold site: few long-lived, never-read buffers kept until exit;
//   - an always_inline allocation helper inlined into two callers, one of
//     them itself inlined (inline chains of depth 2 and 3);
//   - recursion (a tree built recursively; stacks deeper than 8 frames);
//   - two worker threads allocating from their own site;
//   - an optional explicit __memprof_profile_dump() ("dump" argument), which
//     makes the raw file hold two dumps.
// The first argument picks the input ("a" or "b"), which changes counts,
// sizes and which sites run, so several processes give different profiles.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

extern "C" int __memprof_profile_dump(void) __attribute__((weak));

struct Node {
  Node *left = nullptr;
  Node *right = nullptr;
  long value = 0;
};

static std::vector<char *> cold_keep;
static volatile long sink;

__attribute__((always_inline)) inline char *alloc_buf(size_t n) {
  return new char[n];
}

__attribute__((always_inline)) inline char *alloc_zeroed(size_t n) {
  char *p = alloc_buf(n);
  memset(p, 0, n);
  return p;
}

__attribute__((noinline)) char *hot_alloc(size_t n) { return alloc_buf(n); }

__attribute__((noinline)) void hot_loop(int iters, size_t size) {
  for (int i = 0; i < iters; i++) {
    char *p = hot_alloc(size);
    for (int r = 0; r < 8; r++)
      for (size_t j = 0; j < size; j++)
        p[j] = (char)(j + r);
    sink += p[size / 2];
    delete[] p;
  }
}

__attribute__((noinline)) void cold_alloc(int count, size_t size) {
  for (int i = 0; i < count; i++) {
    char *p = alloc_zeroed(size);
    cold_keep.push_back(p);
  }
}

__attribute__((noinline)) Node *build(int depth) {
  if (depth == 0)
    return nullptr;
  Node *n = new Node;
  n->value = depth;
  n->left = build(depth - 1);
  if (depth % 2)
    n->right = build(depth - 2 > 0 ? depth - 2 : 0);
  return n;
}

__attribute__((noinline)) long walk(Node *n) {
  if (!n)
    return 0;
  long s = n->value + walk(n->left) + walk(n->right);
  delete n;
  return s;
}

__attribute__((noinline)) void worker(int id, int iters) {
  for (int i = 0; i < iters; i++) {
    long *p = new long[16 + id];
    for (int j = 0; j < 16 + id; j++)
      p[j] = j * i;
    sink += p[id];
    delete[] p;
  }
}

__attribute__((noinline)) void run_threads(int iters) {
  std::thread t1(worker, 1, iters);
  std::thread t2(worker, 2, iters);
  t1.join();
  t2.join();
}

int main(int argc, char **argv) {
  const char *input = argc > 1 ? argv[1] : "a";
  bool dump = argc > 2 && strcmp(argv[2], "dump") == 0;
  bool b = strcmp(input, "b") == 0;

  hot_loop(b ? 500 : 200, b ? 64 : 32);
  cold_alloc(b ? 3 : 2, b ? 8192 : 4096);
  sink += walk(build(b ? 9 : 7));
  if (dump && __memprof_profile_dump)
    __memprof_profile_dump();
  run_threads(b ? 50 : 20);
  if (b)
    hot_loop(10, 128);
  printf("%s %ld\n", input, (long)sink);
  return 0;
}
