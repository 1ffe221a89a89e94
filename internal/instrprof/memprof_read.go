package instrprof

import (
	"encoding/binary"
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// readMemProf decodes the MemProf section at Header.MemProfOffset.
func (f *File) readMemProf(name string, data []byte) error {
	c := &cursor{name: name, data: data, end: len(data), section: "memprof header"}
	c.seek(f.Header.MemProfOffset, "memprof offset")
	start := c.off
	first := c.u64("memprof version")
	if c.err != nil {
		return c.err
	}
	version := int(first)
	switch {
	case first >= 1 && first <= 4:
	case first >= 24: // V0 has no version word; this is RecordTableOffset
		version = 0
		c.off = start
	default:
		c.off = start
		c.fail(ErrUnsupportedVersion, "MemProf version %d not supported; requires version between 0 and 4, inclusive", first)
		return c.err
	}
	f.MemProfVersion = version
	p := &memprof.Profile{}
	f.Profile = p
	switch version {
	case 0, 1, 2:
		n := 3
		if version == 2 {
			n = 5
		}
		var offs [5]uint64
		for i := range n {
			offs[i] = c.u64("memprof header")
		}
		f.Schema = readSchema(c)
		if c.err != nil {
			return c.err
		}
		recPayload := uint64(c.off)
		recTable, framePayload, frameTable := offs[0], offs[1], offs[2]
		frames, err := readFrameTable(name, data, framePayload, frameTable)
		if err != nil {
			return err
		}
		byID := make(map[uint64]memprof.Frame, len(frames))
		for _, fr := range frames {
			byID[fr.id] = fr.f
			p.Frames = append(p.Frames, fr.f)
			f.frameKeys = append(f.frameKeys, fr.id)
		}
		var stacks map[uint64][]memprof.Frame
		if version == 2 {
			stacks, err = f.readStackTable(name, data, offs[3], offs[4], byID)
			if err != nil {
				return err
			}
		}
		return f.readRecords(name, data, recPayload, recTable, version, recordResolver{frames: byID, stacks: stacks})
	case 3, 4:
		csPayload := c.u64("call stack payload offset")
		recPayload := c.u64("record payload offset")
		recTable := c.u64("record table offset")
		if version == 4 {
			f.DataAccessProfOffset = c.u64("data access profile offset")
			c.section = "memprof summary"
			nf := c.u32("summary field count")
			if c.err == nil && nf < 6 {
				c.off -= 4
				c.fail(ErrMalformed, "memprof summary has %d fields, want at least 6", nf)
			}
			var v [6]uint64
			for i := range v {
				v[i] = c.u64("summary field")
			}
			if c.err == nil {
				c.bytes(8*uint64(nf-6), "summary field")
			}
			f.MemProfSummary = &MemProfSummary{v[0], v[1], v[2], v[3], v[4], v[5]}
		}
		f.Schema = readSchema(c)
		if c.err != nil {
			return c.err
		}
		c.section = "memprof frame array"
		framesStart := uint64(c.off)
		if csPayload < framesStart || recPayload < csPayload || recTable < recPayload || recTable > uint64(len(data)) {
			c.fail(ErrMalformed, "inconsistent offsets: frames %#x, call stacks %#x, record payload %#x, record table %#x", framesStart, csPayload, recPayload, recTable)
			return c.err
		}
		nFrames := (csPayload - framesStart) / frameSize
		frames := make([]memprof.Frame, nFrames)
		for i := range frames {
			frames[i] = getFrame(data[framesStart+uint64(i)*frameSize:])
		}
		p.Frames = frames
		nRadix := (recPayload - csPayload) / 4
		radix := make([]uint32, nRadix)
		for i := range radix {
			radix[i] = binary.LittleEndian.Uint32(data[csPayload+uint64(i)*4:])
		}
		return f.readRecords(name, data, recPayload, recTable, version, recordResolver{linearFrames: frames, radix: radix, radixOff: csPayload, budget: radixFloor + radixExpansion*len(radix)})
	}
	return nil
}

func getFrame(b []byte) memprof.Frame {
	return memprof.Frame{
		Function:      binary.LittleEndian.Uint64(b),
		LineOffset:    binary.LittleEndian.Uint32(b[8:]),
		Column:        binary.LittleEndian.Uint32(b[12:]),
		IsInlineFrame: b[16] != 0,
	}
}

func readSchema(c *cursor) []memprof.Meta {
	c.section = "memprof schema"
	at := c.off
	n := c.u64("schema size")
	if c.err != nil {
		return nil
	}
	if n > uint64(maxMeta) {
		c.off = at
		c.fail(ErrMalformed, "memprof schema invalid: %d fields, at most %d known", n, maxMeta)
		return nil
	}
	s := make([]memprof.Meta, n)
	for i := range s {
		at := c.off
		t := c.u64("schema tag")
		if c.err != nil {
			return nil
		}
		if t == 0 || t > uint64(maxMeta) {
			c.off = at
			c.fail(ErrMalformed, "memprof schema invalid: unknown field tag %d", t)
			return nil
		}
		s[i] = memprof.Meta(t)
	}
	return s
}

type idFrame struct {
	id uint64
	f  memprof.Frame
}

func readFrameTable(name string, data []byte, payload, table uint64) ([]idFrame, error) {
	const sec = "memprof frame table"
	entries, err := readTable(name, data, sec, payload, table, true)
	if err != nil {
		return nil, err
	}
	out := make([]idFrame, len(entries))
	for i, e := range entries {
		if len(e.key) != 8 || len(e.data) != frameSize {
			return nil, &DecodeError{Name: name, Section: sec, Offset: int64(e.off), Msg: "frame entry must have an 8-byte key and 17-byte data", Err: ErrMalformed}
		}
		out[i] = idFrame{binary.LittleEndian.Uint64(e.key), getFrame(e.data)}
	}
	return out, nil
}

func (f *File) readStackTable(name string, data []byte, payload, table uint64, frames map[uint64]memprof.Frame) (map[uint64][]memprof.Frame, error) {
	const sec = "memprof call stack table"
	entries, err := readTable(name, data, sec, payload, table, false)
	if err != nil {
		return nil, err
	}
	stacks := make(map[uint64][]memprof.Frame, len(entries))
	for _, e := range entries {
		if len(e.data)%8 != 0 {
			return nil, &DecodeError{Name: name, Section: sec, Offset: int64(e.off), Msg: "call stack data length is not a multiple of 8", Err: ErrMalformed}
		}
		fs := make([]memprof.Frame, len(e.data)/8)
		for i := range fs {
			id := binary.LittleEndian.Uint64(e.data[8*i:])
			fr, ok := frames[id]
			if !ok {
				return nil, &DecodeError{Name: name, Section: sec, Offset: int64(e.off), Msg: fmt.Sprintf("unknown frame id %#x", id), Err: ErrMalformed}
			}
			fs[i] = fr
		}
		key := binary.LittleEndian.Uint64(e.key)
		stacks[key] = fs
		f.Profile.CallStacks = append(f.Profile.CallStacks, fs)
		f.stackKeys = append(f.stackKeys, key)
	}
	return stacks, nil
}

// recordResolver turns the stack references of one MemProf version into
// frames.
type recordResolver struct {
	frames       map[uint64]memprof.Frame   // V0–V2: FrameId → frame
	stacks       map[uint64][]memprof.Frame // V2: CallStackId → frames
	linearFrames []memprof.Frame            // V3/V4
	radix        []uint32
	radixOff     uint64
	decoded      map[uint32][]memprof.Frame // V3/V4: stacks decoded so far
	budget       int                        // V3/V4: frames left to decode
}

// Call stacks in the radix array share prefixes, so a small array can
// describe very many frames. Decoded stacks are shared between the sites
// that name them, and the total number of distinct decoded frames is capped
// at radixExpansion frames per array element (plus a floor), far above what
// the prefix sharing of real profiles yields.
const (
	radixExpansion = 256
	radixFloor     = 1 << 20
)

// readStack reads one stack reference from c.
func (rr *recordResolver) readStack(c *cursor, version int) []memprof.Frame {
	switch version {
	case 0, 1:
		n := c.count(8, "frame count")
		if c.err != nil {
			return nil
		}
		fs := make([]memprof.Frame, n)
		for i := range fs {
			at := c.off
			id := c.u64("frame id")
			fr, ok := rr.frames[id]
			if !ok {
				c.off = at
				c.fail(ErrMalformed, "unknown frame id %#x", id)
				return nil
			}
			fs[i] = fr
		}
		return fs
	case 2:
		at := c.off
		id := c.u64("call stack id")
		if c.err != nil {
			return nil
		}
		fs, ok := rr.stacks[id]
		if !ok {
			c.off = at
			c.fail(ErrMalformed, "unknown call stack id %#x", id)
		}
		return fs
	default:
		at := c.off
		l := c.u32("linear call stack id")
		if c.err != nil {
			return nil
		}
		if fs, ok := rr.decoded[l]; ok {
			return fs
		}
		fs, msg := rr.decodeRadix(l)
		if msg == "" && len(fs) > rr.budget {
			msg = "call stacks expand to more frames than the radix array can plausibly hold"
		}
		if msg != "" {
			c.off = at
			c.fail(ErrMalformed, "linear call stack id %d: %s", l, msg)
			return nil
		}
		rr.budget -= len(fs)
		if rr.decoded == nil {
			rr.decoded = make(map[uint32][]memprof.Frame)
		}
		rr.decoded[l] = fs
		return fs
	}
}

// decodeRadix extracts the call stack at position l of the radix array.
func (rr *recordResolver) decodeRadix(l uint32) ([]memprof.Frame, string) {
	a := rr.radix
	if uint64(l) >= uint64(len(a)) {
		return nil, "beyond the radix array"
	}
	n := a[l]
	if uint64(n) > uint64(len(a)) {
		return nil, "implausible call stack length"
	}
	fs := make([]memprof.Frame, 0, n)
	p := uint64(l) + 1
	for range n {
		if p >= uint64(len(a)) {
			return nil, "runs off the radix array"
		}
		if int32(a[p]) < 0 {
			p += uint64(-int64(int32(a[p])))
			if p >= uint64(len(a)) {
				return nil, "jumps off the radix array"
			}
			if int32(a[p]) < 0 {
				return nil, "jump to a jump"
			}
		}
		idx := a[p]
		if uint64(idx) >= uint64(len(rr.linearFrames)) {
			return nil, fmt.Sprintf("frame index %d beyond the frame array (%d frames)", idx, len(rr.linearFrames))
		}
		fs = append(fs, rr.linearFrames[idx])
		p++
	}
	return fs, ""
}

func (f *File) readRecords(name string, data []byte, payload, table uint64, version int, rr recordResolver) error {
	const sec = "memprof record table"
	entries, err := readTable(name, data, sec, payload, table, true)
	if err != nil {
		return err
	}
	mib := schemaSize(f.Schema)
	for _, e := range entries {
		if len(e.key) != 8 {
			return &DecodeError{Name: name, Section: sec, Offset: int64(e.off), Msg: "record key must be 8 bytes", Err: ErrMalformed}
		}
		dataOff := e.off + len(e.key) + 24
		c := &cursor{name: name, data: data, off: dataOff, end: dataOff + len(e.data), section: sec}
		r := &memprof.Record{GUID: binary.LittleEndian.Uint64(e.key)}
		refMin := 8
		switch version {
		case 2:
			refMin = 8
		case 3, 4:
			refMin = 4
		}
		na := c.count(refMin+mib, "alloc site count")
		if c.err == nil {
			r.AllocSites = make([]memprof.AllocationInfo, 0, na)
		}
		for range na {
			var a memprof.AllocationInfo
			a.CallStack = rr.readStack(c, version)
			for _, m := range f.Schema {
				if metaWidth[m] == 4 {
					a.Info.SetField(m, uint64(c.u32("mib field")))
				} else {
					a.Info.SetField(m, c.u64("mib field"))
				}
			}
			if c.err != nil {
				return c.err
			}
			r.AllocSites = append(r.AllocSites, a)
		}
		nc := c.count(refMin, "call site count")
		for range nc {
			var cs memprof.CallSite
			cs.Frames = rr.readStack(c, version)
			if version >= 4 {
				ng := c.count(8, "callee GUID count")
				for range ng {
					cs.CalleeGUIDs = append(cs.CalleeGUIDs, c.u64("callee GUID"))
				}
			}
			if c.err != nil {
				return c.err
			}
			r.CallSites = append(r.CallSites, cs)
		}
		if c.err != nil {
			return c.err
		}
		if c.remaining() != 0 {
			c.fail(ErrMalformed, "%d unread bytes at the end of record %#x", c.remaining(), r.GUID)
			return c.err
		}
		f.Profile.Records = append(f.Profile.Records, r)
	}
	return nil
}
