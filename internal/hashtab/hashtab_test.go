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
		for i := p.Next(); i >= 0; i = p.Next() {
			if keys[i] == k {
				return i
			}
		}
		keys = append(keys, k)
		return ix.Add(&p)
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
		p := pre.Probe(k * 7)
		if p.Next() >= 0 {
			t.Fatalf("distinct hash %d found", k*7)
		}
		pre.Add(&p)
	}
	if len(pre.slots) != size {
		t.Errorf("Reserve(1000) then 1000 adds grew the table")
	}
}

func TestMap(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	var m Map
	want := map[uint64]int32{}
	for n := 0; n < 20000; n++ {
		k := uint64(r.Intn(3000)) << uint(r.Intn(50))
		v := int32(r.Intn(100)) - 50
		switch r.Intn(3) {
		case 0:
			m.Set(k, v)
			want[k] = v
		case 1:
			got, ok := m.Put(k, v)
			w, wok := want[k]
			if !wok {
				w = v
				want[k] = v
			}
			if got != w || ok != wok {
				t.Fatalf("Put(%d, %d) = %d, %v; want %d, %v", k, v, got, ok, w, wok)
			}
		default:
			got, ok := m.Get(k)
			w, wok := want[k]
			if got != w || ok != wok {
				t.Fatalf("Get(%d) = %d, %v; want %d, %v", k, got, ok, w, wok)
			}
		}
		if m.Len() != len(want) {
			t.Fatalf("Len %d, want %d", m.Len(), len(want))
		}
	}
	m.Reset()
	if _, ok := m.Get(0); ok || m.Len() != 0 || len(m.slots) == 0 {
		t.Errorf("Reset: len %d, %d slots", m.Len(), len(m.slots))
	}
}
