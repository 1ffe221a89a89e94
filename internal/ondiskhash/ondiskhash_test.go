package ondiskhash

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInsertionOrder: for random tables, inserting in the order
// InsertionOrder derives from a layout reproduces that layout.
func TestInsertionOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 10, 46, 47, 48, 49, 95, 96, 97, 200, 400, 1000} {
		for trial := range 5 {
			items := make([]odItem, n)
			for i := range items {
				items[i].hash = r.Uint64()
				items[i].body = []byte{byte(i), byte(i >> 8)}
				if trial%2 == 1 {
					items[i].hash &= 0x3f // force long chains
				}
			}
			disk := flatten(items)
			hashes := make([]uint64, len(disk))
			for i, it := range disk {
				hashes[i] = it.hash
			}
			perm := InsertionOrder(hashes)
			re := make([]odItem, len(perm))
			for i, p := range perm {
				re[i] = disk[p]
			}
			if got := flatten(re); !slices.EqualFunc(got, disk, func(a, b odItem) bool { return a.hash == b.hash && string(a.body) == string(b.body) }) {
				t.Fatalf("n=%d trial %d: layout not reproduced", n, trial)
			}
		}
	}
}

type odItem struct {
	hash uint64
	body []byte
}

// flatten returns items in on-disk order.
func flatten(items []odItem) []odItem {
	hashes := make([]uint64, len(items))
	for i, it := range items {
		hashes[i] = it.hash
	}
	var out []odItem
	for _, i := range New(hashes).Order {
		out = append(out, items[i])
	}
	return out
}
