package sampleprof

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortCounts checks the summary's radix sort against slices.Sort.
func TestSortCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 5, 1023, 1024, 5000} {
		for _, mask := range []uint64{0, 0xff, 0x1ffff, 0xff00ff0000, ^uint64(0)} {
			in := make([]uint64, n)
			for i := range in {
				in[i] = r.Uint64()&mask | 1<<40
			}
			want := slices.Clone(in)
			slices.Sort(want)
			if got := sortCounts(in); !slices.Equal(got, want) {
				t.Errorf("n=%d mask=%#x: not sorted as slices.Sort sorts", n, mask)
			}
		}
	}
}
