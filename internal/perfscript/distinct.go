package perfscript

import "github.com/rules-pgo/rules_pgo/internal/hugemem"

// hashSet is the set of 128-bit sample hashes behind the distinct count
// (insertDistinct): open addressing with linear probing over a
// power-of-two array kept at most half full, the first slot taken from
// the hash's low bits (the keys are hashes already). A Go map of the
// same keys hashed each key again and, growing to ~100,000 entries in a
// 200,000-sample trace, cost ~800 page faults of fresh memory on the
// benchmarks' VMs; the large arrays here come from hugemem (one fault per
// 2 MiB) and are given back by free. The zero key, which marks an empty
// slot, is kept in a flag.
type hashSet struct {
	slots   [][2]uint64
	n       int
	hasZero bool
}

// minHashSetSlots is the first allocation: small traces stay on the
// heap, up to maxHeapHashSetSlots (64 KiB).
const (
	minHashSetSlots     = 1 << 6
	maxHeapHashSetSlots = 1 << 12
)

// insert adds k and reports whether it is new.
func (s *hashSet) insert(k [2]uint64) bool {
	if k == [2]uint64{} {
		added := !s.hasZero
		s.hasZero = true
		return added
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := k[0] & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return false
		case [2]uint64{}:
			s.slots[i] = k
			s.n++
			return true
		}
	}
}

// len is the number of keys.
func (s *hashSet) len() int {
	if s.hasZero {
		return s.n + 1
	}
	return s.n
}

// grow makes the array four times as large (fewer rehashes).
func (s *hashSet) grow() {
	old := s.slots
	n := max(minHashSetSlots, 4*len(old))
	if n > maxHeapHashSetSlots {
		// Past the heap's sizes, straight to a whole huge page.
		n = max(n, hugemem.HugePage/16)
	}
	s.slots = hugemem.Make[[2]uint64](n)
	// Written before it is read: a read of fresh memory maps the zero
	// page, and the write after it faults again (for a huge page, split
	// into 4 KiB faults). See hashtab's package doc, "Touch".
	clear(s.slots)
	mask := uint64(len(s.slots) - 1)
	for _, k := range old {
		if k == [2]uint64{} {
			continue
		}
		i := k[0] & mask
		for s.slots[i] != [2]uint64{} {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
	hugemem.Free(old)
}

// free gives the array back (the count stays).
func (s *hashSet) free() {
	hugemem.Free(s.slots)
	s.slots = nil
}
