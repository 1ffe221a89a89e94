package stringmap

import (
	"fmt"
	"slices"
	"testing"
)

func djb(s string) uint32 {
	h := uint32(0)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint32(s[i])
	}
	return h
}

// TestOrderSmall: below 13 keys the map has its 16 first buckets, so keys
// whose hashes differ in their low 4 bits come out by those bits.
func TestOrderSmall(t *testing.T) {
	var keys []string
	seen := map[uint32]bool{}
	for i := 0; len(keys) < 12; i++ {
		k := fmt.Sprintf("f%d", i)
		if b := djb(k) & 15; !seen[b] {
			seen[b] = true
			keys = append(keys, k)
		}
	}
	want := slices.Clone(keys)
	slices.SortFunc(want, func(a, b string) int { return int(djb(a)&15) - int(djb(b)&15) })
	if got := Order(keys); !slices.Equal(got, want) {
		t.Errorf("Order(%q) = %q, want %q", keys, got, want)
	}
}

// TestOrderGrows: every key comes out once, whatever the growth; the
// bytes themselves are checked against llvm-profdata-16 by instrprof's
// conformance tests.
func TestOrderGrows(t *testing.T) {
	var keys []string
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("_Z%dfoov", i))
	}
	got := Order(keys)
	if len(got) != len(keys) {
		t.Fatalf("Order returned %d keys, want %d", len(got), len(keys))
	}
	slices.Sort(got)
	want := slices.Clone(keys)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Error("Order lost or repeated keys")
	}
}
