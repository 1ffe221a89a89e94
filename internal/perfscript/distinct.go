package perfscript

import "github.com/rules-pgo/rules_pgo/internal/hashtab"

// hashSet is the set of 128-bit sample hashes behind the distinct count
// (insertDistinct): the project's one open-addressing table
// (hashtab.Index) over the keys in insertion order. A Go map of the same
// keys hashed each key again and grew by rehashing into fresh buckets;
// the keys here are hashes already, so a key's first word (mixed with the
// second) is its table hash.
type hashSet struct {
	idx  hashtab.Index
	keys [][2]uint64
}

// insert adds k and reports whether it is new.
func (s *hashSet) insert(k [2]uint64) bool {
	h := k[0] ^ k[1]*0x9e3779b97f4a7c15
	p := s.idx.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if s.keys[p.Entry] == k {
			return false
		}
	}
	s.keys = append(s.keys, k)
	s.idx.Add(h, p)
	return true
}

// len is the number of keys.
func (s *hashSet) len() int { return len(s.keys) }
