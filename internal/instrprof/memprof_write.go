package instrprof

import (
	"encoding/binary"
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

// recordItems serializes the record table's items; linear maps
// CallStackIds to radix positions (V3/V4).
func recordItems(ix *indexed, schema []memprof.Meta, version int, linear map[uint64]uint32) []odItem {
	items := make([]odItem, len(ix.records))
	for i := range ix.records {
		r := &ix.records[i]
		var d []byte
		d = le.AppendUint64(d, uint64(len(r.alloc)))
		for _, a := range r.alloc {
			switch version {
			case 0, 1:
				d = appendFrameIDs(d, a.frames)
			case 2:
				d = le.AppendUint64(d, a.csid)
			default:
				d = le.AppendUint32(d, linear[a.csid])
			}
			d = appendMIB(d, schema, a.info)
		}
		d = le.AppendUint64(d, uint64(len(r.calls)))
		for _, c := range r.calls {
			switch version {
			case 0, 1:
				d = appendFrameIDs(d, c.frames)
			case 2:
				d = le.AppendUint64(d, c.csid)
			default:
				d = le.AppendUint32(d, linear[c.csid])
			}
			if version >= 4 {
				d = le.AppendUint64(d, uint64(len(c.callees)))
				for _, g := range c.callees {
					d = le.AppendUint64(d, g)
				}
			}
		}
		body := make([]byte, 0, 24+len(d))
		body = le.AppendUint64(body, 8)
		body = le.AppendUint64(body, uint64(len(d)))
		body = le.AppendUint64(body, r.guid)
		body = append(body, d...)
		items[i] = odItem{hash: r.guid, body: body}
	}
	return items
}

func appendFrameIDs(d []byte, ids []uint64) []byte {
	d = le.AppendUint64(d, uint64(len(ids)))
	for _, id := range ids {
		d = le.AppendUint64(d, id)
	}
	return d
}

func frameItems(ix *indexed) []odItem {
	order := ix.frameTableOrder()
	items := make([]odItem, len(order))
	for i, id := range order {
		body := make([]byte, 24+frameSize)
		le.PutUint64(body[0:], 8)
		le.PutUint64(body[8:], frameSize)
		le.PutUint64(body[16:], id)
		putFrame(body[24:], ix.frames[id])
		items[i] = odItem{hash: id, body: body}
	}
	return items
}

func stackItems(ix *indexed) []odItem {
	order := ix.stackTableOrder()
	items := make([]odItem, len(order))
	for i, cs := range order {
		ids := ix.stacks[cs]
		body := make([]byte, 0, 16+8*len(ids))
		body = le.AppendUint64(body, uint64(8*len(ids)))
		body = le.AppendUint64(body, cs)
		for _, id := range ids {
			body = le.AppendUint64(body, id)
		}
		items[i] = odItem{hash: cs, body: body}
	}
	return items
}

func writeMemProfV0V1(buf []byte, ix *indexed, opts WriteOptions) []byte {
	if opts.MemProfVersion == 1 {
		buf = le.AppendUint64(buf, 1)
	}
	hdr := len(buf)
	buf = append(buf, make([]byte, 24)...)
	schema := opts.schema()
	buf = appendSchema(buf, schema)
	var recTable, frameTable uint64
	buf, recTable = emitTable(buf, recordItems(ix, schema, opts.MemProfVersion, nil))
	framePayload := uint64(len(buf))
	buf, frameTable = emitTable(buf, frameItems(ix))
	le.PutUint64(buf[hdr:], recTable)
	le.PutUint64(buf[hdr+8:], framePayload)
	le.PutUint64(buf[hdr+16:], frameTable)
	return buf
}

func writeMemProfV2(buf []byte, ix *indexed, opts WriteOptions) []byte {
	buf = le.AppendUint64(buf, 2)
	hdr := len(buf)
	buf = append(buf, make([]byte, 40)...)
	schema := opts.schema()
	buf = appendSchema(buf, schema)
	var recTable, frameTable, stackTable uint64
	buf, recTable = emitTable(buf, recordItems(ix, schema, 2, nil))
	framePayload := uint64(len(buf))
	buf, frameTable = emitTable(buf, frameItems(ix))
	stackPayload := uint64(len(buf))
	buf, stackTable = emitTable(buf, stackItems(ix))
	for i, v := range []uint64{recTable, framePayload, frameTable, stackPayload, stackTable} {
		le.PutUint64(buf[hdr+8*i:], v)
	}
	return buf
}

type frameStat struct {
	count  uint64
	posSum uint64
}

func writeMemProfV3V4(buf []byte, ix *indexed, opts WriteOptions) []byte {
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
	schema := opts.schema()
	buf = appendSchema(buf, schema)

	// Frames, most used first (then nearer the leaf, then by FrameId).
	hist := make(map[uint64]frameStat, len(ix.frames))
	for _, cs := range ix.stackOrder {
		for pos, id := range ix.stacks[cs] {
			s := hist[id]
			s.count++
			s.posSum += uint64(pos)
			hist[id] = s
		}
	}
	order := slices.Clone(ix.frameOrder)
	slices.SortFunc(order, func(a, b uint64) int {
		sa, sb := hist[a], hist[b]
		if sa.count != sb.count {
			if sa.count > sb.count {
				return -1
			}
			return 1
		}
		if sa.posSum != sb.posSum {
			if sa.posSum < sb.posSum {
				return -1
			}
			return 1
		}
		return cmpU64(a, b)
	})
	frameIndex := make(map[uint64]uint32, len(order))
	var fb [frameSize]byte
	for i, id := range order {
		frameIndex[id] = uint32(i)
		putFrame(fb[:], ix.frames[id])
		buf = append(buf, fb[:]...)
	}

	stackPayload := uint64(len(buf))
	radix, linear := buildRadix(ix, hist, frameIndex)
	for _, v := range radix {
		buf = le.AppendUint32(buf, v)
	}
	recPayload := uint64(len(buf))
	var recTable uint64
	buf, recTable = emitTable(buf, recordItems(ix, schema, opts.MemProfVersion, linear))
	le.PutUint64(buf[hdr:], stackPayload)
	le.PutUint64(buf[hdr+8:], recPayload)
	le.PutUint64(buf[hdr+16:], recTable)
	return buf
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildRadix emulates CallStackRadixTreeBuilder: call stacks sorted
// root-first by (frame popularity, FrameId), encoded from the last one with
// shared root-side prefixes replaced by negative jumps, then reversed. It
// returns the u32 array and each CallStackId's position in it.
func buildRadix(ix *indexed, hist map[uint64]frameStat, frameIndex map[uint64]uint32) ([]uint32, map[uint64]uint32) {
	stacks := slices.Clone(ix.stackOrder)
	less := func(f1, f2 uint64) int {
		h1, h2 := hist[f1].count, hist[f2].count
		if h1 != h2 {
			return cmpU64(h1, h2)
		}
		return cmpU64(f1, f2)
	}
	slices.SortFunc(stacks, func(a, b uint64) int {
		sa, sb := ix.stacks[a], ix.stacks[b]
		for i, j := len(sa)-1, len(sb)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
			if c := less(sa[i], sb[j]); c != 0 {
				return c
			}
		}
		return len(sa) - len(sb)
	})
	var arr []uint32
	pos := make(map[uint64]uint32, len(stacks))
	var prev []uint64
	var idx []uint32
	for k := len(stacks) - 1; k >= 0; k-- {
		cur := ix.stacks[stacks[k]]
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
	for k, v := range pos {
		pos[k] = uint32(len(arr)) - 1 - v
	}
	return arr, pos
}
