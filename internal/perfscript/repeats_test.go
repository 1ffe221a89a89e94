package perfscript

import (
	"fmt"
	"slices"
	"testing"
)

// TestRepeatCacheEvicts fills one set of the repeat cache past its ways:
// each evicted entry delivers its added counts as one sample, in its
// slot's compact form decoded back, the rest are delivered by the flush,
// and samples whose addresses a slot cannot hold are not cached.
func TestRepeatCacheEvicts(t *testing.T) {
	const codeLo = 0x400000
	var got []string
	p := &reader{opts: Options{HybridRecord: func(rec []byte, count uint64, first bool) {
		stack, lbr := DecodeHybridSample(rec, nil, nil)
		got = append(got, fmt.Sprintf("%x %x %d %v", stack, lbr, count, first))
	}}, repeats: newRepeatCache(codeLo)}
	defer p.dropRepeats()
	c := p.repeats
	sample := func(i int) ([2]uint64, []uint64, []Branch) {
		k := [2]uint64{uint64(i) * repeatSets, uint64(2*i + 1)} // all in set 0; never zero, as key's
		stack := []uint64{codeLo + uint64(i), ExternalAddr, codeLo + 0xfffffffe}
		lbr := []Branch{{codeLo + 0x100 + uint64(i), codeLo}, {ExternalAddr, codeLo + 7}}
		return k, stack, lbr
	}
	var want []string
	for i := range 2 * repeatWays {
		k, stack, lbr := sample(i)
		if c.hit(k, 1) {
			t.Fatalf("sample %d found before it was cached", i)
		}
		p.insertRepeat(k, stack, lbr)
		for range i + 1 {
			if !c.hit(k, 1) {
				t.Fatalf("sample %d not found once cached", i)
			}
		}
		want = append(want, fmt.Sprintf("%x %x %d false", stack, lbr, i+1))
	}
	// The first repeatWays were evicted, in order, by the others.
	if !slices.Equal(got, want[:repeatWays]) {
		t.Fatalf("evictions delivered\n%q\nwant\n%q", got, want[:repeatWays])
	}
	// Addresses below the code or 4 GiB past it are not cached.
	for _, a := range []uint64{codeLo - 1, codeLo + 0xffffffff} {
		k := [2]uint64{a, 99}
		p.insertRepeat(k, []uint64{a}, []Branch{{codeLo, codeLo}})
		if c.hit(k, 1) {
			t.Errorf("a sample at %#x was cached", a)
		}
	}
	got = got[:0]
	p.flushRepeats()
	slices.Sort(got)
	rest := slices.Clone(want[repeatWays:])
	slices.Sort(rest)
	if !slices.Equal(got, rest) {
		t.Errorf("the flush delivered\n%q\nwant\n%q", got, rest)
	}
}
