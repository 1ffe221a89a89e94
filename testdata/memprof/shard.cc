// shard.cc: allocation contexts whose merged MemInfoBlocks depend on the
// order runs are folded in (the lifetime-overlap and same-CPU counters):
// blocks that live for milliseconds, so one run's allocation precedes the
// previous run's deallocation in the timestamps, on the CPU given as the
// first argument. Used by internal/profmerge TestShardedMemProf.
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chrono>
#include <thread>

__attribute__((noinline)) char *make(size_t n) {
  char *p = static_cast<char *>(malloc(n));
  memset(p, 1, n);
  return p;
}

__attribute__((noinline)) void nap(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

__attribute__((noinline)) void longLived(int ms) {
  char *p = make(256);
  nap(ms);
  p[3]++;
  free(p);
}

__attribute__((noinline)) void shortLived(int n) {
  for (int i = 0; i < n; i++) {
    char *p = make(64 + i % 3);
    p[1]++;
    free(p);
  }
}

int main(int argc, char **argv) {
  int cpu = argc > 1 ? atoi(argv[1]) : 0;
  int ms = argc > 2 ? atoi(argv[2]) : 3;
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &s);
  sched_setaffinity(0, sizeof s, &s);
  shortLived(50);
  longLived(ms);
  char *a = make(1024);
  nap(ms);
  shortLived(20 + ms);
  longLived(ms + 1);
  a[7]++;
  free(a);
  return 0;
}
