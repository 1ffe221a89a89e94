// Package hashtab holds the open-addressing hash tables of the format
// packages, used where a Go map costs too much on the conversion's hot
// paths (generic hashing of struct or slice keys, a key copied into the
// map beside an array that already holds it, a GC-scanned bucket array).
//
//   - Index numbers distinct keys that the caller stores (call stacks as
//     runs of a shared frame array, frames, slices): the table holds only
//     the hashes, and the caller compares candidates itself.
//   - Map maps uint64 keys to int32 values with key and value in the slot:
//     one cache line per probe, for the lookups made once per address or
//     stack id of a raw profile.
//
// Both use linear probing over a power-of-two slot array kept at most half
// full (a full Index grows fourfold, a Map twofold), the first slot chosen
// by Fibonacci hashing (the top bits of hash × 2^64/φ). Numbering, and so
// every output order, depends only on the order of insertion, never on the
// layout. (LLVM's DenseMap, whose layout does decide output order, is
// emulated by package densemap.)
//
// Touch: slot arrays are cleared right after make although make returns
// zeroed memory. A large allocation may be fresh from the kernel, and the
// first access of a probe is a read: the kernel maps its zero page, and the
// write that follows costs a second, copy-on-write fault with a TLB
// shootdown (perf on this project's VMs: 7% of a merge's CPU). Writing
// first takes one fault per page.
package hashtab

import "math/bits"

const fib = 0x9e3779b97f4a7c15 // 2^64/φ, odd

// slotsFor returns the slot count for n entries: a power of two at least
// 2n and at least min.
func slotsFor(n, min int) (size int, shift uint) {
	size = min
	for size < 2*n {
		size *= 2
	}
	return size, uint(64 - bits.TrailingZeros(uint(size)))
}

// Index numbers distinct keys in insertion order: entry i is the i-th key
// added. The caller keeps the keys and a 64-bit hash of each; the table
// keeps the hashes and, in each slot, 32 bits derived from the hash beside
// the entry number, so that a probe rarely hands back an entry whose key
// does not match. The zero value is an empty Index.
//
// A lookup is a Probe: Next returns the candidate entries one by one, the
// caller compares each with its key, and when Next returns -1 the key is
// absent and Add may add it at the slot where the probe stopped:
//
//	p := t.Probe(h)
//	for i := p.Next(); i >= 0; i = p.Next() {
//		if equal(key, keys[i]) {
//			return i
//		}
//	}
//	keys = append(keys, key)
//	return t.Add(&p)
type Index struct {
	slots  []uint64 // tag | entry+1; 0: empty
	hashes []uint64 // entry -> hash
	shift  uint
}

// minIndexSlots is the slot count of an Index's first allocation.
const minIndexSlots = 64

// tag returns the upper half of a slot for hash h: the low 32 bits of h
// folded with its high 32, independent of the slot choice (which the
// product's top bits make).
func tag(h uint64) uint64 { return (h ^ h>>32) << 32 }

// Probe is a lookup of one hash in an Index. It is valid until the next
// Add to the Index.
type Probe struct {
	slots  []uint64
	b      uint64
	tag, h uint64
}

// Probe starts a lookup of hash h.
func (t *Index) Probe(h uint64) Probe {
	if t.slots == nil {
		t.Reserve(0)
	}
	return Probe{slots: t.slots, b: (h * fib) >> t.shift, tag: tag(h), h: h}
}

// Next returns the next entry on the probe path whose hash may equal the
// probed one, or -1 when the path ends: no entry further has that hash.
func (p *Probe) Next() int32 {
	for {
		e := p.slots[p.b]
		if e == 0 {
			return -1
		}
		p.b = (p.b + 1) & uint64(len(p.slots)-1)
		if e&^0xffffffff == p.tag {
			return int32(uint32(e)) - 1
		}
	}
}

// Add adds an entry with p's hash, after p.Next returned -1, and returns
// its number (the previous Len).
func (t *Index) Add(p *Probe) int32 {
	i := int32(len(t.hashes))
	t.hashes = append(t.hashes, p.h)
	if 2*len(t.hashes) > len(t.slots) {
		t.Reserve(2 * len(t.slots)) // four times the slots: fewer rehashes
	} else {
		t.slots[p.b] = p.tag | uint64(i+1)
	}
	return i
}

// Len is the number of entries.
func (t *Index) Len() int { return len(t.hashes) }

// Reserve makes room for n entries without further growth (it never
// shrinks the table).
func (t *Index) Reserve(n int) {
	size, shift := slotsFor(n, minIndexSlots)
	if size > len(t.slots) {
		t.rehash(size, shift)
	}
	if n > cap(t.hashes) {
		t.hashes = append(make([]uint64, 0, n), t.hashes...)
	}
}

// rehash reallocates to size slots and reinserts every entry.
func (t *Index) rehash(size int, shift uint) {
	t.slots = make([]uint64, size)
	clear(t.slots) // see Touch in the package doc
	t.shift = shift
	mask := uint64(size - 1)
	for i, h := range t.hashes {
		b := (h * fib) >> shift
		for t.slots[b] != 0 {
			b = (b + 1) & mask
		}
		t.slots[b] = tag(h) | uint64(i+1)
	}
}

// Map maps uint64 keys to int32 values. The zero value is an empty Map.
type Map struct {
	slots []mapSlot
	n     int
	shift uint
}

type mapSlot struct {
	key  uint64
	val  int32
	used bool
}

// minMapSlots is the slot count of a Map's first allocation.
const minMapSlots = 16

// slot returns k's slot, or the empty slot where k belongs. The map has
// slots.
func (m *Map) slot(k uint64) *mapSlot {
	mask := uint64(len(m.slots) - 1)
	for b := (k * fib) >> m.shift; ; b = (b + 1) & mask {
		if e := &m.slots[b]; !e.used || e.key == k {
			return e
		}
	}
}

// Get returns k's value and whether k is present.
func (m *Map) Get(k uint64) (int32, bool) {
	if m.n == 0 {
		return 0, false
	}
	e := m.slot(k)
	return e.val, e.used
}

// Set maps k to v, replacing an earlier value.
func (m *Map) Set(k uint64, v int32) { m.claim(k).val = v }

// Put returns k's value and true if k is present; otherwise it maps k to v
// and returns v and false.
func (m *Map) Put(k uint64, v int32) (int32, bool) {
	n := m.n
	e := m.claim(k)
	if m.n == n {
		return e.val, true
	}
	e.val = v
	return v, false
}

// claim returns k's slot, taking one (value zero) if k is absent.
func (m *Map) claim(k uint64) *mapSlot {
	if 2*(m.n+1) > len(m.slots) {
		m.Reserve(m.n + 1)
	}
	e := m.slot(k)
	if !e.used {
		*e = mapSlot{key: k, used: true}
		m.n++
	}
	return e
}

// Len is the number of keys.
func (m *Map) Len() int { return m.n }

// Reset empties m, keeping its memory.
func (m *Map) Reset() {
	clear(m.slots)
	m.n = 0
}

// Reserve makes room for n keys without further growth (it never shrinks
// the map).
func (m *Map) Reserve(n int) {
	size, shift := slotsFor(n, minMapSlots)
	if size <= len(m.slots) {
		return
	}
	old := m.slots
	m.slots = make([]mapSlot, size)
	clear(m.slots) // see Touch in the package doc
	m.shift = shift
	for _, e := range old {
		if e.used {
			*m.slot(e.key) = e
		}
	}
}
