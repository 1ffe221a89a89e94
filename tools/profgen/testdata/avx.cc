// build: $CXX -O2 -march=x86-64-v3 -g -fdebug-info-for-profiling -fno-omit-frame-pointer $PIE avx.cc -o $OUT
// AVX2 hot loops (-march=x86-64-v3: VEX-encoded FMA, gathers, shuffles,
// BMI) for profgen's instruction boundaries; golang.org/x/arch's decoder
// measures none of them as LLVM does without help (x86inst). AVX-512
// instructions are compiled in too, in code the run crosses but never
// executes: Debian 12's qemu-user (7.2) runs AVX2 but not AVX-512 (SIGILL),
// so the EVEX instructions sit on cold paths inside the traced functions
// (an inline-assembly block behind a branch that is never taken, and a
// target("avx512f") function called only from it), where the disassembler
// must still find LLVM's boundaries across them.
#include <cstdio>
#include <cstdlib>

__attribute__((noinline, target("avx512f"))) void scale512(float *p, int n) {
  for (int i = 0; i < n; i++)
    p[i] = p[i] * 1.5f + 2.0f;
}

namespace {
inline float dot(const float *a, const float *b, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
} // namespace

__attribute__((noinline)) void saxpy(float *y, const float *x, float a, int n) {
  if (__builtin_expect(n < 0, 0)) {
    // Never runs: EVEX-encoded AVX-512 in the middle of a hot function.
    asm volatile("vpaddd %%zmm1, %%zmm2, %%zmm3\n\tvmovdqu64 %%zmm3, (%0)\n\tkmovw %%k1, %%eax" ::"r"(y)
                 : "memory", "eax");
    scale512(y, -n);
  }
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

__attribute__((noinline)) long gather(const long *t, const int *idx, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += t[idx[i]] >> 3;
  return s;
}

static float xs[256], ys[256];
static long table[256];
static int idx[256];

int main(int argc, char **argv) {
  int k = argc > 1 ? std::atoi(argv[1]) : 400;
  for (int i = 0; i < 256; i++) {
    xs[i] = i * 0.5f;
    ys[i] = 256 - i;
    table[i] = i * 3;
    idx[i] = (i * 7) & 255;
  }
  double t = 0;
  long g = 0;
  for (int r = 0; r < k; r++) {
    saxpy(ys, xs, 0.25f, 256);
    t += dot(xs, ys, 256);
    g += gather(table, idx, 256);
  }
  std::printf("%g %ld\n", t, g);
  return 0;
}
