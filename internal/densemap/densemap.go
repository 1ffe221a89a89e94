// Package densemap reproduces the iteration order of
// llvm::DenseMap<uint64_t, T> (llvm/ADT/DenseMap.h). llvm-profdata walks
// such maps when it symbolizes raw MemProf stacks and, up to LLVM 19, when
// it hands frames and call stacks to the V0–V2 writers, so their order is
// part of its output (memprof spec §3.9).
//
// The layout, as LLVM builds it:
//   - Buckets: a power-of-two array, 64 at the first insertion, probed
//     quadratically: bucket h, h+1, h+1+2, h+1+2+3, ... (mod the size).
//   - Hash: DenseMapInfo<uint64_t>::getHashValue, which changed in LLVM 19
//     (PR #95734): releases up to 18 use uint32(k × 37); 19 and later the
//     low 32 bits of x ^ (x >> 31) with x = k × 0xbf58476d1ce4e5b9.
//   - Growth: before a new key goes in, the array doubles when
//     (entries+1)×4 ≥ buckets×3 (to max(64, NextPowerOf2(2×buckets−1))),
//     reinserting the live keys in old bucket order.
//   - Iteration visits the occupied buckets in index order.
//
// llvm-profdata only inserts into these maps (insert-if-absent), so erase
// and its tombstones (and the same-size rebuild they can force) are not
// emulated. LLVM reserves the keys 2^64−1 (empty) and 2^64−2 (tombstone)
// and asserts on them; Map keeps occupancy apart and accepts them.
package densemap

import "github.com/rules-pgo/rules_pgo/internal/llvmrelease"

// Map is an emulated llvm::DenseMap<uint64_t, T> over a key array the
// caller keeps: entry i is keys[i], and iteration yields indexes into keys.
// A bucket is 4 bytes (an index), as small as the emulation can make it:
// the V0–V2 writers order a million frame and stack ids this way.
type Map struct {
	newHash bool
	hashFn  func(uint64) uint32 // instead of DenseMapInfo<uint64_t>'s
	keys    []uint64
	buckets []int32 // index into keys + 1; 0: empty
	entries int
}

// New returns an empty map over keys emulating the LLVM release
// (e.g. 16, 19, 22).
func New(release llvmrelease.Release, keys []uint64) *Map {
	return &Map{newHash: release.DenseMapMixesHash(), keys: keys}
}

func (m *Map) hash(k uint64) uint32 {
	if m.hashFn != nil {
		return m.hashFn(k)
	}
	if !m.newHash {
		return uint32(k * 37)
	}
	x := k * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint32(x)
}

// lookup returns the bucket holding key k or the empty bucket an insertion
// of k would use. The map has buckets.
func (m *Map) lookup(k uint64) int {
	mask := len(m.buckets) - 1
	b := int(m.hash(k)) & mask
	for probe := 1; ; probe++ {
		if e := m.buckets[b]; e == 0 || m.keys[e-1] == k {
			return b
		}
		b = (b + probe) & mask
	}
}

// Len is the number of keys.
func (m *Map) Len() int { return m.entries }

// Insert adds keys[i] if no equal key is present (DenseMap::insert) and
// reports whether it was added.
func (m *Map) Insert(i int32) bool {
	k := m.keys[i]
	n := len(m.buckets)
	if n > 0 && m.buckets[m.lookup(k)] != 0 {
		return false
	}
	if (m.entries+1)*4 >= n*3 {
		m.grow(n * 2)
	}
	m.buckets[m.lookup(k)] = i + 1
	m.entries++
	return true
}

// grow reallocates to max(64, atLeast rounded up to a power of two)
// buckets and reinserts the keys in old bucket order.
func (m *Map) grow(atLeast int) {
	n := 64
	for n < atLeast {
		n *= 2
	}
	old := m.buckets
	m.buckets = make([]int32, n)
	clear(m.buckets) // write before the first read: see hashtab's package doc
	for _, e := range old {
		if e != 0 {
			m.buckets[m.lookup(m.keys[e-1])] = e
		}
	}
}

// Order returns the indexes of the keys present in iteration (bucket)
// order.
func (m *Map) Order() []int32 {
	out := make([]int32, 0, m.entries)
	for _, e := range m.buckets {
		if e != 0 {
			out = append(out, e-1)
		}
	}
	return out
}

// OrderHashed is Order for a DenseMap of another key type: keys are
// distinct stand-ins (indexes of the caller's keys, say) and hash gives
// each the hash LLVM's DenseMapInfo gives the key it stands for.
func OrderHashed(keys []uint64, hash func(uint64) uint32) []int32 {
	m := &Map{hashFn: hash, keys: keys}
	for i := range keys {
		m.Insert(int32(i))
	}
	return m.Order()
}

// HashUint64 is DenseMapInfo<uint64_t>::getHashValue of LLVM release
// release.
func HashUint64(release llvmrelease.Release, k uint64) uint32 { return New(release, nil).hash(k) }

// CombineHash is llvm::detail::combineHashValue from LLVM 19 on (PR
// #95734), the hash DenseMapInfo<std::pair<T, U>> makes of its members'
// hashes: the uint64_t hash of a<<32|b.
func CombineHash(a, b uint32) uint32 { return HashUint64(19, uint64(a)<<32|uint64(b)) }

// NewSmall returns an empty llvm::SmallDenseMap<uint64_t, T, inline> of
// release: inline buckets from the start; its first growth, like
// DenseMap's, goes to max(64, the next power of two).
func NewSmall(release llvmrelease.Release, keys []uint64, inline int) *Map {
	m := New(release, keys)
	m.buckets = make([]int32, inline)
	return m
}

// Order inserts keys in turn into a Map of the release and returns its
// iteration order as indexes into keys (each key's first occurrence).
func Order(release llvmrelease.Release, keys []uint64) []int32 {
	m := New(release, keys)
	for i := range keys {
		m.Insert(int32(i))
	}
	return m.Order()
}
