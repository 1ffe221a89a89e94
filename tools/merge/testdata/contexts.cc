// clang++-22 -O1 -fuse-ld=lld -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie contexts.cc -o contexts
//
// TestMergeContextsIR builds this with clang++-19 and -22 (flags above) and
// records runs that agree or disagree about one allocation context. make()
// allocates from two callers: hot_path, whose buffers are always written
// over and freed at once, and keep_path, whose behaviour argv decides:
//   contexts cold N   keep_path makes N buffers, never touched, kept to exit
//                     (N <= 4096)
//   contexts hot N    keep_path makes N buffers, written over, freed at once
#include <cstdlib>
#include <cstring>

static char *kept[4096]; // no allocations but make()'s
static volatile long sink;

__attribute__((noinline)) char *make(size_t n) { return new char[n]; }

__attribute__((noinline)) void keep_path(int n, bool touch) {
  for (int i = 0; i < n; i++) {
    char *p = make(64);
    if (touch) {
      for (int r = 0; r < 16; r++)
        memset(p, r, 64);
      sink += p[7];
      delete[] p;
    } else {
      kept[i % 4096] = p;
    }
  }
}

__attribute__((noinline)) void hot_path(int n) {
  for (int i = 0; i < n; i++) {
    char *p = make(64);
    for (int r = 0; r < 16; r++)
      memset(p, r, 64);
    sink += p[3];
    delete[] p;
  }
}

int main(int argc, char **argv) {
  bool cold = argc > 1 && strcmp(argv[1], "cold") == 0;
  keep_path(argc > 2 ? atoi(argv[2]) : 100, !cold);
  hot_path(100);
  return 0;
}
