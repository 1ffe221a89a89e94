package perfscript

import "syscall"

// hugeAlloc returns n zero bytes outside the Go heap, in transparent huge
// pages where the kernel gives them (madvise(MADV_HUGEPAGE)): touching a
// fresh 4 KiB page costs a page fault of ~15 µs on the VMs the benchmarks
// run on, touching 2 MiB of a huge page one fault. Without the mapping,
// heap memory. hugeFree gives it back.
func hugeAlloc(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	_ = syscall.Madvise(b, madvHugepage)
	return b
}

// hugeFree gives back what hugeAlloc returned (b is not to be used
// after).
func hugeFree(b []byte) {
	if err := syscall.Munmap(b); err != nil {
		// Heap memory (the mapping failed): the collector takes it.
		return
	}
}

const madvHugepage = 14 // MADV_HUGEPAGE
