package memprofidx

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// stackProfile returns a profile of n allocation call stacks of uneven
// depth (1 to 12 frames, leaf first) drawn from a shared call tree of up to
// 1,000 frames per level, in the records of their leaf functions.
func stackProfile(n int) *memprof.Profile {
	r := rand.New(rand.NewPCG(7, 11))
	const depth = 12
	var levels [depth][]memprof.Frame
	for i := range levels {
		levels[i] = make([]memprof.Frame, min(1<<(2*i), 1000))
		for j := range levels[i] {
			levels[i][j] = memprof.Frame{Function: r.Uint64(), LineOffset: uint32(r.IntN(200)), Column: uint32(r.IntN(40))}
		}
	}
	p := &memprof.Profile{}
	recs := map[uint64]*memprof.Record{}
	for c := range n {
		d := depth
		if c%7 == 0 {
			d = 1 + c%depth
		}
		st := make([]memprof.Frame, d)
		for i := range st {
			lvl := levels[d-1-i]
			st[i] = lvl[r.IntN(len(lvl))]
		}
		p.CallStacks = append(p.CallStacks, st)
		rec := recs[st[0].Function]
		if rec == nil {
			rec = &memprof.Record{GUID: st[0].Function}
			recs[rec.GUID] = rec
			p.Records = append(p.Records, rec)
		}
		rec.AllocSites = append(rec.AllocSites, memprof.AllocationInfo{CallStack: st, Info: memprof.MemInfoBlock{AllocCount: 1}})
	}
	return p
}

// TestStackSortsAgree checks the LSD radix sort of call stacks against the
// comparison sort it replaced (still used for inputs it does not suit),
// and the radix arrays built from either.
func TestStackSortsAgree(t *testing.T) {
	for _, rel := range []int{19, 22} {
		ix, err := Index(stackProfile(20000), llvmrelease.Release(rel))
		if err != nil {
			t.Fatal(err)
		}
		_, _, frameIndex := RadixFrameOrder(ix)
		rank := make([]uint32, len(ix.Frames))
		for f := range rank {
			rank[f] = uint32(len(rank) - 1 - f) // any bijection will do
		}
		lsd, scratch := lsdSortStacks(ix, rank)
		if lsd == nil {
			t.Fatalf("release %d: lsdSortStacks declined %d stacks", rel, ix.NumStacks())
		}
		ks := keySortStacks(ix, rank)
		if !slices.Equal(lsd, ks) {
			t.Fatalf("release %d: LSD and comparison sorts differ", rel)
		}
		arr1, pos1 := encodeRadix(ix, lsd, frameIndex, scratch.cols[:len(ix.StackFrames)], scratch.tmp)
		arr2, pos2 := encodeRadix(ix, ks, frameIndex, make([]uint32, len(ix.StackFrames)), nil)
		if !slices.Equal(arr1, arr2) || !slices.Equal(pos1, pos2) {
			t.Errorf("release %d: radix arrays differ", rel)
		}
	}
}

// TestRadixRoundTrip checks that DecodeRadix reads back every call stack
// from the radix array BuildRadix writes, at the position it reports.
func TestRadixRoundTrip(t *testing.T) {
	for _, rel := range []int{19, 22} {
		ix, err := Index(stackProfile(5000), llvmrelease.Release(rel))
		if err != nil {
			t.Fatal(err)
		}
		order, count, frameIndex := RadixFrameOrder(ix)
		radix, linear := BuildRadix(ix, count, frameIndex)
		frames := make([]memprof.Frame, len(order))
		for i, f := range order {
			frames[i] = ix.Frames[f]
		}
		for s := range ix.NumStacks() {
			got, msg := DecodeRadix(radix, frames, linear[s])
			if msg != "" {
				t.Fatalf("release %d: stack %d: %s", rel, s, msg)
			}
			var want []memprof.Frame
			for _, f := range ix.Stack(int32(s)) {
				want = append(want, ix.Frames[f])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("release %d: stack %d decodes to %d frames, want %d", rel, s, len(got), len(want))
			}
		}
	}
}
