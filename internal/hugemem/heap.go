package hugemem

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// PrimeHeap asks the kernel for transparent huge pages for the next n
// bytes the Go heap grows into, so that the program's heap is faulted in
// 2 MiB at a time instead of 4 KiB. The runtime never asks for huge pages
// for its heap; on the VMs the benchmarks run on a 4 KiB fault costs
// ~15 µs, and a merge or profgen run touching 200 MB of fresh heap spends
// a third of its CPU in them.
//
// How: one large allocation makes the runtime map n bytes of heap without
// touching them (memory fresh from the kernel is known to be zero);
// madvise(MADV_HUGEPAGE) marks that mapping; the allocation is dropped and
// collected at once. The runtime hands out free pages lowest address
// first, so the small objects the program allocates next land in the
// marked range, and the kernel backs its first touch of each 2 MiB with
// one huge page. Unused pages cost nothing: the mapping is virtual until
// touched, and the runtime's scavenger gives back free pages with
// MADV_DONTNEED, which keeps the mark.
//
// The mapping is charged to the kernel's overcommit accounting, and a
// refused allocation would end the program, so nothing is done when the
// address space is limited (RLIMIT_AS) or overcommit is strict
// (vm.overcommit_memory=2), and n is cut to a quarter of the machine's
// memory (the heuristic mode refuses single mappings near its size).
// Nothing is done either when GODEBUG has disablethp=1 (the runtime's
// switch for "no huge pages in my heap") or RULES_PGO_HUGEPAGES=0. Call it
// once, first thing in main.
func PrimeHeap(n int) {
	if n <= 0 || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || os.Getenv("RULES_PGO_HUGEPAGES") == "0" {
		return
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) != nil || lim.Cur != ^uint64(0) {
		return
	}
	if mode, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || strings.TrimSpace(string(mode)) == "2" {
		return
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return
	}
	n = int(min(uint64(n), uint64(si.Totalram)*uint64(si.Unit)/4))
	if n < HugePage {
		return
	}
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + HugePage - 1) &^ (HugePage - 1)
	end := (p + uintptr(n)) &^ (HugePage - 1)
	if end > start {
		_ = syscall.Madvise(b[start-p:end-p], madvHugepage)
	}
	runtime.GC()
}
