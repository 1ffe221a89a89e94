package memprofidx

import (
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// MemProf section layouts (all offsets absolute; see also instrprof/doc.go):
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

// sectionOffsets are the offsets the MemProf section records about
// itself, found by the sizing pass (container.Output.At).
type sectionOffsets struct {
	recPayload, recTable     uint64
	framePayload, frameTable uint64
	stackPayload, stackTable uint64
}

// Section is the MemProf section of an indexed profile, planned: table
// layouts, record sizes, V2 call-stack ids, the V3/V4 radix array,
// everything computed before the first byte. Emit then writes it, once to
// size it and once for real.
type Section struct {
	ix      *Indexed
	version int // MemProf version
	schema  []memprof.Meta
	mib     MIBWriter
	records *container.Table

	frameOrder []int32          // V0–V2 frame table order; V3/V4 frame array order
	frames     *container.Table // V0–V2

	stackIDs   []uint64         // V2
	stackOrder []int32          // V2 call-stack table order
	stacks     *container.Table // V2
	radix      []uint32         // V3/V4
	linear     []uint32         // V3/V4: stack → radix position
	summary    memprof.Summary
	mibBytes   []byte  // V3/V4: every alloc site's MIB, serialized
	siteBase   []int32 // V3/V4: record → index of its first alloc site
	off        sectionOffsets
}

// NewSection plans ix as a MemProf section of the given version whose
// MIBs are written in schema, on ix.Workers goroutines.
func NewSection(ix *Indexed, version int, schema []memprof.Meta) *Section {
	p := &Section{ix: ix, version: version, schema: schema}
	p.mib = NewMIBWriter(p.schema)
	switch p.version {
	case 0, 1, 2:
		if p.version == 2 {
			p.stackIDs = ParallelStackIDs(ix)
			p.stackOrder = ix.StackTableOrder(p.stackIDs)
			hashes := make([]uint64, len(p.stackOrder))
			for i, s := range p.stackOrder {
				hashes[i] = p.stackIDs[s]
			}
			p.stacks = container.NewTable(hashes, func(i int) int { return 16 + 8*len(ix.Stack(p.stackOrder[i])) })
		}
		p.frameOrder = ix.FrameTableOrder()
		hashes := make([]uint64, len(p.frameOrder))
		for i, f := range p.frameOrder {
			hashes[i] = ix.FrameIDs[f]
		}
		p.frames = container.NewTable(hashes, func(int) int { return 24 + FrameSize })
	default:
		// The radix tree is mostly sequential work; meanwhile another
		// goroutine serializes the MIBs (scattered reads, small output),
		// the summary and the record table layout, none of which need it.
		side := func() {
			p.serializeMIBs()
			if p.version >= 4 {
				p.summary = ix.Summary()
			}
			p.layOutRecords()
		}
		var wg sync.WaitGroup
		if ix.Workers > 1 {
			wg.Go(side)
		} else {
			side()
		}
		var count []uint32
		var frameIndex []uint32
		p.frameOrder, count, frameIndex = RadixFrameOrder(ix)
		p.radix, p.linear = BuildRadix(ix, count, frameIndex)
		wg.Wait()
		return p
	}
	p.layOutRecords()
	return p
}

func (p *Section) layOutRecords() {
	hashes := make([]uint64, len(p.ix.Records))
	for i := range p.ix.Records {
		hashes[i] = p.ix.Records[i].GUID
	}
	p.records = container.NewTable(hashes, func(i int) int { return 24 + p.dataSize(&p.ix.Records[i]) })
}

// serializeMIBs fills mibBytes: record i's alloc site j's MIB is
// mibBytes[(siteBase[i]+j)*mib.size:][:mib.size].
func (p *Section) serializeMIBs() {
	recs := p.ix.Records
	p.siteBase = make([]int32, len(recs)+1)
	for i := range recs {
		p.siteBase[i+1] = p.siteBase[i] + int32(len(recs[i].Alloc))
	}
	sz := p.mib.Size
	p.mibBytes = make([]byte, int(p.siteBase[len(recs)])*sz)
	for i := range recs {
		b := p.mibBytes[int(p.siteBase[i])*sz:]
		for j, a := range recs[i].Alloc {
			p.mib.Put(b[j*sz:(j+1)*sz], a.Info)
		}
	}
}

// Emit writes the section.
func (p *Section) Emit(o *container.Output) {
	switch p.version {
	case 0, 1:
		p.emitV0V1(o)
	case 2:
		p.emitV2(o)
	default:
		p.emitV3V4(o)
	}
}

func (p *Section) emitSchema(o *container.Output) {
	o.U64(uint64(len(p.schema)))
	for _, m := range p.schema {
		o.U64(uint64(m))
	}
}

func (p *Section) emitV0V1(o *container.Output) {
	off := &p.off
	if p.version == 1 {
		o.U64(1)
	}
	o.U64s([]uint64{off.recTable, off.framePayload, off.frameTable})
	p.emitSchema(o)
	o.Table(p.records, p.putRecord, &off.recTable)
	o.At(&off.framePayload)
	o.Table(p.frames, p.putFrameEntry, &off.frameTable)
}

func (p *Section) emitV2(o *container.Output) {
	off := &p.off
	o.U64(2)
	o.U64s([]uint64{off.recTable, off.framePayload, off.frameTable, off.stackPayload, off.stackTable})
	p.emitSchema(o)
	o.Table(p.records, p.putRecord, &off.recTable)
	o.At(&off.framePayload)
	o.Table(p.frames, p.putFrameEntry, &off.frameTable)
	o.At(&off.stackPayload)
	o.Table(p.stacks, p.putStackEntry, &off.stackTable)
}

func (p *Section) emitV3V4(o *container.Output) {
	off := &p.off
	o.U64(uint64(p.version))
	o.U64s([]uint64{off.stackPayload, off.recPayload, off.recTable})
	if p.version >= 4 {
		o.U64(0) // DataAccessProfOffset: no data-access profile
		s := p.summary
		o.U32(6)
		o.U64s([]uint64{s.NumContexts, s.NumColdContexts, s.NumHotContexts,
			s.MaxColdTotalSize, s.MaxWarmTotalSize, s.MaxHotTotalSize})
	}
	p.emitSchema(o)
	if o.Sizing() {
		o.Skip(FrameSize * len(p.frameOrder))
	} else {
		b := make([]byte, FrameSize*len(p.frameOrder))
		for i, f := range p.frameOrder {
			PutFrame(b[FrameSize*i:], p.ix.Frames[f])
		}
		o.Write(b)
	}
	o.At(&off.stackPayload)
	o.U32s(p.radix)
	o.At(&off.recPayload)
	o.Table(p.records, p.putRecord, &off.recTable)
}

// putFrameEntry fills a V0–V2 frame table entry: key and data lengths,
// FrameId, frame.
func (p *Section) putFrameEntry(b []byte, i int) {
	f := p.frameOrder[i]
	le.PutUint64(b, 8)
	le.PutUint64(b[8:], FrameSize)
	le.PutUint64(b[16:], p.ix.FrameIDs[f])
	PutFrame(b[24:], p.ix.Frames[f])
}

// putStackEntry fills a V2 call-stack table entry: data length,
// CallStackId, frame ids.
func (p *Section) putStackEntry(b []byte, i int) {
	s := p.stackOrder[i]
	fs := p.ix.Stack(s)
	le.PutUint64(b, uint64(8*len(fs)))
	le.PutUint64(b[8:], p.stackIDs[s])
	putFrameIDs(b[16:], fs, p.ix.FrameIDs)
}

func putFrameIDs(b []byte, fs []int32, ids []uint64) {
	b = b[:8*len(fs)]
	for j, f := range fs {
		le.PutUint64(b[8*j:], ids[f])
	}
}

// stackRefSize is the size of a reference to stack s: its frame ids
// (V0/V1), its CallStackId (V2) or its radix position (V3/V4).
func (p *Section) stackRefSize(s int32) int {
	switch p.version {
	case 0, 1:
		return 8 + 8*int(p.ix.StackOff[s+1]-p.ix.StackOff[s])
	case 2:
		return 8
	}
	return 4
}

// dataSize returns the size of record r's data.
func (p *Section) dataSize(r *Record) int {
	n := 16 + len(r.Alloc)*p.mib.Size
	for _, a := range r.Alloc {
		n += p.stackRefSize(a.Stack)
	}
	for _, c := range r.Calls {
		n += p.stackRefSize(c.Stack)
		if p.version >= 4 {
			n += 8 + 8*len(c.Callees)
		}
	}
	return n
}

func (p *Section) putStackRef(b []byte, s int32) int {
	switch p.version {
	case 0, 1:
		fs := p.ix.Stack(s)
		le.PutUint64(b, uint64(len(fs)))
		putFrameIDs(b[8:], fs, p.ix.FrameIDs)
		return 8 + 8*len(fs)
	case 2:
		le.PutUint64(b, p.stackIDs[s])
		return 8
	}
	le.PutUint32(b, p.linear[s])
	return 4
}

// putRecord fills record i's table entry: key and data lengths, GUID, then
// u64 #alloc sites, each {stack, MIB}, and u64 #call sites, each a stack
// (V4: plus u64 #callee GUIDs and the GUIDs).
func (p *Section) putRecord(b []byte, i int) {
	r := &p.ix.Records[i]
	le.PutUint64(b, 8)
	le.PutUint64(b[8:], uint64(len(b)-24))
	le.PutUint64(b[16:], r.GUID)
	le.PutUint64(b[24:], uint64(len(r.Alloc)))
	n := 32
	if p.mibBytes != nil { // V3/V4: MIBs serialized in NewSection
		sz := p.mib.Size
		mb := p.mibBytes[int(p.siteBase[i])*sz:]
		for j, a := range r.Alloc {
			n += p.putStackRef(b[n:], a.Stack)
			copy(b[n:n+sz], mb[j*sz:(j+1)*sz])
			n += sz
		}
	}
	// Call stacks and MIBs lie scattered in memory (MIBs where the raw
	// reader left them). Sites go in groups: first a short loop copies the
	// group's MIBs and call-stack bounds, whose iterations miss the cache
	// independently, so the misses overlap; then the group is written from
	// those copies. Writing site by site straight from the scattered data
	// waits for each miss in turn.
	const group = 32
	var mibs [group]memprof.MemInfoBlock
	var bounds [group + 1]int32
	var first [group]int32
	v01 := p.version <= 1
	for g := 0; g < len(r.Alloc) && p.mibBytes == nil; g += group {
		sites := r.Alloc[g:min(g+group, len(r.Alloc))]
		for j, a := range sites {
			mibs[j] = *a.Info
		}
		if v01 {
			sf := p.ix.StackFrames
			for j, a := range sites {
				lo := p.ix.StackOff[a.Stack]
				bounds[j] = lo
				if int(lo) < len(sf) {
					first[j] = sf[lo] // brings the stack's frames in
				}
			}
		}
		for j, a := range sites {
			if v01 {
				lo := bounds[j]
				fs := p.ix.StackFrames[lo:p.ix.StackOff[a.Stack+1]]
				le.PutUint64(b[n:], uint64(len(fs)))
				if len(fs) > 0 {
					le.PutUint64(b[n+8:], p.ix.FrameIDs[first[j]])
					putFrameIDs(b[n+16:], fs[1:], p.ix.FrameIDs)
				}
				n += 8 + 8*len(fs)
			} else {
				n += p.putStackRef(b[n:], a.Stack)
			}
			p.mib.Put(b[n:n+p.mib.Size], &mibs[j])
			n += p.mib.Size
		}
	}
	le.PutUint64(b[n:], uint64(len(r.Calls)))
	n += 8
	for _, c := range r.Calls {
		n += p.putStackRef(b[n:], c.Stack)
		if p.version >= 4 {
			le.PutUint64(b[n:], uint64(len(c.Callees)))
			n += 8
			for _, g := range c.Callees {
				le.PutUint64(b[n:], g)
				n += 8
			}
		}
	}
	if n != len(b) {
		panic("memprofidx: internal error: record size mismatch")
	}
}
