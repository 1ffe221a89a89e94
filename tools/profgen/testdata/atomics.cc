// build: $CXX -O2 -g -fdebug-info-for-profiling -fno-omit-frame-pointer -pthread $PIE atomics.cc -o $OUT
// Atomics in hot inlined code and threads, for profgen's instruction
// boundaries: LLVM's disassembler decodes a LOCK prefix, and an XACQUIRE
// or XRELEASE before one, as an instruction of its own, so that a range
// holds one instruction more per atomic than golang.org/x/arch counts
// (issue 20). std::atomic's fetch_add/exchange/compare_exchange inlined
// into a hot loop, a hand-written elided spinlock (clang has no -mhle:
// the hints are in assembly), REP string operations, and three threads
// contending on them.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {
std::atomic<long> hits{0};
std::atomic<long> maxSeen{0};
int spin;
long guarded;

struct Counter {
  std::atomic<int> n{0};
  inline void bump(int by) { n.fetch_add(by, std::memory_order_relaxed); }
};

inline void lock() {
  int one = 1;
  do
    asm volatile("xacquire xchgl %0, %1" : "+r"(one), "+m"(spin)::"memory");
  while (one);
}

inline void unlock() { asm volatile("xrelease movl $0, %0" : "+m"(spin)::"memory"); }

inline void noteMax(long v) {
  long cur = maxSeen.load(std::memory_order_relaxed);
  while (v > cur && !maxSeen.compare_exchange_weak(cur, v))
    ;
}

inline void copy(char *dst, const char *src, unsigned long n) {
  asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n)::"memory");
}
} // namespace

Counter counters[4];

__attribute__((noinline)) long work(int id, int rounds) {
  char a[48], b[48];
  long local = 0;
  for (int i = 0; i < rounds; i++) {
    counters[(i + id) & 3].bump(i & 7);
    hits.fetch_add(1);
    noteMax(i * (id + 1));
    if ((i & 15) == 0) {
      lock();
      guarded += i;
      unlock();
      a[i % 48] = (char)i;
      copy(b, a, sizeof a);
      local += b[7];
    }
    local += i ^ id;
  }
  return local;
}

int main(int argc, char **argv) {
  int k = argc > 1 ? std::atoi(argv[1]) : 3000;
  long r[3] = {};
  std::thread t1([&] { r[1] = work(1, k); });
  std::thread t2([&] { r[2] = work(2, k / 2); });
  r[0] = work(0, k);
  t1.join();
  t2.join();
  std::printf("%ld %ld %ld %ld %d\n", r[0] + r[1] + r[2], hits.load(), maxSeen.load(), guarded,
              counters[0].n.load() + counters[3].n.load());
  return 0;
}
