package densemap

import (
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"slices"
	"testing"
)

func keysOf(release llvmrelease.Release, keys []uint64) []uint64 {
	var out []uint64
	for _, i := range Order(release, keys) {
		out = append(out, keys[i])
	}
	return out
}

func TestOrder(t *testing.T) {
	// LLVM 16 hashes k×37: keys 1, 2, 3 land in buckets 37, 74&63=10, 111&63=47.
	if got := keysOf(16, []uint64{1, 2, 3}); !slices.Equal(got, []uint64{2, 1, 3}) {
		t.Errorf("LLVM 16 order of 1,2,3 = %v, want [2 1 3]", got)
	}
	// Collision: 1 and 65 share bucket 37 (65×37 = 2405 = 37 mod 64); the
	// second probes to 38.
	if got := keysOf(16, []uint64{65, 1}); !slices.Equal(got, []uint64{65, 1}) {
		t.Errorf("collision order = %v, want [65 1]", got)
	}
	if got := keysOf(16, []uint64{1, 65}); !slices.Equal(got, []uint64{1, 65}) {
		t.Errorf("collision order = %v, want [1 65]", got)
	}
	// Quadratic probing: 1, 65, 129 all hash to 37; the third goes to
	// 37+1+2 = 40, past 38 and 39.
	if got := Order(16, []uint64{1, 65, 129, 2 /* bucket 10 */, 1}); !slices.Equal(got, []int32{3, 0, 1, 2}) {
		t.Errorf("order of 1,65,129,2,1 = %v, want [3 0 1 2]", got)
	}

	keys := make([]uint64, 48)
	for k := range keys {
		keys[k] = uint64(k)
	}
	m := New(19, keys)
	for k := range 47 {
		m.Insert(int32(k))
	}
	if len(m.buckets) != 64 {
		t.Errorf("47 keys: %d buckets, want 64", len(m.buckets))
	}
	m.Insert(47) // (47+1)×4 = 192 ≥ 64×3: grows before inserting the 48th key
	if len(m.buckets) != 128 || m.Len() != 48 {
		t.Errorf("48 keys: %d buckets, %d entries; want 128, 48", len(m.buckets), m.Len())
	}
	if m.Insert(5) {
		t.Errorf("Insert of an existing key reported new")
	}
	// Reserved LLVM keys are accepted.
	if !New(19, []uint64{^uint64(0)}).Insert(0) {
		t.Errorf("Insert(2^64-1) failed")
	}
}

func BenchmarkOrder(b *testing.B) {
	keys := make([]uint64, 100000)
	for i := range keys {
		keys[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	for b.Loop() {
		Order(19, keys)
	}
	b.ReportMetric(float64(len(keys)*b.N)/b.Elapsed().Seconds(), "keys/s")
}
