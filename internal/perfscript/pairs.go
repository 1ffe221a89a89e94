package perfscript

import "github.com/rules-pgo/rules_pgo/internal/hashtab"

// pairCounts counts Branch keys in insertion order: a hashtab.Index over
// dense key and count slices. It replaces a Go map on the parser's hot
// path (two updates per LBR entry); the maps of Counter are filled from it
// once, at the end.
type pairCounts struct {
	index  hashtab.Index
	keys   []Branch
	counts []uint64
}

// add adds n to the count of k, creating it at 0 first.
func (t *pairCounts) add(k Branch, n uint64) {
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

func (t *pairCounts) len() int { return len(t.keys) }
