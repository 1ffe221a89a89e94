// Package hugemem allocates large arrays of pointer-free values outside
// the Go heap, in transparent huge pages where the kernel gives them
// (mmap plus madvise(MADV_HUGEPAGE); THP is "madvise" on Debian's
// kernels). Why by hand: on the VMs the benchmarks run on, the first touch
// of a fresh 4 KiB page costs a page fault of ~15 µs, and the Go runtime
// never asks for huge pages for its heap; touching 2 MiB of a huge page
// costs one fault. The tools' largest arrays (read buffers, the MemProf
// fold's merged arrays, perfscript's repeat cache) are filled once and
// given back at the end of a phase, which is what this package is for.
// PrimeHeap does the same for the Go heap itself: the tools call it first
// thing (internal/cli.Main), so that their small objects are faulted in
// huge pages too.
//
// Memory from Make is not scanned by the garbage collector, so T must hold
// no pointers (Make panics otherwise: a programming error, never an
// input's). It is given back by Free, explicitly: a slice must not be used
// after it is freed. Requests below MinBytes, and any request the kernel
// refuses, come from the Go heap; Free leaves those to the collector.
package hugemem

import (
	"fmt"
	"reflect"
	"sync"
	"syscall"
	"unsafe"
)

// MinBytes is the smallest request served by a mapping: below it a huge
// page would be mostly empty and the heap is as good.
const MinBytes = 1 << 20

// HugePage is the size of a transparent huge page (x86-64, arm64 with 4
// KiB pages). Mappings start at a multiple of it and span whole huge
// pages: the kernel backs only the aligned 2 MiB extents of a mapping with
// huge pages, and mmap aligns only lengths that are multiples of 2 MiB
// (since Linux 6.7; not at all before), so an unaligned 4.5 MiB mapping
// would hold one huge page and 2.5 MiB of 4 KiB pages.
const HugePage = 2 << 20

const madvHugepage = 14 // MADV_HUGEPAGE

var (
	mu     sync.Mutex
	mapped = map[uintptr][]byte{} // start of each live array → its mapping
)

// Make returns a zeroed []T of length and capacity n. T must hold no
// pointers.
func Make[T any](n int) []T {
	// The size from reflect, not from a variable of type T: a large T
	// (an array or a struct of arrays) would be a heap allocation.
	t := reflect.TypeFor[T]()
	size := int(t.Size())
	if !pointerFree(t) {
		panic(fmt.Sprintf("hugemem.Make: %v holds pointers", t))
	}
	if n < 0 {
		panic("hugemem.Make: negative length")
	}
	if size == 0 || n > (1<<50)/size || n*size < MinBytes {
		return make([]T, n)
	}
	length := (n*size + HugePage - 1) &^ (HugePage - 1)
	// A huge page more than needed, to start the array at a multiple of
	// HugePage; the unaligned head and tail are never touched.
	b, err := syscall.Mmap(-1, 0, length+HugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]T, n)
	}
	head := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (HugePage - 1))
	a := b[head : head+length]
	_ = syscall.Madvise(a, madvHugepage)
	p := unsafe.Pointer(unsafe.SliceData(a))
	mu.Lock()
	mapped[uintptr(p)] = b
	mu.Unlock()
	return unsafe.Slice((*T)(p), n)
}

// Bytes is Make[byte].
func Bytes(n int) []byte { return Make[byte](n) }

// Free gives back the memory of s, a slice Make returned (any length, the
// same first element). Slices from the heap are left to the collector.
// Nothing may use s, or a slice of it, afterwards.
func Free[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	mu.Lock()
	b, ok := mapped[p]
	delete(mapped, p)
	mu.Unlock()
	if ok {
		_ = syscall.Munmap(b)
	}
}

// pointerFree reports whether values of t hold no pointers.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false // pointers, strings, slices, maps, interfaces, channels, funcs, unsafe.Pointer
}
