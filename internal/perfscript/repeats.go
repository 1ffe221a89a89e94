package perfscript

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/rules-pgo/rules_pgo/internal/hugemem"
)

// Repeated hybrid samples (Options.DeferRepeats; the parallel text path
// only). A hybrid trace repeats many of its samples: a hot loop gives the
// same call stack and LBR entries again and again (73,606 distinct LBR
// lines among the 200,000 samples of bench/profgen's probe trace; 111,000
// samples are repeats of one of the 65,536 entries here). llvm-profgen
// parses every sample and then aggregates the trace by (stack, LBR)
// before it unwinds; here a repeat of a recently seen sample is
// recognized from its input alone, before its LBR line is parsed, by a
// hash of the sample as read (the stack's canonical addresses, the base
// address and whether an mmap event set it: 128 bits of maphash; the LBR
// line's bytes: 64 bits of maphash and its length). A recognized
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
// The cache is 4-way set-associative with least-recently-used
// replacement, repeatSets sets: the keys of a set fill one cache line,
// its entries the next (repeatSet), and each entry keeps its sample in a
// slot of repeatSlot bytes, compact (addresses as 32-bit offsets from the
// binary's first code byte; a sample that does not fit is not cached),
// taken in order as entries are made; sets and slots are one huge-page
// mapping (hugemem.Make) of up to 26 MiB. On bench/profgen's probe
// trace 4 ways of 16,384 sets (65,536 entries) find 111,000 repeats, 4
// ways of 8,192 sets 104,000, and 2 ways of 8,192 sets of full encodings
// (16,384 entries of 1 KiB) found 84,000. Without repeats the cache costs
// the hash of each sample and the copy of its addresses; a cache that
// finds almost nothing pauses (repeatWindow, repeatPause).
type repeatCache struct {
	seeds  [3]maphash.Seed
	mem    []repeatMem // one
	sets   *[repeatSets]repeatSet
	arena  []byte           // the entries' samples, repeatSlot bytes each
	slots  int32            // slots of arena in use (taken in order: a short trace touches little)
	codeLo uint64           // the origin of the slots' addresses
	buf    []byte           // scratch: the stack's bytes to hash
	rec    []byte           // scratch: a delivered sample, encoded
	slot   [repeatSlot]byte // scratch: a sample to insert, encoded

	// Pausing: lookups and hits in the current window, samples left to
	// skip.
	looks, hits, paused int
}

// repeatSet is a set's keys (one cache line) and then its entries (the
// next line): a miss on the keys brings the entries in with them (the
// processor fetches lines in aligned pairs), so that a hit or an
// insertion waits for memory once, not twice (on the AMD EPYC VM, ~2 %
// less CPU and wall time for a probe CS run than with keys and entries
// in arrays of their own, two paired runs of 31).
type repeatSet struct {
	keys    [repeatWays][2]uint64
	entries [repeatWays]repeatEntry // the most recently used first
}

type repeatEntry struct {
	pending uint64 // counts added since the entry's sample was delivered
	slot    int32  // where its sample is in arena
	n       uint16 // the length of its slot's contents
	used    bool
}

// repeatSlot is the room for one sample: its stack's length (a byte),
// the stack and the LBR entries' sources and targets (4 bytes each): a
// stack of up to 31 frames with 32 LBR entries.
const repeatSlot = 384

const (
	repeatSets = 16384
	repeatWays = 4
	// A window of repeatWindow lookups with fewer than repeatWindow/64
	// hits pauses the cache for repeatPause windows' worth of samples.
	repeatWindow = 4096
	repeatPause  = 16
	// repeatExternal is ExternalAddr in a slot.
	repeatExternal = 1<<32 - 1
)

// repeatMem is the cache's memory, in one huge-page mapping (hugemem).
type repeatMem struct {
	sets  [repeatSets]repeatSet
	arena [repeatSets * repeatWays * repeatSlot]byte
}

func newRepeatCache(codeLo uint64) *repeatCache {
	m := hugemem.Make[repeatMem](1)
	c := &repeatCache{mem: m, sets: &m[0].sets, arena: m[0].arena[:], codeLo: codeLo}
	// Written before the first lookup reads them: a read of fresh memory
	// maps the zero page, and the write after it faults again, page by
	// page (see hashtab's package doc, "Touch").
	clear(c.sets[:])
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
	// raw, the long part (~1 KiB), is hashed once: 64 bits of maphash
	// and its length, 128 bits for the rest. Two samples of one stack
	// and one line length pass for one if their lines' 64-bit hashes
	// (randomly seeded) are equal: a chance of 2^-62 per lookup of a
	// set's four keys, ~10^-13 for a trace of a million samples. A second
	// pass over raw (a CRC-32C) cost as much as the first: 4 % of a probe
	// CS run's CPU, on the reading goroutine.
	return [2]uint64{
		maphash.Bytes(c.seeds[0], b) + maphash.Bytes(c.seeds[1], raw),
		(maphash.Bytes(c.seeds[2], b) + uint64(len(raw))) | 1, // never zero (find)
	}
}

func (c *repeatCache) set(k [2]uint64) int { return int(k[0] & (repeatSets - 1)) }

// find returns the way of k in set s, -1 if k is not there. An unused
// way's key is zero, which no key is (key sets the lowest bit of its
// second half): a lookup compares only its set's keys, one cache line
// (with the keys and entries in separate arrays, a lookup that read the
// entries too missed the cache twice).
func (c *repeatCache) find(s int, k [2]uint64) int {
	keys := &c.sets[s].keys
	for w := range keys {
		if keys[w] == k {
			return w
		}
	}
	return -1
}

// touch makes way w of set s the most recently used, the ways before it
// moving down one.
func (c *repeatCache) touch(s, w int) {
	if w == 0 {
		return
	}
	keys, entries := &c.sets[s].keys, &c.sets[s].entries
	k, e := keys[w], entries[w]
	copy(keys[1:w+1], keys[:w])
	copy(entries[1:w+1], entries[:w])
	keys[0], entries[0] = k, e
}

// hit adds count to the entry of k and reports whether there is one.
func (c *repeatCache) hit(k [2]uint64, count uint64) bool {
	c.looks++
	s := c.set(k)
	w := c.find(s, k)
	if w >= 0 {
		c.touch(s, w)
		c.sets[s].entries[0].pending += count
		c.hits++
	}
	if c.looks == repeatWindow {
		if c.hits < repeatWindow/64 {
			c.paused = repeatPause * repeatWindow
		}
		c.looks, c.hits = 0, 0
	}
	return w >= 0
}

// insertRepeat makes the entry of k, whose sample (stack, lbr) has just
// been delivered, unless there is one or the sample does not fit a slot;
// the least recently used entry of the set makes room (its added counts
// delivered first).
func (p *reader) insertRepeat(k [2]uint64, stack []uint64, lbr []Branch) {
	c := p.repeats
	s := c.set(k)
	n := 1 + 4*len(stack) + 8*len(lbr)
	if n > repeatSlot || c.find(s, k) >= 0 {
		return
	}
	// Encoded into c.slot in one pass with the check that it fits.
	enc := c.slot[:n]
	enc[0] = byte(len(stack))
	fits := true
	o := 1
	for _, a := range stack {
		fits = c.put(enc[o:o+4], a) && fits
		o += 4
	}
	for _, b := range lbr {
		fits = c.put(enc[o:o+4], b.Source) && fits
		fits = c.put(enc[o+4:o+8], b.Target) && fits
		o += 8
	}
	if !fits {
		return
	}
	const last = repeatWays - 1
	p.deliverRepeats(s, last)
	e := &c.sets[s].entries[last]
	slot := e.slot
	if !e.used {
		slot = c.slots
		c.slots++
	}
	copy(c.arena[int(slot)*repeatSlot:][:n], enc)
	c.sets[s].keys[last] = k
	*e = repeatEntry{used: true, slot: slot, n: uint16(n)}
	c.touch(s, last)
}

// put writes address a to b (4 bytes) as a slot holds it and reports
// whether it fits one (else b is written with something).
func (c *repeatCache) put(b []byte, a uint64) bool {
	v := a - c.codeLo
	if a == ExternalAddr {
		v = repeatExternal
	}
	binary.LittleEndian.PutUint32(b, uint32(v))
	return v < repeatExternal || a == ExternalAddr
}

func (c *repeatCache) addr(b []byte) uint64 {
	v := binary.LittleEndian.Uint32(b)
	if v == repeatExternal {
		return ExternalAddr
	}
	return c.codeLo + uint64(v)
}

// deliverRepeats delivers the counts added to way w of set s since its
// sample was delivered, as one sample.
func (p *reader) deliverRepeats(s, w int) {
	c := p.repeats
	e := &c.sets[s].entries[w]
	n := e.pending
	if n == 0 {
		return
	}
	e.pending = 0
	slot := c.arena[int(e.slot)*repeatSlot:][:e.n]
	p.stack, p.lbr = p.stack[:0], p.lbr[:0]
	frames := int(slot[0])
	slot = slot[1:]
	for range frames {
		p.stack = append(p.stack, c.addr(slot))
		slot = slot[4:]
	}
	for ; len(slot) >= 8; slot = slot[8:] {
		p.lbr = append(p.lbr, Branch{Source: c.addr(slot), Target: c.addr(slot[4:])})
	}
	c.rec = AppendHybridSample(c.rec[:0], p.stack, p.lbr)
	countFallThrough(&p.fallThrough, p.lbr, n)
	p.hybridSample(p.stack, p.lbr, c.rec, n, false)
}

// flushRepeats delivers every entry's added counts (at the end of the
// trace), in entry order, and drops the cache.
func (p *reader) flushRepeats() {
	if p.repeats == nil {
		return
	}
	for s := range repeatSets {
		for w := range repeatWays {
			p.deliverRepeats(s, w)
		}
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
