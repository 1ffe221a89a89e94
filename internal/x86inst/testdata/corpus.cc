// Compiled (not run) by the corpus test of internal/x86inst with clang-19
// and clang-22 at -O2, -march=x86-64-v3, -march=x86-64-v4 and
// -mavx512f: atomics (LOCK prefixes, CMPXCHG, XCHG), hardware lock elision
// hints (XACQUIRE/XRELEASE), REP string operations, AVX2 and
// AVX-512 loops and a few special instructions.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>

std::atomic<long> counter{0};
std::atomic<int> flag{0};
long plain;

__attribute__((noinline)) long bump(long n) {
  for (long i = 0; i < n; i++) {
    counter.fetch_add(1, std::memory_order_relaxed);
    counter.fetch_sub(2);
    counter.fetch_or(4);
    counter.fetch_and(~1L);
  }
  long expected = counter.load();
  while (!counter.compare_exchange_weak(expected, expected * 3 + 1)) {
  }
  return counter.exchange(7) + (flag.fetch_xor(1) & 1);
}

// Hardware lock elision hints: clang has no -mhle (nor the
// __ATOMIC_HLE_* flags), so they are written in assembly.
__attribute__((noinline)) void elided_lock(int *lock) {
  int one = 1;
  do
    asm volatile("xacquire xchgl %0, %1" : "+r"(one), "+m"(*lock)::"memory");
  while (one);
  plain++;
  asm volatile("xrelease movl $0, %0" : "+m"(*lock)::"memory");
  asm volatile("xacquire lock addl $1, %0" : "+m"(*lock)::"memory");
  asm volatile("xrelease lock subl $1, %0" : "+m"(*lock)::"memory");
  asm volatile("xrelease lock incq %0" : "+m"(plain)::"memory");
  asm volatile("lock cmpxchgq %2, %1" : "+a"(plain), "+m"(plain) : "r"(plain) : "memory");
}

__attribute__((noinline)) void strings(char *dst, const char *src, size_t n) {
  asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n)::"memory");
  long v = 0;
  size_t m = 4;
  asm volatile("rep stosq" : "+D"(dst), "+c"(m) : "a"(v) : "memory");
  asm volatile("repne scasb" : "+D"(dst), "+c"(m) : "a"(v) : "memory");
  asm volatile("repe cmpsb" : "+D"(dst), "+S"(src), "+c"(m)::"memory", "cc");
  asm volatile("rep lodsb" : "+S"(src), "+c"(m)::"memory", "rax");
}

__attribute__((noinline)) float dot(const float *a, const float *b, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) void blend(double *y, const double *x, double a, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] > a ? x[i] - a : y[i] * a;
}

__attribute__((noinline)) int lookup(const int *t, const unsigned *idx, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s ^= t[idx[i] & 1023] + i;
  return s;
}

__attribute__((noinline)) unsigned bits(unsigned long x, unsigned long y) {
  return __builtin_popcountl(x) + __builtin_ctzl(y | 1) + __builtin_clzl(x | 1) +
         (unsigned)((x >> (y & 63)) | (x << (64 - (y & 63))));
}

int main(int argc, char **argv) {
  static float a[1024], b[1024];
  static double c[1024], d[1024];
  static int t[1024];
  static unsigned idx[1024];
  for (int i = 0; i < 1024; i++) {
    a[i] = i + argc;
    b[i] = 1024 - i;
    c[i] = d[i] = i * 0.5;
    t[i] = i * 3;
    idx[i] = i * 7;
  }
  blend(c, d, 3.0, 1024);
  char buf[64], out[64];
  memset(buf, argc, sizeof buf);
  strings(out, buf, sizeof buf);
  int lock = 0;
  elided_lock(&lock);
  printf("%ld %g %ld %u\n", bump(argc * 100), dot(a, b, 1024) + c[5], (long)lookup(t, idx, 1024),
         bits(argc, argc + 5));
  return 0;
}
