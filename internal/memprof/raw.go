package memprof

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/mapfile"
)

// Raw profile layout (compiler-rt memprof runtime, MemProfData.inc). All
// integers are little-endian. A file is one or more dumps back to back:
//
//	dump:    Header | segment section | MIB section | stack section | padding
//	Header:  u64 Magic, Version, TotalSize, SegmentOffset, MIBOffset, StackOffset
//	         (48 bytes; offsets are from the start of the dump; TotalSize is
//	         the distance to the next dump)
//	segment: u64 N, N × SegmentEntry
//	         v1/v2: u64 Start, End, Offset, u8[32] BuildId            (56 bytes)
//	         v3+:   u64 Start, End, Offset, BuildIdSize, u8[32] BuildId (64 bytes)
//	MIB:     u64 N, N × (u64 StackId, MemInfoBlock, histogram)
//	         MemInfoBlock is packed (mibfields.go): 100 bytes (v1), 132 (v2,
//	         v3), 144 (v4, v5), each a prefix of the next;
//	         histogram: AccessHistogramSize × u64 (v4) or × u16 encoded (v5)
//	stack:   u64 N, N × (u64 StackId, u64 NumPCs, NumPCs × u64 PC)
const (
	// RawMagic is the first u64 of every dump.
	RawMagic uint64 = 0xFF6D70726F667281

	rawHeaderSize      = 48
	segmentSizeV1      = 56
	segmentSizeV3      = 64
	buildIDMaxSize     = 32
	minRawVersion      = 1
	maxRawVersion      = 5
	rawHistogramV4Size = 8
	rawHistogramV5Size = 2
)

// RawHeader is the 48-byte header that starts every dump.
type RawHeader struct {
	Magic         uint64
	Version       uint64
	TotalSize     uint64
	SegmentOffset uint64
	MIBOffset     uint64
	StackOffset   uint64
}

// SegmentEntry is one executable mapping recorded by the runtime.
//
// In raw v1/v2 Offset is the mapping's file offset and the 32 BuildID bytes
// are never filled (BuildIDSize is 0 for those versions). From raw v3 Offset
// is the module's load bias and BuildID[:BuildIDSize] its GNU build id.
type SegmentEntry struct {
	Start, End, Offset uint64
	BuildIDSize        uint64
	BuildID            [buildIDMaxSize]byte
}

// ID returns the meaningful build-id bytes (nil when there are none).
func (s SegmentEntry) ID() []byte {
	if s.BuildIDSize == 0 {
		return nil
	}
	return s.BuildID[:s.BuildIDSize]
}

// BuildIDString formats the build id as llvm-profdata does: lowercase hex
// of the meaningful bytes, or "<None>". For raw v1/v2 profiles (rawVersion
// < 3) it prints all 32 bytes unless they are all zero.
func (s SegmentEntry) BuildIDString(rawVersion uint64) string {
	if rawVersion < 3 {
		if s.BuildID == [buildIDMaxSize]byte{} {
			return "<None>"
		}
		return hex.EncodeToString(s.BuildID[:])
	}
	if s.BuildIDSize == 0 {
		return "<None>"
	}
	return hex.EncodeToString(s.ID())
}

func (s SegmentEntry) equal(o SegmentEntry) bool {
	return s.Start == o.Start && s.End == o.End && s.Offset == o.Offset &&
		s.BuildIDSize == o.BuildIDSize && bytes.Equal(s.ID(), o.ID())
}

// MIBEntry is one allocation context of a raw profile: a stack-depot id and
// its statistics (merged over dumps).
type MIBEntry struct {
	StackID uint64
	Info    MemInfoBlock
}

// RawProfile is a decoded raw profile file: its dumps merged as LLVM's
// RawMemProfReader merges them (§1.2 of the spec).
type RawProfile struct {
	// Name is the file name given to ReadRaw, used in error messages.
	Name string
	// Version is the raw version of the last dump, which is what
	// llvm-profdata (LLVM 19+) prints.
	Version uint64
	// Versions lists the raw version of each dump, in file order.
	Versions []uint64
	// Segments is the segment list (identical in every dump).
	Segments []SegmentEntry
	// MIBs holds one entry per stack id in first-seen order; an id seen in
	// several dumps is merged with MemInfoBlock.Merge.
	MIBs []MIBEntry
	// StackIDs lists the distinct stack ids in first-seen file order.
	// llvm-profdata visits them in the iteration order of its DenseMap
	// instead; see stackMapOrder. Stack returns their PCs.
	StackIDs []uint64

	stacks   [][]uint64 // PCs of StackIDs[i], leaf first
	stackIdx *idIndex   // StackIDs index of an id; rebuilt when stale
	// mibStack holds the stacks index of each MIB's stack (-1: none) when
	// ReadRaw filled it; nil for profiles built in memory.
	mibStack []int32

	// dumpStackIDs keeps each dump's stack ids in file order, so the
	// DenseMap insertion order can be replayed for any LLVM release.
	dumpStackIDs [][]uint64
}

// Stack returns the PCs of stack id, leaf first.
func (p *RawProfile) Stack(id uint64) ([]uint64, bool) {
	i, ok := p.index().get(id)
	if !ok || int(i) >= len(p.stacks) {
		return nil, false
	}
	return p.stacks[i], true
}

// setStack sets the PCs of stack id, appending id to StackIDs if new: for
// profiles built in memory.
func (p *RawProfile) setStack(id uint64, pcs []uint64) {
	idx := p.index()
	p.mibStack = nil
	if i, ok := idx.get(id); ok {
		for len(p.stacks) <= int(i) {
			p.stacks = append(p.stacks, nil)
		}
		p.stacks[i] = pcs
		return
	}
	idx.set(id, int32(len(p.StackIDs)))
	p.StackIDs = append(p.StackIDs, id)
	for len(p.stacks) < len(p.StackIDs)-1 {
		p.stacks = append(p.stacks, nil)
	}
	p.stacks = append(p.stacks, pcs)
}

// mibStacks returns the stacks index of each MIB's stack, -1 when the
// profile has no such stack.
func (p *RawProfile) mibStacks() []int32 {
	if p.mibStack != nil && len(p.mibStack) == len(p.MIBs) && len(p.stacks) == len(p.StackIDs) {
		return p.mibStack
	}
	idx := p.index()
	out := make([]int32, len(p.MIBs))
	for i, m := range p.MIBs {
		if j, ok := idx.get(m.StackID); ok && int(j) < len(p.stacks) {
			out[i] = j
		} else {
			out[i] = -1
		}
	}
	return out
}

// OpenRaw reads and decodes the raw profile at path (mapped when large:
// see mapfile).
func OpenRaw(path string) (*RawProfile, error) {
	f, err := mapfile.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRawDone(path, f.Data, f.Done)
}

// ReadRaw decodes a raw MemProf profile (raw versions 1–5, one or more
// dumps). name is used in error messages only. The result does not refer
// to data, which the caller may reuse.
//
// It applies the checks of LLVM's RawMemProfReader and more: every count is
// checked against the bytes that remain before anything is allocated, and
// errors are *decode.Error values (Format "memprof") naming the file, the
// section and the offset in the file, wrapping one of the decode sentinels.
func ReadRaw(name string, data []byte) (*RawProfile, error) {
	return ReadRawDone(name, data, nil)
}

// ReadRawDone is ReadRaw that calls done(off), when not nil, after each
// dump with the offset where the next one starts: data before it is not
// read again (a mapped file gives its pages back, mapfile.File.Done).
func ReadRawDone(name string, data []byte, done func(off int)) (*RawProfile, error) {
	p := &RawProfile{Name: name}
	if len(data) < 8 || binary.LittleEndian.Uint64(data) != RawMagic {
		found := "a file shorter than 8 bytes"
		if len(data) >= 8 {
			found = fmt.Sprintf("%#x", binary.LittleEndian.Uint64(data))
		}
		return nil, rawError(name, "header", 0, decode.ErrBadMagic, "want magic %#x, found %s", RawMagic, found)
	}
	if len(data) < rawHeaderSize {
		return nil, rawError(name, "header", 0, decode.ErrTruncated, "need %d bytes, have %d", rawHeaderSize, len(data))
	}
	// MIBs are merged by stack id: mibAt[j] is the MIB of stack j + 1, and
	// orphans (ids without a stack) the MIBs of ids no stack has.
	var mibAt []int32
	orphans := map[uint64]int32{}
	for off := 0; off < len(data); {
		d, err := readDump(name, data, off)
		if err != nil {
			return nil, err
		}
		if len(p.Versions) > 0 {
			if len(d.segments) != len(p.Segments) {
				return nil, rawError(name, "segment section", int64(off)+int64(d.hdr.SegmentOffset), decode.ErrMalformed,
					"memprof raw profile has different segment information: %d segments, first dump has %d", len(d.segments), len(p.Segments))
			}
			for i := range d.segments {
				if !d.segments[i].equal(p.Segments[i]) {
					return nil, rawError(name, "segment section", int64(off)+int64(d.hdr.SegmentOffset)+8, decode.ErrMalformed,
						"memprof raw profile has different segment information: segment %d is [%#x, %#x) offset %#x id %s, first dump has [%#x, %#x) offset %#x id %s",
						i, d.segments[i].Start, d.segments[i].End, d.segments[i].Offset, d.segments[i].BuildIDString(d.hdr.Version),
						p.Segments[i].Start, p.Segments[i].End, p.Segments[i].Offset, p.Segments[i].BuildIDString(p.Version))
				}
			}
		} else {
			p.Segments = d.segments
		}
		p.Versions = append(p.Versions, d.hdr.Version)
		p.Version = d.hdr.Version
		if p.stackIdx == nil {
			// First dump: its stacks are the profile's so far, and its
			// MIBs are compacted in place instead of copied (a dump
			// rarely repeats a stack id).
			p.StackIDs, p.stacks, p.stackIdx = d.stackIDs, d.stacks, d.index
			p.MIBs = d.mibs[:0]
			p.mibStack = make([]int32, 0, len(d.mibs))
		} else {
			for i, id := range d.stackIDs {
				pcs := d.stacks[i]
				if j, ok := p.stackIdx.get(id); ok {
					if old := p.stacks[j]; !slices.Equal(old, pcs) {
						return nil, rawError(name, "stack section", d.stackOffsets[i], decode.ErrMalformed,
							"memprof raw profile got different call stack for same id %d: %d PCs %s, earlier dump has %d PCs %s",
							id, len(pcs), shortPCs(pcs), len(old), shortPCs(old))
					}
					continue
				}
				p.stackIdx.set(id, int32(len(p.StackIDs)))
				p.StackIDs = append(p.StackIDs, id)
				p.stacks = append(p.stacks, pcs)
			}
		}
		if n := len(p.StackIDs); n > len(mibAt) {
			mibAt = append(mibAt, make([]int32, n-len(mibAt))...)
		}
		for id, k := range orphans { // a stack this dump brings
			if j, ok := p.stackIdx.get(id); ok {
				mibAt[j], p.mibStack[k] = k+1, j
				delete(orphans, id)
			}
		}
		for _, m := range d.mibs {
			j, ok := p.stackIdx.get(m.StackID)
			if !ok {
				j = -1
				if k, ok := orphans[m.StackID]; ok {
					p.MIBs[k].Info.Merge(&m.Info)
					continue
				}
				orphans[m.StackID] = int32(len(p.MIBs))
			} else if k := mibAt[j] - 1; k >= 0 {
				p.MIBs[k].Info.Merge(&m.Info)
				continue
			} else {
				mibAt[j] = int32(len(p.MIBs)) + 1
			}
			p.MIBs = append(p.MIBs, m)
			p.mibStack = append(p.mibStack, j)
		}
		p.dumpStackIDs = append(p.dumpStackIDs, d.stackIDs)
		off += int(d.hdr.TotalSize)
		if done != nil {
			done(off)
		}
	}
	return p, nil
}

func dedupe(ids []uint64) []uint64 {
	seen := make(map[uint64]bool, len(ids))
	out := make([]uint64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func shortPCs(pcs []uint64) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, pc := range pcs {
		if i == 4 {
			b.WriteString(" ...")
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%#x", pc)
	}
	b.WriteByte(']')
	return b.String()
}

type dump struct {
	hdr          RawHeader
	segments     []SegmentEntry
	mibs         []MIBEntry
	stackIDs     []uint64
	stacks       [][]uint64
	stackOffsets []int64
	index        *idIndex // stackIDs index of an id
}

// rawError is the *decode.Error of a check made outside a cursor's reads.
func rawError(name, section string, off int64, kind error, format string, args ...any) error {
	return &decode.Error{Format: "memprof", File: name, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// readDump decodes the dump that starts at file offset off.
func readDump(name string, data []byte, off int) (*dump, error) {
	rest := len(data) - off
	if rest < rawHeaderSize {
		return nil, rawError(name, "header", int64(off), decode.ErrTruncated, "need %d bytes, have %d", rawHeaderSize, rest)
	}
	c := decode.NewCursor("memprof", name, "header", data[:off+rawHeaderSize], off)
	var d dump
	h := &d.hdr
	h.Magic = c.U64()
	h.Version = c.U64()
	h.TotalSize = c.U64()
	h.SegmentOffset = c.U64()
	h.MIBOffset = c.U64()
	h.StackOffset = c.U64()
	if h.Magic != RawMagic {
		return nil, c.Errorf(int64(off), decode.ErrBadMagic, "want magic %#x, found %#x", RawMagic, h.Magic)
	}
	if h.Version < minRawVersion || h.Version > maxRawVersion {
		return nil, c.Errorf(int64(off)+8, decode.ErrUnsupportedVersion,
			"unsupported version %d (supported: %d to %d)", h.Version, minRawVersion, maxRawVersion)
	}
	if h.TotalSize < rawHeaderSize || h.TotalSize > uint64(rest) {
		return nil, c.Errorf(int64(off)+16, decode.ErrMalformed,
			"TotalSize %d: want between %d and the %d bytes left in the file", h.TotalSize, rawHeaderSize, rest)
	}
	end := off + int(h.TotalSize)
	for _, s := range []struct {
		name string
		v    uint64
		at   int
	}{{"SegmentOffset", h.SegmentOffset, 24}, {"MIBOffset", h.MIBOffset, 32}, {"StackOffset", h.StackOffset, 40}} {
		if s.v < rawHeaderSize || s.v > h.TotalSize-8 {
			return nil, c.Errorf(int64(off+s.at), decode.ErrMalformed,
				"%s %d: want between %d and %d (TotalSize %d minus 8)", s.name, s.v, rawHeaderSize, h.TotalSize-8, h.TotalSize)
		}
	}
	var err error
	if d.segments, err = readSegments(name, data[:end], off+int(h.SegmentOffset), h.Version); err != nil {
		return nil, err
	}
	if d.mibs, err = readMIBs(name, data[:end], off+int(h.MIBOffset), h.Version); err != nil {
		return nil, err
	}
	if err = readStacks(name, data[:end], off+int(h.StackOffset), &d); err != nil {
		return nil, err
	}
	return &d, nil
}

func readSegments(name string, data []byte, off int, version uint64) ([]SegmentEntry, error) {
	c := decode.NewCursor("memprof", name, "segment section", data, off)
	size := segmentSizeV3
	if version < 3 {
		size = segmentSizeV1
	}
	n := c.Count(size, "segment count")
	if c.Err() != nil {
		return nil, c.Err()
	}
	segs := make([]SegmentEntry, n)
	for i := range segs {
		s := &segs[i]
		s.Start = c.U64()
		s.End = c.U64()
		s.Offset = c.U64()
		if version >= 3 {
			at := c.Off()
			s.BuildIDSize = c.U64()
			if s.BuildIDSize > buildIDMaxSize && c.Err() == nil {
				return nil, c.Errorf(int64(at), decode.ErrMalformed,
					"segment %d: BuildIdSize %d, want at most %d", i, s.BuildIDSize, buildIDMaxSize)
			}
		}
		copy(s.BuildID[:], c.Bytes(buildIDMaxSize))
	}
	return segs, c.Err()
}

func readMIBs(name string, data []byte, off int, version uint64) ([]MIBEntry, error) {
	c := decode.NewCursor("memprof", name, "MIB section", data, off)
	size := rawMIBSize[version]
	n := c.Count(8+size, "MIB count")
	if c.Err() != nil {
		return nil, c.Err()
	}
	mibs := make([]MIBEntry, n)
	width := rawHistogramV4Size
	if version >= 5 {
		width = rawHistogramV5Size
	}
	for i := range mibs {
		e := &mibs[i]
		m := &e.Info
		// Count and the check at the end of each iteration guarantee
		// the fixed part of this entry.
		decodeMIB(c.Bytes(uint64(8+size)), e)
		if version >= 4 && m.AccessHistogramSize > 0 {
			at := c.Off() - size + MetaAccessHistogramSize.PackedOffset()
			need := uint64(m.AccessHistogramSize) * uint64(width)
			if need > uint64(c.Remaining()) {
				return nil, c.Errorf(int64(at), decode.ErrTruncated,
					"MIB %d (stack id %d): AccessHistogramSize %d needs %d bytes, have %d",
					i, e.StackID, m.AccessHistogramSize, need, c.Remaining())
			}
			b := c.Bytes(need)
			m.Histogram = make([]uint64, m.AccessHistogramSize)
			if width == rawHistogramV5Size {
				for j := range m.Histogram {
					m.Histogram[j] = DecodeHistogramCount(binary.LittleEndian.Uint16(b[2*j:]))
				}
			} else {
				for j := range m.Histogram {
					m.Histogram[j] = binary.LittleEndian.Uint64(b[8*j:])
				}
			}
		}
		// The runtime's packing keeps MIB entries contiguous; Count
		// bounded n by the fixed part, histograms are checked above.
		if i+1 < len(mibs) && c.Remaining() < 8+size {
			return nil, c.Errorf(int64(c.Off()), decode.ErrTruncated,
				"MIB %d of %d: need %d bytes, have %d", i+1, n, 8+size, c.Remaining())
		}
	}
	return mibs, c.Err()
}

// decodeMIB decodes a raw MIB entry, the stack id and the packed
// MemInfoBlock of the entry's raw version: b holds exactly 8 +
// rawMIBSize[version] bytes. Older versions have a prefix of the packed
// fields; the others stay zero.
func decodeMIB(b []byte, e *MIBEntry) {
	e.StackID = binary.LittleEndian.Uint64(b)
	if len(b) == 8+PackedMIBSize {
		e.Info.getPacked((*[PackedMIBSize]byte)(b[8:]))
		return
	}
	var t [PackedMIBSize]byte
	copy(t[:], b[8:])
	e.Info.getPacked(&t)
}

func readStacks(name string, data []byte, off int, d *dump) error {
	c := decode.NewCursor("memprof", name, "stack section", data, off)
	n := c.Count(16, "stack count")
	if c.Err() != nil {
		return c.Err()
	}
	d.stackIDs = make([]uint64, 0, n)
	d.stacks = make([][]uint64, 0, n)
	d.stackOffsets = make([]int64, 0, n)
	index := newIDIndex(n)
	d.index = index
	var slab []uint64
	for i := 0; i < n; i++ {
		at := c.Off()
		id := c.U64()
		npc := c.U64()
		if c.Err() != nil {
			return c.Err()
		}
		if npc > uint64(c.Remaining())/8 {
			return c.Errorf(int64(at+8), decode.ErrTruncated,
				"stack %d (id %d): %d PCs need %d bytes, have %d", i, id, npc, npc*8, c.Remaining())
		}
		// PCs are carved from shared chunks: one allocation per few
		// thousand stacks instead of one per stack.
		if uint64(len(slab)) < npc {
			slab = make([]uint64, max(npc, 1<<13))
		}
		pcs := slab[:npc:npc]
		slab = slab[npc:]
		b := c.Bytes(8 * npc) // checked above
		for j := range pcs {
			pcs[j] = binary.LittleEndian.Uint64(b[8*j:])
		}
		// A repeated id within one dump replaces the earlier list, as
		// LLVM's Items[StackId] = CallStack does.
		if k, ok := index.get(id); ok {
			d.stacks[k] = pcs
			continue
		}
		index.set(id, int32(len(d.stackIDs)))
		d.stackIDs = append(d.stackIDs, id)
		d.stacks = append(d.stacks, pcs)
		d.stackOffsets = append(d.stackOffsets, int64(at))
	}
	return c.Err()
}
