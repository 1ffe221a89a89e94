package instrprof

import (
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// TestStackSortsAgree checks the LSD radix sort of call stacks against the
// comparison sort it replaced (still used for inputs it does not suit),
// and the radix arrays built from either.
func TestStackSortsAgree(t *testing.T) {
	for _, rel := range []int{19, 22} {
		p := syntheticProfile(20000, 4000, 12)
		// Stacks of uneven depth: cut some short.
		for i, st := range p.CallStacks {
			if i%7 == 0 {
				p.CallStacks[i] = st[:1+i%len(st)]
			}
		}
		ix, err := index(p, llvmrelease.Release(rel))
		if err != nil {
			t.Fatal(err)
		}
		_, _, frameIndex := radixFrameOrder(ix)
		rank := make([]uint32, len(ix.frames))
		for f := range rank {
			rank[f] = uint32(len(rank) - 1 - f) // any bijection will do
		}
		lsd, scratch := lsdSortStacks(ix, rank)
		if lsd == nil {
			t.Fatalf("release %d: lsdSortStacks declined %d stacks", rel, ix.numStacks())
		}
		ks := keySortStacks(ix, rank)
		if !slices.Equal(lsd, ks) {
			t.Fatalf("release %d: LSD and comparison sorts differ", rel)
		}
		arr1, pos1 := encodeRadix(ix, lsd, frameIndex, scratch.cols[:len(ix.stackFrames)], scratch.tmp)
		arr2, pos2 := encodeRadix(ix, ks, frameIndex, make([]uint32, len(ix.stackFrames)), nil)
		if !slices.Equal(arr1, arr2) || !slices.Equal(pos1, pos2) {
			t.Errorf("release %d: radix arrays differ", rel)
		}
	}
}
