// Another program: its instrumented binary has a different build id than //:app's.
#include <cstdio>

int main() {
  int* p = new int[16];
  p[3] = 7;
  std::printf("%d\n", p[3]);
  delete[] p;
  return 0;
}
