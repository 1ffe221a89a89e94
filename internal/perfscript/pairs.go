package perfscript

import "github.com/rules-pgo/rules_pgo/internal/hashtab"

// BranchCounts counts Branch keys in insertion order: a hashtab.Index
// over dense key and count slices. It replaces a Go map on the hot paths
// (the parser's two updates per LBR entry, the unwinder's per range); the
// maps of Counter are filled from it once, at the end. The zero value is
// empty.
type BranchCounts struct {
	index  hashtab.Index
	keys   []Branch
	counts []uint64
}

// Add adds n to the count of k, creating it at 0 first.
func (t *BranchCounts) Add(k Branch, n uint64) {
	h := (k.Source*0x9e3779b97f4a7c15 ^ k.Target) * 0xbf58476d1ce4e5b9
	p := t.index.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if t.keys[p.Entry] == k {
			t.counts[p.Entry] += n
			return
		}
	}
	t.keys = append(t.keys, k)
	t.counts = append(t.counts, n)
	t.index.Add(h, p)
}

// Len is the number of keys.
func (t *BranchCounts) Len() int { return len(t.keys) }

// Pairs returns the map of the counts, keyed by (source, target).
func (t *BranchCounts) Pairs() map[[2]uint64]uint64 {
	m := make(map[[2]uint64]uint64, len(t.keys))
	for i, k := range t.keys {
		m[[2]uint64{k.Source, k.Target}] = t.counts[i]
	}
	return m
}
