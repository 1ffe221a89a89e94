// clang++-N -fuse-ld=lld --ld-path=/usr/bin/ld.lld-19 -Wl,--no-rosegment -gmlt -fdebug-info-for-profiling -fmemory-profile -mno-omit-leaf-frame-pointer -fno-omit-frame-pointer -fno-optimize-sibling-calls -m64 -Wl,-build-id -no-pie many.cc -o many.N
// Many allocating functions, so that every MemProf table grows past 64 buckets.
static char *sink[4096];
static int nsink;
__attribute__((noinline)) void f0(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f1(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f2(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f3(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f4(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f5(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f6(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f7(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f8(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f9(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f10(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f11(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f12(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f13(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f14(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f15(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f16(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f17(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f18(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f19(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f20(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f21(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f22(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f23(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f24(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f25(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f26(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f27(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f28(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f29(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f30(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f31(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f32(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f33(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f34(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f35(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f36(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f37(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f38(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f39(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f40(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f41(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f42(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f43(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f44(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f45(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f46(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f47(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f48(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f49(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f50(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f51(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f52(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f53(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f54(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f55(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f56(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f57(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f58(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f59(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f60(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f61(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f62(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f63(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f64(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f65(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f66(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f67(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f68(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f69(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f70(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f71(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f72(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f73(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f74(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f75(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f76(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f77(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f78(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f79(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f80(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f81(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f82(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f83(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f84(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f85(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f86(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f87(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f88(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f89(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f90(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f91(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f92(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f93(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f94(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f95(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f96(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f97(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f98(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f99(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f100(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f101(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f102(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f103(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f104(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f105(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f106(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f107(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f108(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f109(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f110(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f111(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f112(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
__attribute__((noinline)) void f113(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[2 * 8]; }
__attribute__((noinline)) void f114(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[3 * 8]; }
__attribute__((noinline)) void f115(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[4 * 8]; }
__attribute__((noinline)) void f116(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[5 * 8]; }
__attribute__((noinline)) void f117(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[6 * 8]; }
__attribute__((noinline)) void f118(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[7 * 8]; }
__attribute__((noinline)) void f119(int n) { for (int i = 0; i < n; i++) sink[nsink++ % 4096] = new char[1 * 8]; }
int main() {
  f0(1);
  f1(2);
  f2(3);
  f3(1);
  f4(2);
  f5(3);
  f6(1);
  f7(2);
  f8(3);
  f9(1);
  f10(2);
  f11(3);
  f12(1);
  f13(2);
  f14(3);
  f15(1);
  f16(2);
  f17(3);
  f18(1);
  f19(2);
  f20(3);
  f21(1);
  f22(2);
  f23(3);
  f24(1);
  f25(2);
  f26(3);
  f27(1);
  f28(2);
  f29(3);
  f30(1);
  f31(2);
  f32(3);
  f33(1);
  f34(2);
  f35(3);
  f36(1);
  f37(2);
  f38(3);
  f39(1);
  f40(2);
  f41(3);
  f42(1);
  f43(2);
  f44(3);
  f45(1);
  f46(2);
  f47(3);
  f48(1);
  f49(2);
  f50(3);
  f51(1);
  f52(2);
  f53(3);
  f54(1);
  f55(2);
  f56(3);
  f57(1);
  f58(2);
  f59(3);
  f60(1);
  f61(2);
  f62(3);
  f63(1);
  f64(2);
  f65(3);
  f66(1);
  f67(2);
  f68(3);
  f69(1);
  f70(2);
  f71(3);
  f72(1);
  f73(2);
  f74(3);
  f75(1);
  f76(2);
  f77(3);
  f78(1);
  f79(2);
  f80(3);
  f81(1);
  f82(2);
  f83(3);
  f84(1);
  f85(2);
  f86(3);
  f87(1);
  f88(2);
  f89(3);
  f90(1);
  f91(2);
  f92(3);
  f93(1);
  f94(2);
  f95(3);
  f96(1);
  f97(2);
  f98(3);
  f99(1);
  f100(2);
  f101(3);
  f102(1);
  f103(2);
  f104(3);
  f105(1);
  f106(2);
  f107(3);
  f108(1);
  f109(2);
  f110(3);
  f111(1);
  f112(2);
  f113(3);
  f114(1);
  f115(2);
  f116(3);
  f117(1);
  f118(2);
  f119(3);
  for (int i = 0; i < 4096; i++) delete[] sink[i];
  return 0;
}
