package perfscript

import (
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"

	"github.com/rules-pgo/rules_pgo/internal/hugemem"
)

// Repeated hybrid samples (Options.DeferRepeats; the parallel text path
// only). A hybrid trace repeats many of its samples: a hot loop gives the
// same call stack and LBR entries again and again (73,606 distinct LBR
// lines among the 200,000 samples of bench/profgen's probe trace; 78,000
// samples are repeats of one of the 16,384 entries here). llvm-profgen
// parses every sample and then aggregates the trace by (stack, LBR)
// before it unwinds; here a repeat of a recently seen sample is
// recognized from its input alone, before its LBR line is parsed, by a
// hash of the sample as read (the stack's canonical addresses, the base
// address and whether an mmap event set it: 128 bits of maphash; the LBR
// line's bytes: 64 bits of maphash plus CRC-32C and length). A recognized
// repeat only adds its count to the entry of its first occurrence; the
// entry delivers the added counts as one sample (first false) when it is
// evicted or the trace ends: its fall-through pairs counted once with the
// summed count, one call of the hybrid hook instead of one per repeat.
// The counters and the unwinder's sums are the same, and everything that
// depends on the order of samples (the distinct set, the first
// occurrences, the warnings) sees the first occurrence in its place as
// before, since an entry is made only once its sample was finished (the
// first occurrence was delivered). A collision of such keys among a
// cache's entries is not a practical concern (the distinct set relies on
// 128-bit hashes the same way).
//
// The cache is 2-way set-associative with least-recently-used
// replacement, repeatSets sets; each entry keeps its sample's encoding in
// a slot of repeatSlot bytes of a huge-page mapping (hugemem.Bytes), taken in
// order as entries are made: up to 16 MiB. Without repeats it costs the
// hash of each sample and the copy of its encoding; a cache that finds
// almost nothing pauses (repeatWindow, repeatPause).
type repeatCache struct {
	seeds   [3]maphash.Seed
	mem     []repeatMem   // one: entries and arena
	entries []repeatEntry // set i is entries 2i (the newer) and 2i+1
	arena   []byte        // the entries' samples, encoded, repeatSlot bytes each
	slots   int32         // slots of arena in use (taken in order: a short trace touches little)
	buf     []byte        // scratch: the stack's bytes to hash

	// Pausing: lookups and hits in the current window, samples left to
	// skip.
	looks, hits, paused int
}

type repeatEntry struct {
	key     [2]uint64
	pending uint64 // counts added since the entry's sample was delivered
	slot    int32  // where its sample is in arena
	n       uint16 // the length of its encoding
	used    bool
}

// repeatSlot is the room for one sample's encoding: a stack of up to 63
// frames with 32 LBR entries (a longer sample is not cached).
const repeatSlot = 1024

const (
	repeatSets = 8192
	// A window of repeatWindow lookups with fewer than repeatWindow/64
	// hits pauses the cache for repeatPause windows' worth of samples.
	repeatWindow = 4096
	repeatPause  = 16
)

// repeatMem is the cache's memory, in one huge-page mapping (hugemem).
type repeatMem struct {
	entries [2 * repeatSets]repeatEntry
	arena   [2 * repeatSets * repeatSlot]byte
}

func newRepeatCache() *repeatCache {
	m := hugemem.Make[repeatMem](1)
	c := &repeatCache{mem: m, entries: m[0].entries[:], arena: m[0].arena[:]}
	// Written before the first lookup reads them: a read of fresh memory
	// maps the zero page, and the write after it faults again, page by
	// page (see hashtab's package doc, "Touch").
	clear(c.entries)
	for i := range c.seeds {
		c.seeds[i] = maphash.MakeSeed()
	}
	return c
}

// active reports whether the cache looks samples up now (false while it
// is paused); each call counts one sample.
func (c *repeatCache) active() bool {
	if c.paused > 0 {
		c.paused--
		return false
	}
	return true
}

// key is the hash of a sample as read: base, loaded and the stack, and
// raw (an LBR line, or the branches of a decoded sample), each half the
// sum of a hash of each part.
func (c *repeatCache) key(base uint64, loaded bool, stack []uint64, raw []byte) [2]uint64 {
	b := binary.LittleEndian.AppendUint64(c.buf[:0], base)
	if loaded {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, a := range stack {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	c.buf = b
	// raw, the long part, is hashed once with maphash and once with the
	// CRC-32C (SSE 4.2, 2-3 times maphash's speed) and its length: 96
	// bits for raw, 128 for the rest.
	return [2]uint64{
		maphash.Bytes(c.seeds[0], b) + maphash.Bytes(c.seeds[1], raw),
		maphash.Bytes(c.seeds[2], b) + (uint64(crc32.Checksum(raw, castagnoli))<<32 | uint64(uint32(len(raw)))),
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (c *repeatCache) set(k [2]uint64) int { return int(k[0]&(repeatSets-1)) * 2 }

// hit adds count to the entry of k and reports whether there is one.
func (c *repeatCache) hit(k [2]uint64, count uint64) bool {
	c.looks++
	i := c.set(k)
	e := c.entries[i : i+2 : i+2]
	found := false
	switch {
	case e[0].used && e[0].key == k:
		found = true
	case e[1].used && e[1].key == k:
		e[0], e[1] = e[1], e[0]
		found = true
	}
	if found {
		e[0].pending += count
		c.hits++
	}
	if c.looks == repeatWindow {
		if c.hits < repeatWindow/64 {
			c.paused = repeatPause * repeatWindow
		}
		c.looks, c.hits = 0, 0
	}
	return found
}

// insertRepeat makes the entry of k, whose sample (encoded as rec) has
// just been delivered, unless there is one; the least recently used entry
// of the set makes room (its added counts delivered first).
func (p *reader) insertRepeat(k [2]uint64, rec []byte) {
	c := p.repeats
	i := c.set(k)
	e := c.entries[i : i+2 : i+2]
	if len(rec) > repeatSlot || e[0].used && e[0].key == k || e[1].used && e[1].key == k {
		return
	}
	p.deliverRepeats(i + 1)
	slot := e[1].slot
	if !e[1].used {
		slot = c.slots
		c.slots++
	}
	e[1] = e[0]
	e[0] = repeatEntry{key: k, used: true, slot: slot, n: uint16(len(rec))}
	copy(c.arena[int(slot)*repeatSlot:], rec)
}

// deliverRepeats delivers the counts added to entry i since its sample
// was delivered, as one sample.
func (p *reader) deliverRepeats(i int) {
	c := p.repeats
	n := c.entries[i].pending
	if n == 0 {
		return
	}
	c.entries[i].pending = 0
	e := &c.entries[i]
	rec := c.arena[int(e.slot)*repeatSlot:][:e.n]
	p.stack, p.lbr = DecodeHybridSample(rec, p.stack[:0], p.lbr[:0])
	countFallThrough(&p.fallThrough, p.lbr, n)
	p.hybridSample(p.stack, p.lbr, rec, n, false)
}

// flushRepeats delivers every entry's added counts (at the end of the
// trace), in entry order, and drops the cache.
func (p *reader) flushRepeats() {
	if p.repeats == nil {
		return
	}
	for i := range p.repeats.entries {
		p.deliverRepeats(i)
	}
	p.dropRepeats()
}

// dropRepeats gives the cache's memory back (also after an error).
func (p *reader) dropRepeats() {
	if c := p.repeats; c != nil {
		hugemem.Free(c.mem)
		p.repeats = nil
	}
}

// DecodeHybridSample appends the stack and the LBR entries of a sample
// encoded by AppendHybridSample to stack and lbr.
func DecodeHybridSample(rec []byte, stack []uint64, lbr []Branch) ([]uint64, []Branch) {
	u64 := func() uint64 {
		v := binary.LittleEndian.Uint64(rec)
		rec = rec[8:]
		return v
	}
	n := int(u64())
	for range n {
		stack = append(stack, u64())
	}
	for len(rec) > 0 {
		s := u64()
		lbr = append(lbr, Branch{Source: s, Target: u64()})
	}
	return stack, lbr
}
