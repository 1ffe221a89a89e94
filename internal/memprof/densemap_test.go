package memprof

import (
	"slices"
	"testing"
)

func TestDenseMapOrder(t *testing.T) {
	// LLVM 16 hashes k×37: keys 1, 2, 3 land in buckets 37, 74&63=10, 111&63=47.
	if got := DenseMapIterationOrder(16, []uint64{1, 2, 3}); !slices.Equal(got, []uint64{2, 1, 3}) {
		t.Errorf("LLVM 16 order of 1,2,3 = %v, want [2 1 3]", got)
	}
	// Collision: 1 and 65 share bucket 37 (65×37 = 2405 = 37 mod 64); the
	// second probes to 38.
	if got := DenseMapIterationOrder(16, []uint64{65, 1}); !slices.Equal(got, []uint64{65, 1}) {
		t.Errorf("collision order = %v, want [65 1]", got)
	}
	if got := DenseMapIterationOrder(16, []uint64{1, 65}); !slices.Equal(got, []uint64{1, 65}) {
		t.Errorf("collision order = %v, want [1 65]", got)
	}

	m := NewDenseMapOrder(19)
	for k := uint64(0); k < 47; k++ {
		m.Insert(k)
	}
	if m.Buckets() != 64 {
		t.Errorf("47 keys: %d buckets, want 64", m.Buckets())
	}
	m.Insert(47) // (47+1)×4 = 192 ≥ 64×3: grows before inserting the 48th key
	if m.Buckets() != 128 || m.Len() != 48 {
		t.Errorf("48 keys: %d buckets, %d entries; want 128, 48", m.Buckets(), m.Len())
	}
	if m.Insert(5) {
		t.Errorf("Insert of an existing key reported new")
	}
	if !m.Erase(5) || m.Contains(5) || m.Len() != 47 {
		t.Errorf("Erase(5) did not remove it")
	}
	c := m.Clone()
	if !slices.Equal(c.Keys(), m.Keys()) {
		t.Errorf("Clone changed the order")
	}
	// Reinserting reuses the tombstone on the probe path.
	m.Insert(5)
	if !slices.Equal(m.Keys(), DenseMapIterationOrder(19, func() []uint64 {
		var ks []uint64
		for k := uint64(0); k < 48; k++ {
			ks = append(ks, k)
		}
		return ks
	}())) {
		t.Errorf("erase+insert of the same key changed the layout")
	}
	// Reserved LLVM keys are accepted.
	if !NewDenseMapOrder(19).Insert(^uint64(0)) {
		t.Errorf("Insert(2^64-1) failed")
	}
}
