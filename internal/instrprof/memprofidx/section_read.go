package memprofidx

import (
	"encoding/binary"
	"fmt"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Decoded is a MemProf section read back (ReadSection).
type Decoded struct {
	Version int // MemProf version
	Schema  []memprof.Meta
	Summary *memprof.Summary // V4 only
	// DataAccessProfOffset is the V4 data-access profile offset (0 = none).
	DataAccessProfOffset uint64
	// Profile holds the records in on-disk (bucket) order with their
	// frames resolved. Frames is the frame table/array order and, for V2,
	// CallStacks the call-stack table order.
	Profile *memprof.Profile
	// FrameKeys and StackKeys are the V0–V2 table keys, parallel to
	// Profile.Frames and CallStacks.
	FrameKeys, StackKeys []uint64
}

// ReadSection decodes the MemProf section at off of the indexed profile
// data (file name, for errors). On error the Decoded holds what was read
// before it.
func ReadSection(name string, data []byte, off uint64) (*Decoded, error) {
	f := &Decoded{}
	return f, f.read(name, data, off)
}

func (f *Decoded) read(name string, data []byte, off uint64) error {
	cur := decode.NewCursor("instrprof", name, "memprof header", data, 0)
	c := &cur
	c.Seek(off)
	start := c.Off()
	first := c.U64()
	if c.Err() != nil {
		return c.Err()
	}
	version := int(first)
	switch {
	case first >= 1 && first <= 4:
	case first >= 24: // V0 has no version word; this is RecordTableOffset
		version = 0
		c.Seek(uint64(start))
	default:
		c.FailAt(int64(start), decode.ErrUnsupportedVersion, "MemProf version %d not supported; requires version between 0 and 4, inclusive", first)
		return c.Err()
	}
	f.Version = version
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
			offs[i] = c.U64()
		}
		f.Schema = readSchema(c)
		if c.Err() != nil {
			return c.Err()
		}
		recPayload := uint64(c.Off())
		recTable, framePayload, frameTable := offs[0], offs[1], offs[2]
		frames, err := readFrameTable(name, data, framePayload, frameTable)
		if err != nil {
			return err
		}
		byID := make(map[uint64]memprof.Frame, len(frames))
		for _, fr := range frames {
			byID[fr.id] = fr.f
			p.Frames = append(p.Frames, fr.f)
			f.FrameKeys = append(f.FrameKeys, fr.id)
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
		csPayload := c.U64()
		recPayload := c.U64()
		recTable := c.U64()
		if version == 4 {
			f.DataAccessProfOffset = c.U64()
			c.Section = "memprof summary"
			nf := c.U32()
			if c.Err() == nil && nf < 6 {
				c.FailAt(int64(c.Off()-4), decode.ErrMalformed, "memprof summary has %d fields, want at least 6", nf)
			}
			var v [6]uint64
			for i := range v {
				v[i] = c.U64()
			}
			if c.Err() == nil {
				c.Bytes(8 * uint64(nf-6))
			}
			f.Summary = &memprof.Summary{NumContexts: v[0], NumColdContexts: v[1], NumHotContexts: v[2],
				MaxColdTotalSize: v[3], MaxWarmTotalSize: v[4], MaxHotTotalSize: v[5]}
		}
		f.Schema = readSchema(c)
		if c.Err() != nil {
			return c.Err()
		}
		c.Section = "memprof frame array"
		framesStart := uint64(c.Off())
		if csPayload < framesStart || recPayload < csPayload || recTable < recPayload || recTable > uint64(len(data)) {
			c.Fail(decode.ErrMalformed, "inconsistent offsets: frames %#x, call stacks %#x, record payload %#x, record table %#x", framesStart, csPayload, recPayload, recTable)
			return c.Err()
		}
		nFrames := (csPayload - framesStart) / FrameSize
		frames := make([]memprof.Frame, nFrames)
		for i := range frames {
			frames[i] = GetFrame(data[framesStart+uint64(i)*FrameSize:])
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

func readSchema(c *decode.Cursor) []memprof.Meta {
	c.Section = "memprof schema"
	at := c.Off()
	n := c.U64()
	if c.Err() != nil {
		return nil
	}
	if n > uint64(memprof.MaxMeta) {
		c.FailAt(int64(at), decode.ErrMalformed, "memprof schema invalid: %d fields, at most %d known", n, memprof.MaxMeta)
		return nil
	}
	s := make([]memprof.Meta, n)
	for i := range s {
		at := c.Off()
		t := c.U64()
		if c.Err() != nil {
			return nil
		}
		if !memprof.Meta(t).Valid() {
			c.FailAt(int64(at), decode.ErrMalformed, "memprof schema invalid: unknown field tag %d", t)
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
	entries, err := container.ReadTable(name, data, sec, payload, table, true)
	if err != nil {
		return nil, err
	}
	out := make([]idFrame, len(entries))
	for i, e := range entries {
		if len(e.Key) != 8 || len(e.Data) != FrameSize {
			return nil, &decode.Error{Format: "instrprof", File: name, Section: sec, Offset: int64(e.Off), Msg: "frame entry must have an 8-byte key and 17-byte data", Err: decode.ErrMalformed}
		}
		out[i] = idFrame{binary.LittleEndian.Uint64(e.Key), GetFrame(e.Data)}
	}
	return out, nil
}

func (f *Decoded) readStackTable(name string, data []byte, payload, table uint64, frames map[uint64]memprof.Frame) (map[uint64][]memprof.Frame, error) {
	const sec = "memprof call stack table"
	entries, err := container.ReadTable(name, data, sec, payload, table, false)
	if err != nil {
		return nil, err
	}
	stacks := make(map[uint64][]memprof.Frame, len(entries))
	for _, e := range entries {
		if len(e.Data)%8 != 0 {
			return nil, &decode.Error{Format: "instrprof", File: name, Section: sec, Offset: int64(e.Off), Msg: "call stack data length is not a multiple of 8", Err: decode.ErrMalformed}
		}
		fs := make([]memprof.Frame, len(e.Data)/8)
		for i := range fs {
			id := binary.LittleEndian.Uint64(e.Data[8*i:])
			fr, ok := frames[id]
			if !ok {
				return nil, &decode.Error{Format: "instrprof", File: name, Section: sec, Offset: int64(e.Off), Msg: fmt.Sprintf("unknown frame id %#x", id), Err: decode.ErrMalformed}
			}
			fs[i] = fr
		}
		key := binary.LittleEndian.Uint64(e.Key)
		stacks[key] = fs
		f.Profile.CallStacks = append(f.Profile.CallStacks, fs)
		f.StackKeys = append(f.StackKeys, key)
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
func (rr *recordResolver) readStack(c *decode.Cursor, version int) []memprof.Frame {
	switch version {
	case 0, 1:
		n := c.Count(8, "frame count")
		if c.Err() != nil {
			return nil
		}
		fs := make([]memprof.Frame, n)
		for i := range fs {
			at := c.Off()
			id := c.U64()
			fr, ok := rr.frames[id]
			if !ok {
				c.FailAt(int64(at), decode.ErrMalformed, "unknown frame id %#x", id)
				return nil
			}
			fs[i] = fr
		}
		return fs
	case 2:
		at := c.Off()
		id := c.U64()
		if c.Err() != nil {
			return nil
		}
		fs, ok := rr.stacks[id]
		if !ok {
			c.FailAt(int64(at), decode.ErrMalformed, "unknown call stack id %#x", id)
		}
		return fs
	default:
		at := c.Off()
		l := c.U32()
		if c.Err() != nil {
			return nil
		}
		if fs, ok := rr.decoded[l]; ok {
			return fs
		}
		fs, msg := DecodeRadix(rr.radix, rr.linearFrames, l)
		if msg == "" && len(fs) > rr.budget {
			msg = "call stacks expand to more frames than the radix array can plausibly hold"
		}
		if msg != "" {
			c.FailAt(int64(at), decode.ErrMalformed, "linear call stack id %d: %s", l, msg)
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

func (f *Decoded) readRecords(name string, data []byte, payload, table uint64, version int, rr recordResolver) error {
	const sec = "memprof record table"
	entries, err := container.ReadTable(name, data, sec, payload, table, true)
	if err != nil {
		return err
	}
	mib := SchemaSize(f.Schema)
	for _, e := range entries {
		if len(e.Key) != 8 {
			return &decode.Error{Format: "instrprof", File: name, Section: sec, Offset: int64(e.Off), Msg: "record key must be 8 bytes", Err: decode.ErrMalformed}
		}
		dataOff := e.Off + len(e.Key) + 24
		cur := decode.NewCursor("instrprof", name, sec, data[:dataOff+len(e.Data)], dataOff)
		c := &cur
		r := &memprof.Record{GUID: binary.LittleEndian.Uint64(e.Key)}
		refMin := 8
		switch version {
		case 2:
			refMin = 8
		case 3, 4:
			refMin = 4
		}
		na := c.Count(refMin+mib, "alloc site count")
		if c.Err() == nil {
			r.AllocSites = make([]memprof.AllocationInfo, 0, na)
		}
		for range na {
			var a memprof.AllocationInfo
			a.CallStack = rr.readStack(c, version)
			for _, m := range f.Schema {
				if m.Width() == 4 {
					a.Info.SetField(m, uint64(c.U32()))
				} else {
					a.Info.SetField(m, c.U64())
				}
			}
			if c.Err() != nil {
				return c.Err()
			}
			r.AllocSites = append(r.AllocSites, a)
		}
		nc := c.Count(refMin, "call site count")
		for range nc {
			var cs memprof.CallSite
			cs.Frames = rr.readStack(c, version)
			if version >= 4 {
				ng := c.Count(8, "callee GUID count")
				for range ng {
					cs.CalleeGUIDs = append(cs.CalleeGUIDs, c.U64())
				}
			}
			if c.Err() != nil {
				return c.Err()
			}
			r.CallSites = append(r.CallSites, cs)
		}
		if c.Err() != nil {
			return c.Err()
		}
		if c.Remaining() != 0 {
			c.Fail(decode.ErrMalformed, "%d unread bytes at the end of record %#x", c.Remaining(), r.GUID)
			return c.Err()
		}
		f.Profile.Records = append(f.Profile.Records, r)
	}
	return nil
}
