package hugemem

import (
	"reflect"
	"testing"
	"unsafe"
)

func TestMakeFree(t *testing.T) {
	type rec struct {
		A uint64
		B [3]uint32
	}
	for _, n := range []int{0, 1, 1000, MinBytes/16 + 1, 3 * MinBytes / 16} {
		s := Make[rec](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != (rec{}) {
				t.Fatalf("Make(%d)[%d] not zero", n, i)
			}
			s[i].A = uint64(i)
		}
		Free(s)
	}
	mu.Lock()
	left := len(mapped)
	mu.Unlock()
	if left != 0 {
		t.Errorf("%d mappings left after Free", left)
	}
}

func TestPointersRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Make[*int] did not panic")
		}
	}()
	_ = Make[*int](MinBytes)
}

func TestPointerFree(t *testing.T) {
	type ok struct {
		A int
		B [2]float64
	}
	type bad struct {
		A int
		S string
	}
	if !pointerFree(reflectType[ok]()) || pointerFree(reflectType[bad]()) || pointerFree(reflectType[[]int]()) {
		t.Error("pointerFree is wrong")
	}
}

func reflectType[T any]() reflect.Type { return reflect.TypeFor[T]() }

// TestPrimeHeap: priming leaves the heap usable (what it saves, page
// faults, is measured by the benches, not here).
func TestPrimeHeap(t *testing.T) {
	PrimeHeap(64 << 20)
	var keep [][]byte
	for range 1000 {
		keep = append(keep, make([]byte, 4096))
	}
	for _, b := range keep {
		if b[0] != 0 || b[4095] != 0 {
			t.Fatal("fresh heap memory not zero after PrimeHeap")
		}
	}
	t.Setenv("RULES_PGO_HUGEPAGES", "0")
	PrimeHeap(64 << 20)
}

func TestAligned(t *testing.T) {
	s := Make[byte](MinBytes + 12345)
	mu.Lock()
	_, ok := mapped[uintptr(unsafe.Pointer(unsafe.SliceData(s)))]
	mu.Unlock()
	if !ok {
		t.Skip("the kernel refused the mapping")
	}
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(s))); p%HugePage != 0 {
		t.Errorf("mapping at %#x, not a multiple of %#x", p, HugePage)
	}
	s[len(s)-1] = 1
	Free(s)
}
