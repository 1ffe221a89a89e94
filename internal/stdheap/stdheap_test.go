package stdheap

import (
	"slices"
	"testing"
)

// TestOrder: elements come out greatest first by the comparator (the tie
// order is checked against llvm-profdata show --topn in tools/merge).
func TestOrder(t *testing.T) {
	type kv struct{ k, id int }
	q := New(func(a, b kv) bool { return a.k < b.k })
	for i, k := range []int{3, 1, 3, 2, 3, 1} {
		q.Push(kv{k, i})
	}
	var got []kv
	for q.Len() > 0 {
		got = append(got, q.Pop())
	}
	keys := make([]int, len(got))
	for i, g := range got {
		keys[i] = g.k
	}
	if !slices.Equal(keys, []int{3, 3, 3, 2, 1, 1}) {
		t.Fatalf("keys out of order: %v", got)
	}
}
