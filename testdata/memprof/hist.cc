// clang++-19 -O1 -fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie -mllvm -memprof-use-callbacks=true -mllvm -memprof-histogram hist.cc -o hist
//
// gen.sh builds this file with clang++-19 (raw v4, u64 histograms) and
// clang++-22 (raw v5, u16-encoded histograms) with the flags above; clang-16
// has no access histograms. Objects of different sizes are accessed with
// different per-granule patterns so histogram values differ by position, and
// one counter goes past 255 to show the v4 saturation and the v5 encoding.
#include <cstdio>

struct Small {
  long a, b, c, d;
};

struct Padded {
  char tag;
  long value;
  char more[40];
};

static volatile long sink;

__attribute__((noinline)) Small *make_small() { return new Small(); }
__attribute__((noinline)) Padded *make_padded() { return new Padded(); }

int main() {
  Small *s = make_small();
  volatile long *a = &s->a, *c = &s->c;
  for (int i = 0; i < 300; i++)
    *a += i;
  for (int i = 0; i < 10; i++)
    *c += *a;
  sink += s->c;
  delete s;

  Padded *p = make_padded();
  for (int i = 0; i < 5; i++)
    p->value += p->tag + i;
  p->more[39] = 1;
  sink += p->value + p->more[39];
  delete p;

  long *big = new long[100];
  for (int i = 0; i < 100; i += 3)
    big[i] = i;
  sink += big[99];
  delete[] big;
  printf("%ld\n", (long)sink);
  return 0;
}
