// Package hashtab holds the open-addressing hash table of the format
// packages, used where a Go map costs too much on the conversion's hot
// paths (generic hashing of struct or slice keys, a key copied into the
// map beside an array that already holds it, a GC-scanned bucket array).
// Index numbers distinct keys that the caller stores (call stacks as runs
// of a shared frame array, frames, slices, addresses, stack ids): the
// table holds only hashes, and the caller compares the candidates a probe
// hands out with its key.
//
// Linear probing over a power-of-two slot array kept at most half full
// (a full table grows fourfold), the first slot chosen by Fibonacci
// hashing (the top bits of hash × 2^64/φ). Numbering, and so every output
// order, depends only on the order of insertion, never on the layout.
// (LLVM's containers, whose layout does decide output order, are emulated
// elsewhere: densemap, stringmap, ondiskhash.) A second table for uint64 keys, with the key in the
// slot, numbered addresses 5–10% faster in a microbenchmark, well under 1%
// of a conversion: one table serves every use.
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

// Index numbers distinct keys in insertion order: entry i is the i-th key
// added. The caller keeps the keys and hashes each to 64 bits; the table
// keeps the hashes and, in each slot, 32 bits derived from the hash beside
// the entry number, so that a probe rarely hands out an entry whose key
// does not match. The zero value is an empty Index.
//
// A lookup is a Probe, which hands out the candidates one by one for the
// caller to compare with its key; a key it does not find can be added
// where the probe ended:
//
//	p := t.Probe(h)
//	for p = p.Next(); p.Entry >= 0; p = p.Next() {
//		if equal(key, keys[p.Entry]) {
//			return p.Entry
//		}
//	}
//	keys = append(keys, key)
//	return t.Add(h, p)
//
// (Two other shapes were slower on the MemProf conversion: a Probe whose
// Next had a pointer receiver lives in memory, and the converter's
// call-stack lookups took 1.5 times as long; a Find with a comparison
// callback costs two calls per lookup, and indexing a profile for the
// writers took 1.3 times as long.)
type Index struct {
	slots  []uint64 // tag | entry+1; 0: empty
	hashes []uint64 // entry -> hash
	bits   uint     // len(slots) is 1<<bits; 0 while slots is empty
}

// minIndexSlots is the slot count of an Index's first allocation.
const minIndexSlots = 64

// tag returns the upper half of a slot for hash h: the low 32 bits of h
// folded with its high 32, independent of the slot choice (which the
// product's top bits make).
func tag(h uint64) uint64 { return (h ^ h>>32) << 32 }

// Probe is a lookup of one hash in an Index, passed by value (so that it
// stays in registers). Entry is the current candidate: an entry whose hash
// may be the probed one, or -1 once the probe has ended at the empty slot
// where Add puts a new entry.
type Probe struct {
	t     *Index
	b     uint64 // the slot to read next
	tag   uint64
	Entry int32
}

// Probe starts a lookup of hash h; call Next for the first candidate.
func (t *Index) Probe(h uint64) Probe {
	return Probe{t: t, b: (h * fib) >> (64 - t.bits), tag: tag(h)}
}

// Next returns p moved to its next candidate.
func (p Probe) Next() Probe {
	s := p.t.slots
	if len(s) == 0 {
		p.Entry = -1
		return p
	}
	for {
		e := s[p.b]
		if e == 0 {
			p.Entry = -1
			return p
		}
		p.b = (p.b + 1) & uint64(len(s)-1)
		if e&^0xffffffff == p.tag {
			p.Entry = int32(uint32(e)) - 1
			return p
		}
	}
}

// Add adds an entry with hash h, which p probed to its end (no Add
// since), and returns the entry's number (the previous Len).
func (t *Index) Add(h uint64, p Probe) int32 {
	i := int32(len(t.hashes))
	t.hashes = append(t.hashes, h)
	if 2*len(t.hashes) > len(t.slots) {
		t.Reserve(2 * len(t.slots)) // four times the slots: fewer rehashes
	} else {
		t.slots[p.b] = p.tag | uint64(i+1)
	}
	return i
}

// Len is the number of entries.
func (t *Index) Len() int { return len(t.hashes) }

// Reset empties t, keeping its memory.
func (t *Index) Reset() {
	clear(t.slots)
	t.hashes = t.hashes[:0]
}

// Reserve makes room for n entries without further growth (it never
// shrinks the table).
func (t *Index) Reserve(n int) {
	size := minIndexSlots
	for size < 2*n {
		size *= 2
	}
	if size > len(t.slots) {
		t.rehash(size)
	}
	if n > cap(t.hashes) {
		t.hashes = append(make([]uint64, 0, n), t.hashes...)
	}
}

// rehash reallocates to size slots, a power of two, and reinserts every
// entry.
func (t *Index) rehash(size int) {
	t.slots = make([]uint64, size)
	clear(t.slots) // see Touch in the package doc
	t.bits = uint(bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for i, h := range t.hashes {
		b := (h * fib) >> (64 - t.bits)
		for t.slots[b] != 0 {
			b = (b + 1) & mask
		}
		t.slots[b] = tag(h) | uint64(i+1)
	}
}
