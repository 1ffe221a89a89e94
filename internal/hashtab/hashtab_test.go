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

func addrs(n, distinct int) []uint64 {
	r := rand.New(rand.NewSource(3))
	base := make([]uint64, distinct)
	for i := range base {
		base[i] = 0x400000 + uint64(r.Intn(1<<22))*4
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = base[r.Intn(distinct)]
	}
	return out
}

// BenchmarkNumber numbers 2,000,000 addresses (200,000 distinct), as the
// MemProf converter does per input. Index, which reads the key from the
// caller's array, takes about a quarter more CPU time than Map, with the
// key in the slot.
func BenchmarkNumber(b *testing.B) {
	in := addrs(2_000_000, 200_000)
	b.Run("Map", func(b *testing.B) {
		for b.Loop() {
			var m Map
			var keys []uint64
			for _, a := range in {
				if _, found := m.Put(a, int32(len(keys))); !found {
					keys = append(keys, a)
				}
			}
		}
	})
	b.Run("Index", func(b *testing.B) {
		for b.Loop() {
			var t Index
			var keys []uint64
			for _, a := range in {
				p := t.Probe(a)
				for p = p.Next(); p.Entry >= 0 && keys[p.Entry] != a; p = p.Next() {
				}
				if p.Entry < 0 {
					t.Add(a, p)
					keys = append(keys, a)
				}
			}
		}
	})
}
