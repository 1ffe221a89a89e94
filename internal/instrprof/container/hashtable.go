package container

import "github.com/rules-pgo/rules_pgo/internal/ondiskhash"

// The OnDiskChainedHashTables of an indexed profile, written: the layout
// is LLVM's generator's (ondiskhash), the bytes are written here.

// table is an OnDiskChainedHashTable ready to write: item i has hash
// hashes[i] and a body (the trait's lengths, key and data) that the
// writer's put fills. On disk each non-empty bucket holds its u16 item
// count and then, per item, the u64 hash and the body; the bucket array
// (u64 NumBuckets, u64 NumEntries, u64 offset per bucket, 0 if empty)
// follows at the next multiple of 8.
type Table struct {
	layout ondiskhash.Layout
	hashes []uint64
	sizes  []int    // per on-disk position: bucket count (first item only), hash, body
	heads  []uint16 // per on-disk position: the bucket's item count if first in it, else 0
}

// NewTable lays out items with the given hashes and body sizes.
func NewTable(hashes []uint64, bodySize func(i int) int) *Table {
	t := &Table{layout: ondiskhash.New(hashes), hashes: hashes}
	t.sizes = make([]int, len(hashes))
	t.heads = make([]uint16, len(hashes))
	for b := range t.layout.NumBuckets() {
		lo := int(t.layout.Start[b])
		for k, i := range t.layout.Bucket(b) {
			t.sizes[lo+k] = 8 + bodySize(int(i))
		}
		if n := t.layout.Start[b+1] - t.layout.Start[b]; n > 0 {
			t.sizes[lo] += 2
			t.heads[lo] = uint16(n)
		}
	}
	return t
}

// table writes t, and the offset of its bucket array at at (see
// output.at); put(b, i) fills item i's body b, possibly on several
// goroutines at once.
func (o *Output) Table(t *Table, put func(b []byte, i int), at *uint64) {
	start := o.off
	o.Items(t.sizes, func(b []byte, k int) {
		if n := t.heads[k]; n != 0 {
			le.PutUint16(b, n)
			b = b[2:]
		}
		i := t.layout.Order[k]
		le.PutUint64(b, t.hashes[i])
		put(b[8:], int(i))
	})
	o.Pad8()
	o.At(at)
	nb := t.layout.NumBuckets()
	o.U64(uint64(nb))
	o.U64(uint64(len(t.hashes)))
	if o.count {
		o.off += 8 * nb
		return
	}
	offsets := make([]uint64, nb)
	pos := start
	for b := range offsets {
		lo, hi := t.layout.Start[b], t.layout.Start[b+1]
		if lo == hi {
			continue
		}
		offsets[b] = uint64(pos)
		for _, n := range t.sizes[lo:hi] {
			pos += n
		}
	}
	o.U64s(offsets)
}
