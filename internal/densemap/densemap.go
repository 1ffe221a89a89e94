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

// Map is an emulated llvm::DenseMap<uint64_t, T> whose values are int32
// (typically an index into the caller's data). The zero value is not
// usable; call New.
type Map struct {
	newHash bool
	buckets []bucket
	entries int
}

// bucket is one bucket: key, value and occupancy side by side, so that a
// probe touches one cache line.
type bucket struct {
	key  uint64
	val  int32
	used bool
}

// New returns an empty map emulating LLVM release llvmRelease (e.g. 16,
// 19, 22).
func New(llvmRelease int) *Map {
	return &Map{newHash: llvmRelease >= 19}
}

func (m *Map) hash(k uint64) uint32 {
	if !m.newHash {
		return uint32(k * 37)
	}
	x := k * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint32(x)
}

// lookup returns the bucket holding k (found) or the empty bucket an
// insertion of k would use. The map has buckets.
func (m *Map) lookup(k uint64) (int, bool) {
	mask := len(m.buckets) - 1
	b := int(m.hash(k)) & mask
	for probe := 1; ; probe++ {
		e := &m.buckets[b]
		if !e.used {
			return b, false
		}
		if e.key == k {
			return b, true
		}
		b = (b + probe) & mask
	}
}

// Len is the number of keys.
func (m *Map) Len() int { return m.entries }

// Insert adds k with value v if k is absent (DenseMap::insert; a present
// key keeps its value) and reports whether it was added.
func (m *Map) Insert(k uint64, v int32) bool {
	n := len(m.buckets)
	if n > 0 {
		if _, ok := m.lookup(k); ok {
			return false
		}
	}
	if (m.entries+1)*4 >= n*3 {
		m.grow(n * 2)
	}
	b, _ := m.lookup(k)
	m.buckets[b] = bucket{key: k, val: v, used: true}
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
	m.buckets = make([]bucket, n)
	clear(m.buckets) // write before the first read: see hashtab's package doc
	for i := range old {
		if old[i].used {
			b, _ := m.lookup(old[i].key)
			m.buckets[b] = old[i]
		}
	}
}

// Values returns the values in iteration (bucket) order.
func (m *Map) Values() []int32 {
	out := make([]int32, 0, m.entries)
	for i := range m.buckets {
		if m.buckets[i].used {
			out = append(out, m.buckets[i].val)
		}
	}
	return out
}

// Order inserts keys in turn into a Map of llvmRelease and returns its
// iteration order as indexes into keys (each key's first occurrence).
func Order(llvmRelease int, keys []uint64) []int32 {
	m := New(llvmRelease)
	for i, k := range keys {
		m.Insert(k, int32(i))
	}
	return m.Values()
}
