// clang-19 -O2 -gdwarf-5 -fdebug-info-for-profiling -fdebug-compilation-dir=/src -nostdlib -static -fno-pie -Wl,--build-id=sha1 -o tiny.elf tiny.c && clang-19 -O2 -gdwarf-4 -gz=zlib -fdebug-compilation-dir=/src -nostdlib -static -fno-pie -Wl,--build-id=sha1 -o tiny-dwarf4-zlib.elf tiny.c && clang-19 -O2 -gdwarf-5 -fdebug-info-for-profiling -fdebug-compilation-dir=/src -nostdlib -static -fno-pie -fuse-ld=lld -Wl,-z,max-page-size=16 -Wl,-z,norelro -Wl,--no-rosegment -Wl,--build-id=sha1 -o fuzz-seed-dwarf5.elf tiny.c && clang-19 -O2 -gdwarf-4 -gz=zlib -fdebug-compilation-dir=/src -nostdlib -static -fno-pie -fuse-ld=lld -Wl,-z,max-page-size=16 -Wl,-z,norelro -Wl,--no-rosegment -Wl,--build-id=sha1 -o fuzz-seed-dwarf4-zlib.elf tiny.c
static inline int sq(int x) { return x * x; }

__attribute__((noinline)) static int sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += (i & 1) ? sq(i) : i;
  return s;
}

volatile int input = 10;

void _start(void) {
  volatile int r = sum(input);
  (void)r;
  for (;;) {
  }
}
