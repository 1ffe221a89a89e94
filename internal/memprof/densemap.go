package memprof

// DenseMapOrder emulates the bucket layout of llvm::DenseMap<uint64_t, T>
// (llvm/ADT/DenseMap.h) to reproduce its iteration order, which LLVM's raw
// reader and the V0–V2 writers depend on (spec §3.9).
//
// The table uses open addressing with quadratic probing over a power-of-two
// number of buckets (64 at the first insertion). Before a new key goes in,
// the table doubles when (entries+1)×4 ≥ buckets×3, or is rebuilt at the
// same size when fewer than buckets/8 buckets would stay empty (tombstones
// count as used); a rebuild reinserts live keys in bucket order. Erase
// leaves a tombstone whose bucket the next insertion along that probe path
// reuses. Iteration visits live buckets in index order.
//
// The key hash changed in LLVM 19 (PR #95734): releases up to 18 use
// uint32(key × 37); 19 and later use the low 32 bits of
// x ^ (x >> 31) with x = key × 0xbf58476d1ce4e5b9.
//
// LLVM reserves the keys 2^64−1 (empty) and 2^64−2 (tombstone); this
// emulation stores occupancy separately and accepts them.
type DenseMapOrder struct {
	newHash    bool
	buckets    []dmBucket
	entries    int
	tombstones int
}

// dmBucket is one bucket: key, a value (insertVal) and its state, side by
// side so that a probe touches one cache line.
type dmBucket struct {
	key   uint64
	val   int32
	state uint8 // bucketEmpty, bucketLive, bucketTombstone
}

const (
	bucketEmpty uint8 = iota
	bucketLive
	bucketTombstone
)

// NewDenseMapOrder returns an empty map emulating LLVM release llvmRelease
// (e.g. 16, 19, 22).
func NewDenseMapOrder(llvmRelease int) *DenseMapOrder {
	return &DenseMapOrder{newHash: llvmRelease >= 19}
}

func (m *DenseMapOrder) hash(k uint64) uint32 {
	if !m.newHash {
		return uint32(k * 37)
	}
	x := k * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint32(x)
}

// lookup returns the bucket holding k (found) or the bucket an insertion
// of k would use.
func (m *DenseMapOrder) lookup(k uint64) (int, bool) {
	n := len(m.buckets)
	if n == 0 {
		return -1, false
	}
	mask := n - 1
	b := int(m.hash(k)) & mask
	tomb := -1
	for probe := 1; ; probe++ {
		e := &m.buckets[b]
		switch e.state {
		case bucketLive:
			if e.key == k {
				return b, true
			}
		case bucketEmpty:
			if tomb >= 0 {
				return tomb, false
			}
			return b, false
		case bucketTombstone:
			if tomb < 0 {
				tomb = b
			}
		}
		b = (b + probe) & mask
	}
}

// Contains reports whether k is in the map.
func (m *DenseMapOrder) Contains(k uint64) bool {
	_, ok := m.lookup(k)
	return ok
}

// Len is the number of live keys.
func (m *DenseMapOrder) Len() int { return m.entries }

// Buckets is the current number of buckets (0 before the first insertion).
func (m *DenseMapOrder) Buckets() int { return len(m.buckets) }

// Insert adds k if absent (DenseMap::insert / operator[]) and reports
// whether it was added.
func (m *DenseMapOrder) Insert(k uint64) bool {
	return m.insertVal(k, 0)
}

// insertVal is Insert that also stores v with a new key.
func (m *DenseMapOrder) insertVal(k uint64, v int32) bool {
	b, ok := m.lookup(k)
	if ok {
		return false
	}
	n := len(m.buckets)
	if (m.entries+1)*4 >= n*3 {
		m.grow(n * 2)
		b, _ = m.lookup(k)
	} else if n-(m.entries+1+m.tombstones) <= n/8 {
		m.grow(n)
		b, _ = m.lookup(k)
	}
	if m.buckets[b].state == bucketTombstone {
		m.tombstones--
	}
	m.buckets[b] = dmBucket{key: k, val: v, state: bucketLive}
	m.entries++
	return true
}

// Erase removes k, leaving a tombstone, and reports whether it was there.
func (m *DenseMapOrder) Erase(k uint64) bool {
	b, ok := m.lookup(k)
	if !ok {
		return false
	}
	m.buckets[b].state = bucketTombstone
	m.entries--
	m.tombstones++
	return true
}

// grow reallocates to max(64, NextPowerOf2(atLeast-1)) buckets and
// reinserts the live keys in old bucket order.
func (m *DenseMapOrder) grow(atLeast int) {
	n := 64
	for n < atLeast {
		n *= 2
	}
	old := m.buckets
	m.buckets = make([]dmBucket, n)
	clear(m.buckets) // see touch in converter.go
	m.entries, m.tombstones = 0, 0
	for i := range old {
		if old[i].state != bucketLive {
			continue
		}
		b, _ := m.lookup(old[i].key)
		m.buckets[b] = old[i]
		m.entries++
	}
}

// Clone returns a copy with the same bucket layout (DenseMap's copy
// constructor and copy assignment preserve it).
func (m *DenseMapOrder) Clone() *DenseMapOrder {
	return &DenseMapOrder{
		newHash:    m.newHash,
		buckets:    append([]dmBucket(nil), m.buckets...),
		entries:    m.entries,
		tombstones: m.tombstones,
	}
}

// Keys returns the live keys in iteration (bucket) order.
func (m *DenseMapOrder) Keys() []uint64 {
	out := make([]uint64, 0, m.entries)
	for i := range m.buckets {
		if m.buckets[i].state == bucketLive {
			out = append(out, m.buckets[i].key)
		}
	}
	return out
}

// values returns the values of the live keys in iteration order.
func (m *DenseMapOrder) values() []int32 {
	out := make([]int32, 0, m.entries)
	for i := range m.buckets {
		if m.buckets[i].state == bucketLive {
			out = append(out, m.buckets[i].val)
		}
	}
	return out
}

// DenseMapIterationOrder returns keys (duplicates ignored after the first)
// in the order an llvm::DenseMap<uint64_t, T> of release llvmRelease
// iterates after inserting them in the given order.
func DenseMapIterationOrder(llvmRelease int, keys []uint64) []uint64 {
	m := NewDenseMapOrder(llvmRelease)
	for _, k := range keys {
		m.Insert(k)
	}
	return m.Keys()
}
