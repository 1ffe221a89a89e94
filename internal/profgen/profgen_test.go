package profgen

import (
	"slices"
	"testing"
)

// TestDisjointRanges uses the examples of findDisjointRanges' comment in
// ProfileGenerator.cpp.
func TestDisjointRanges(t *testing.T) {
	for _, c := range []struct {
		name string
		in   map[[2]uint64]uint64
		want []disjoint
	}{
		{"nested", map[[2]uint64]uint64{{10, 20}: 100, {10, 30}: 200},
			[]disjoint{{10, 20, 300}, {21, 30, 200}}},
		{"touching", map[[2]uint64]uint64{{10, 20}: 100, {20, 30}: 200},
			[]disjoint{{10, 19, 100}, {20, 20, 300}, {21, 30, 200}}},
		{"zero", map[[2]uint64]uint64{{12, 20}: 100, {25, 30}: 200, {10, 40}: 0},
			[]disjoint{{10, 11, 0}, {12, 20, 100}, {21, 24, 0}, {25, 30, 200}, {31, 40, 0}}},
		{"gap", map[[2]uint64]uint64{{10, 20}: 10, {30, 40}: 20},
			[]disjoint{{10, 20, 10}, {30, 40, 20}}},
	} {
		if got := disjointRanges(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDiscriminators: the base discriminator and duplication factor of
// DILocation's encoding (raw 2 → base 1, raw 4 → base 2, as the spec's
// worked example).
func TestDiscriminators(t *testing.T) {
	g := &generator{}
	for _, c := range []struct{ raw, base, dup uint32 }{
		{0, 0, 1}, {2, 1, 1}, {4, 2, 1}, {1, 0, 1},
		// base 0 (bit 1), duplication factor 3 (3<<1 after it).
		{1 | 3<<2, 0, 3},
		// base 5, duplication factor 2 in the next 7-bit component.
		{5<<1 | (2<<1)<<7, 5, 2},
	} {
		if b, d := g.baseDisc(c.raw), g.dupFactor(c.raw); b != c.base || d != c.dup {
			t.Errorf("raw %#x: base %d dup %d, want %d %d", c.raw, b, d, c.base, c.dup)
		}
	}
	fs := &generator{fs: true}
	if b, d := fs.baseDisc(0x1234), fs.dupFactor(0x1234); b != 0x1234 || d != 1 {
		t.Errorf("FS: base %#x dup %d", b, d)
	}
}
