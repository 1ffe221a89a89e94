package perfscript

import (
	"math/rand"
	"testing"
)

// TestHashSet compares hashSet with a map on keys that repeat, share
// their low bits (the slot choice) and include the zero key, across the
// table's growth.
func TestHashSet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var s hashSet
	want := map[[2]uint64]bool{}
	for i := range 300_000 {
		var k [2]uint64
		switch i % 4 {
		case 0:
			k = [2]uint64{r.Uint64(), r.Uint64()}
		case 1:
			k = [2]uint64{uint64(r.Intn(20)) << 40, uint64(r.Intn(10))} // same low bits
		case 2:
			k = [2]uint64{uint64(r.Intn(5000)), 7}
		case 3:
			if r.Intn(1000) == 0 {
				k = [2]uint64{}
			} else {
				k = [2]uint64{uint64(r.Intn(200000)), 0}
			}
		}
		if got := s.insert(k); got != !want[k] {
			t.Fatalf("insert %d (%x): new %v, want %v", i, k, got, !want[k])
		}
		want[k] = true
		if s.len() != len(want) {
			t.Fatalf("after %d: len %d, want %d", i, s.len(), len(want))
		}
	}
}
