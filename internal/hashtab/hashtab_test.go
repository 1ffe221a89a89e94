package hashtab

import (
	"math/rand"
	"testing"
)

// TestIndex numbers random keys (some repeated, some sharing a hash) and
// checks the numbering against a Go map.
func TestIndex(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var ix Index
	var keys []uint64
	want := map[uint64]int32{}
	hash := func(k uint64) uint64 { return k % 1000 } // many collisions
	find := func(k uint64) int32 {
		p := ix.Probe(hash(k))
		for p = p.Next(); p.Entry >= 0; p = p.Next() {
			if keys[p.Entry] == k {
				return p.Entry
			}
		}
		keys = append(keys, k)
		return ix.Add(hash(k), p)
	}
	for n := 0; n < 20000; n++ {
		k := uint64(r.Intn(5000)) << uint(r.Intn(40))
		got := find(k)
		w, ok := want[k]
		if !ok {
			w = int32(len(want))
			want[k] = w
		}
		if got != w || ix.Len() != len(want) {
			t.Fatalf("key %d: entry %d (len %d), want %d (len %d)", k, got, ix.Len(), w, len(want))
		}
	}
	if 2*ix.Len() > len(ix.slots) {
		t.Errorf("%d entries in %d slots", ix.Len(), len(ix.slots))
	}
	var pre Index
	pre.Reserve(1000)
	size := len(pre.slots)
	for k := range uint64(1000) {
		p := pre.Probe(k * 7).Next()
		if p.Entry >= 0 {
			t.Fatalf("distinct hash %d found", k*7)
		}
		pre.Add(k*7, p)
	}
	if len(pre.slots) != size {
		t.Errorf("Reserve(1000) then 1000 adds grew the table")
	}
}
