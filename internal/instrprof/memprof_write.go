package instrprof

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// MemProf section layouts (all offsets absolute; see also doc.go):
//
//	V0: u64 RecordTableOffset, u64 FramePayloadOffset, u64 FrameTableOffset,
//	    schema, record table, frame table
//	V1: u64 1, then as V0
//	V2: u64 2, u64 RecordTableOffset, u64 FramePayloadOffset,
//	    u64 FrameTableOffset, u64 CallStackPayloadOffset,
//	    u64 CallStackTableOffset, schema, record, frame, call-stack tables
//	V3: u64 3, u64 CallStackPayloadOffset, u64 RecordPayloadOffset,
//	    u64 RecordTableOffset, schema, frame array (17 B each), radix array
//	    (u32 each), record table
//	V4: u64 4, the three V3 offsets, u64 DataAccessProfOffset, u32 summary
//	    field count, that many u64 summary fields, then as V3
//
// schema = u64 count, count × u64 tag. Record tables: key GUID, hash = key,
// u64 keylen (8) and u64 datalen. Frame tables: key FrameId, 17-byte frame.
// Call-stack tables: only u64 datalen, key CallStackId, u64 frame ids.
//
// Record bodies: u64 #alloc sites, each {stack, MIB}; u64 #call sites, each
// a stack (V4: plus u64 #callee GUIDs and the GUIDs). A stack is
// "u64 n, n × u64 FrameId" in V0/V1, a u64 CallStackId in V2 and a u32
// linear call-stack id (radix array position) in V3/V4.

var le = binary.LittleEndian

func appendSchema(buf []byte, schema []memprof.Meta) []byte {
	buf = le.AppendUint64(buf, uint64(len(schema)))
	for _, m := range schema {
		buf = le.AppendUint64(buf, uint64(m))
	}
	return buf
}

// recordWriter appends record table bodies. stackRef is the on-disk
// reference to a stack: its frame ids (V0/V1), its CallStackId (V2) or its
// radix position (V3/V4).
type recordWriter struct {
	ix       *indexed
	schema   []memprof.Meta
	version  int
	stackIDs []uint64 // V2
	linear   []uint32 // V3/V4
}

// dataSize returns the size of record r's data.
func (w *recordWriter) dataSize(r *idxRecord) int {
	n := 16 + len(r.alloc)*schemaSize(w.schema)
	ref := func(s int32) int {
		switch w.version {
		case 0, 1:
			return 8 + 8*len(w.ix.stack(s))
		case 2:
			return 8
		}
		return 4
	}
	for _, a := range r.alloc {
		n += ref(a.stack)
	}
	for _, c := range r.calls {
		n += ref(c.stack)
		if w.version >= 4 {
			n += 8 + 8*len(c.callees)
		}
	}
	return n
}

func (w *recordWriter) appendStack(d []byte, s int32) []byte {
	switch w.version {
	case 0, 1:
		fs := w.ix.stack(s)
		d = le.AppendUint64(d, uint64(len(fs)))
		for _, f := range fs {
			d = le.AppendUint64(d, w.ix.frameIDs[f])
		}
		return d
	case 2:
		return le.AppendUint64(d, w.stackIDs[s])
	}
	return le.AppendUint32(d, w.linear[s])
}

// size returns the bytes emitTable appends for the record table.
func (w *recordWriter) size() int {
	n := 0
	for i := range w.ix.records {
		n += 32 + w.dataSize(&w.ix.records[i])
	}
	return tableSize(len(w.ix.records), n)
}

func (w *recordWriter) emit(buf []byte) ([]byte, uint64) {
	hashes := make([]uint64, len(w.ix.records))
	for i := range w.ix.records {
		hashes[i] = w.ix.records[i].guid
	}
	return emitTable(buf, hashes, w.appendRecord)
}

func (w *recordWriter) appendRecord(d []byte, i int) []byte {
	r := &w.ix.records[i]
	d = le.AppendUint64(d, 8)
	lenAt := len(d)
	d = le.AppendUint64(d, 0)
	d = le.AppendUint64(d, r.guid)
	start := len(d)
	d = le.AppendUint64(d, uint64(len(r.alloc)))
	for _, a := range r.alloc {
		d = w.appendStack(d, a.stack)
		d = appendMIB(d, w.schema, a.info)
	}
	d = le.AppendUint64(d, uint64(len(r.calls)))
	for _, c := range r.calls {
		d = w.appendStack(d, c.stack)
		if w.version >= 4 {
			d = le.AppendUint64(d, uint64(len(c.callees)))
			for _, g := range c.callees {
				d = le.AppendUint64(d, g)
			}
		}
	}
	le.PutUint64(d[lenAt:], uint64(len(d)-start))
	return d
}

// frameTableSize is the bytes appended by emitFrameTable.
func frameTableSize(ix *indexed) int {
	return tableSize(len(ix.frames), len(ix.frames)*(8+24+frameSize))
}

func emitFrameTable(buf []byte, ix *indexed) ([]byte, uint64) {
	order := ix.frameTableOrder()
	hashes := make([]uint64, len(order))
	for i, f := range order {
		hashes[i] = ix.frameIDs[f]
	}
	return emitTable(buf, hashes, func(d []byte, i int) []byte {
		d = le.AppendUint64(d, 8)
		d = le.AppendUint64(d, frameSize)
		d = le.AppendUint64(d, hashes[i])
		return appendFrame(d, ix.frames[order[i]])
	})
}

func stackTableSize(ix *indexed) int {
	return tableSize(ix.numStacks(), 24*ix.numStacks()+8*len(ix.stackFrames))
}

func emitStackTable(buf []byte, ix *indexed, ids []uint64) ([]byte, uint64) {
	order := ix.stackTableOrder(ids)
	hashes := make([]uint64, len(order))
	for i, s := range order {
		hashes[i] = ids[s]
	}
	return emitTable(buf, hashes, func(d []byte, i int) []byte {
		fs := ix.stack(order[i])
		d = le.AppendUint64(d, uint64(8*len(fs)))
		d = le.AppendUint64(d, hashes[i])
		for _, f := range fs {
			d = le.AppendUint64(d, ix.frameIDs[f])
		}
		return d
	})
}

// prefixSize bounds the bytes Marshal writes before the MemProf section
// and after it.
const prefixSize = 72 + 16 + 6*8 + len(summaryCutoffs)*24 + 32 + 16

func writeMemProfV0V1(ix *indexed, opts WriteOptions) []byte {
	schema := opts.schema()
	w := &recordWriter{ix: ix, schema: schema, version: opts.MemProfVersion}
	buf := newBuffer(opts, 32+8+8*len(schema)+w.size()+8+frameTableSize(ix))
	if opts.MemProfVersion == 1 {
		buf = le.AppendUint64(buf, 1)
	}
	hdr := len(buf)
	buf = append(buf, make([]byte, 24)...)
	buf = appendSchema(buf, schema)
	var recTable, frameTable uint64
	buf, recTable = w.emit(buf)
	framePayload := uint64(len(buf))
	buf, frameTable = emitFrameTable(buf, ix)
	le.PutUint64(buf[hdr:], recTable)
	le.PutUint64(buf[hdr+8:], framePayload)
	le.PutUint64(buf[hdr+16:], frameTable)
	return buf
}

func writeMemProfV2(ix *indexed, opts WriteOptions) []byte {
	schema := opts.schema()
	ids := ix.stackIDs()
	w := &recordWriter{ix: ix, schema: schema, version: 2, stackIDs: ids}
	buf := newBuffer(opts, 48+8+8*len(schema)+w.size()+8+frameTableSize(ix)+8+stackTableSize(ix))
	buf = le.AppendUint64(buf, 2)
	hdr := len(buf)
	buf = append(buf, make([]byte, 40)...)
	buf = appendSchema(buf, schema)
	var recTable, frameTable, stackTable uint64
	buf, recTable = w.emit(buf)
	framePayload := uint64(len(buf))
	buf, frameTable = emitFrameTable(buf, ix)
	stackPayload := uint64(len(buf))
	buf, stackTable = emitStackTable(buf, ix, ids)
	for i, v := range []uint64{recTable, framePayload, frameTable, stackPayload, stackTable} {
		le.PutUint64(buf[hdr+8*i:], v)
	}
	return buf
}

func writeMemProfV3V4(ix *indexed, opts WriteOptions) []byte {
	// Frames, most used first (then nearer the leaf, then by FrameId).
	count := make([]uint32, len(ix.frames))
	posSum := make([]uint64, len(ix.frames))
	for s := range ix.numStacks() {
		for pos, f := range ix.stack(int32(s)) {
			count[f]++
			posSum[f] += uint64(pos)
		}
	}
	order := make([]int32, len(ix.frames))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(posSum[a], posSum[b]); c != 0 {
			return c
		}
		return cmp.Compare(ix.frameIDs[a], ix.frameIDs[b])
	})
	frameIndex := make([]uint32, len(ix.frames))
	for i, f := range order {
		frameIndex[f] = uint32(i)
	}
	radix, linear := buildRadix(ix, count, frameIndex)

	schema := opts.schema()
	w := &recordWriter{ix: ix, schema: schema, version: opts.MemProfVersion, linear: linear}
	buf := newBuffer(opts, 32+8+4+48+8+8*len(schema)+frameSize*len(order)+4*len(radix)+w.size())
	buf = le.AppendUint64(buf, uint64(opts.MemProfVersion))
	hdr := len(buf)
	buf = append(buf, make([]byte, 24)...)
	if opts.MemProfVersion >= 4 {
		buf = le.AppendUint64(buf, 0) // DataAccessProfOffset: no data-access profile
		s := ix.summary()
		buf = le.AppendUint32(buf, 6)
		for _, v := range []uint64{s.NumContexts, s.NumColdContexts, s.NumHotContexts,
			s.MaxColdTotalSize, s.MaxWarmTotalSize, s.MaxHotTotalSize} {
			buf = le.AppendUint64(buf, v)
		}
	}
	buf = appendSchema(buf, schema)
	for _, f := range order {
		buf = appendFrame(buf, ix.frames[f])
	}
	stackPayload := uint64(len(buf))
	for _, v := range radix {
		buf = le.AppendUint32(buf, v)
	}
	recPayload := uint64(len(buf))
	var recTable uint64
	buf, recTable = w.emit(buf)
	le.PutUint64(buf[hdr:], stackPayload)
	le.PutUint64(buf[hdr+8:], recPayload)
	le.PutUint64(buf[hdr+16:], recTable)
	return buf
}

// buildRadix emulates CallStackRadixTreeBuilder: call stacks sorted
// root-first by (frame popularity, FrameId), encoded from the last one with
// shared root-side prefixes replaced by negative jumps, then reversed. It
// returns the u32 array and each stack's position in it.
func buildRadix(ix *indexed, count []uint32, frameIndex []uint32) ([]uint32, []uint32) {
	// rank orders frames by (popularity, FrameId); a stack's sort key is
	// its frames' ranks, root first, compared lexicographically.
	byRank := make([]int32, len(ix.frames))
	for i := range byRank {
		byRank[i] = int32(i)
	}
	slices.SortFunc(byRank, func(a, b int32) int {
		if c := cmp.Compare(count[a], count[b]); c != 0 {
			return c
		}
		return cmp.Compare(ix.frameIDs[a], ix.frameIDs[b])
	})
	rank := make([]uint32, len(ix.frames))
	for r, f := range byRank {
		rank[f] = uint32(r)
	}
	// keys is reused for the radix array once the stacks are sorted.
	buf := make([]uint32, len(ix.stackFrames)+ix.numStacks())
	keys := buf[:len(ix.stackFrames)]
	for s := range ix.numStacks() {
		lo, hi := ix.stackOff[s], ix.stackOff[s+1]
		for i := lo; i < hi; i++ {
			keys[i] = rank[ix.stackFrames[lo+hi-1-i]]
		}
	}
	stacks := make([]int32, ix.numStacks())
	for i := range stacks {
		stacks[i] = int32(i)
	}
	ks := &keySorter{keys: keys, off: ix.stackOff, width: max(1, bits.Len(uint(len(ix.frames))))}
	ks.per = 64 / ks.width
	ks.sort(stacks, make([]packedKey, len(stacks)), 0)

	arr := buf[:0]
	pos := make([]uint32, len(stacks))
	var prev []int32
	var idx []uint32
	for k := len(stacks) - 1; k >= 0; k-- {
		cur := ix.stack(stacks[k])
		common := 0
		for common < len(prev) && common < len(cur) && prev[len(prev)-1-common] == cur[len(cur)-1-common] {
			common++
		}
		idx = idx[:common]
		if common > 0 {
			arr = append(arr, idx[common-1]-uint32(len(arr)))
		}
		for i := len(cur) - 1 - common; i >= 0; i-- {
			idx = append(idx, uint32(len(arr)))
			arr = append(arr, frameIndex[cur[i]])
		}
		arr = append(arr, uint32(len(cur)))
		pos[stacks[k]] = uint32(len(arr) - 1)
		prev = cur
	}
	slices.Reverse(arr)
	for s, v := range pos {
		pos[s] = uint32(len(arr)) - 1 - v
	}
	return arr, pos
}

// keySorter sorts stacks by their key sequences (keys[off[s]:off[s+1]])
// lexicographically, a shorter sequence before its extensions. Comparing
// the sequences directly touches scattered memory at every comparison;
// instead each round packs the next len(packedKey.k)*per keys of every
// stack (key+1, 0 past the end, width bits each) into words stored beside
// the stack, sorts those and recurses only into runs that tie. With LLVM's
// stack depths one round usually decides everything.
type keySorter struct {
	keys       []uint32
	off        []int32
	width, per int
}

type packedKey struct {
	k [3]uint64
	s int32
}

func (ks *keySorter) sort(stacks []int32, scratch []packedKey, depth int) {
	pk := scratch[:len(stacks)]
	for i, s := range stacks {
		seq := ks.keys[ks.off[s]:ks.off[s+1]]
		pk[i].s = s
		j := depth
		for w := range pk[i].k {
			var k uint64
			for range ks.per {
				k <<= ks.width
				if j < len(seq) {
					k |= uint64(seq[j]) + 1
				}
				j++
			}
			pk[i].k[w] = k
		}
	}
	slices.SortFunc(pk, func(a, b packedKey) int {
		if c := cmp.Compare(a.k[0], b.k[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k[1], b.k[1]); c != 0 {
			return c
		}
		return cmp.Compare(a.k[2], b.k[2])
	})
	for i, p := range pk {
		stacks[i] = p.s
	}
	endMask := uint64(1)<<ks.width - 1 // the last packed key: 0 if ended
	for i := 0; i < len(pk); {
		j := i + 1
		for j < len(pk) && pk[j].k == pk[i].k {
			j++
		}
		if j-i > 1 && pk[i].k[2]&endMask != 0 {
			ks.sort(stacks[i:j], scratch[i:j], depth+len(pk[i].k)*ks.per)
		}
		i = j
	}
}
