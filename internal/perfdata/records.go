package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// Next reads the next record into rec and returns io.EOF after the last.
// Records that only carry the header (a pipe's PERF_RECORD_HEADER_ATTR and
// HEADER_BUILD_ID, absorbed into Attrs and BuildIDs) and the
// PERF_RECORD_COMPRESSED wrappers (whose records are returned one by one)
// are not returned themselves. rec's slices are reused by the next call
// (Raw is often the read buffer's own bytes: valid until then, not to be
// written).
func (r *Reader) Next(rec *Record) error {
	for {
		raw, off, inZ, err := r.nextRaw()
		if err != nil {
			return err
		}
		typ := RecordType(binary.LittleEndian.Uint32(raw))
		switch typ {
		case RecordCompressed, RecordCompressed2:
			if inZ {
				return r.recordError(typ, off, inZ, 0, decode.ErrMalformed, "a compressed record inside a compressed record")
			}
			if err := r.decompress(typ, raw, off); err != nil {
				return err
			}
			continue
		case RecordHeaderAttr:
			if err := r.headerAttr(raw, off, inZ); err != nil {
				return err
			}
			continue
		case RecordHeaderBuildID:
			if len(raw) < buildIDEventFixed {
				return r.recordError(typ, off, inZ, 0, decode.ErrMalformed, "size %d, want at least %d", len(raw), buildIDEventFixed)
			}
			r.BuildIDs = append(r.BuildIDs, parseBuildID(raw))
			continue
		}
		skip, err := r.decodeRecord(rec, typ, raw, off, inZ)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		if r.ownBuffers {
			rec.own()
		}
		return nil
	}
}

func (r *Reader) recordError(typ RecordType, off int64, inZ bool, at int64, kind error, format string, args ...any) error {
	sec := "record " + typ.String()
	if inZ {
		sec = fmt.Sprintf("record %s at decompressed offset %#x of PERF_RECORD_COMPRESSED", typ, at)
		at = 0
	}
	return r.errorf(sec, off+at, kind, format, args...)
}

// nextRaw returns the next record's bytes (header included) and its
// offset: from the decompressed chunk while one lasts, else from the
// stream.
func (r *Reader) nextRaw() (raw []byte, off int64, inZ bool, err error) {
	if r.zpos < len(r.zbuf) {
		rest := r.zbuf[r.zpos:]
		if len(rest) >= 8 {
			n := int(binary.LittleEndian.Uint16(rest[6:]))
			if n < 8 {
				typ := RecordType(binary.LittleEndian.Uint32(rest))
				return nil, 0, false, r.recordError(typ, r.zoff, true, int64(r.zbase+r.zpos), decode.ErrMalformed, "record size %d, less than its header's 8 bytes", n)
			}
			if n <= len(rest) {
				r.zpos += n
				return rest[:n], r.zoff, true, nil
			}
		}
		// A record continues in the next compressed record, as perf
		// allows: keep its start.
		r.zkeep = append(r.zkeep[:0], rest...)
		r.zbuf, r.zpos = r.zbuf[:0], 0
	}
	start := r.off
	if r.end >= 0 && start >= r.end {
		return nil, 0, false, r.eof(start)
	}
	// The record is returned as a slice of src's buffer (no copy) when
	// the buffer holds it whole; a record with data after it is copied
	// out first, since skipping that data refills the buffer.
	h, err := r.src.Peek(8)
	if len(h) < 8 {
		if err == io.EOF && len(h) == 0 {
			return nil, 0, false, r.eof(start)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, 0, false, r.errorf("record header", start, decode.ErrTruncated, "truncated: need 8 bytes, have %d", len(h))
		}
		return nil, 0, false, err
	}
	typ := RecordType(binary.LittleEndian.Uint32(h))
	size := int(binary.LittleEndian.Uint16(h[6:]))
	if size < 8 {
		return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrMalformed, "record size %d, less than its header's 8 bytes", size)
	}
	raw, err = r.src.Peek(size)
	if len(raw) < size {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrTruncated, "truncated: size %d, have %d bytes", size, len(raw))
		}
		if err != bufio.ErrBufferFull {
			return nil, 0, false, err
		}
		// Larger than the buffer (a small input's buffer, and a
		// record that claims more than the input holds): read as before.
		if size > cap(r.rec) {
			r.rec = make([]byte, size)
		}
		if n, err := io.ReadFull(r.src, r.rec[:size]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrTruncated, "truncated: size %d, have %d bytes", size, n)
			}
			return nil, 0, false, err
		}
		raw = r.rec[:size]
	} else if _, err := r.src.Discard(size); err != nil {
		return nil, 0, false, err
	}
	r.off += int64(size)
	// Data that follows the record outside its size: an AUXTRACE's trace
	// (both modes) and a pipe's tracing data.
	var extra uint64
	switch {
	case typ == RecordAuxtrace && size >= 16:
		extra = binary.LittleEndian.Uint64(raw[8:])
	case typ == RecordHeaderTracing && r.Pipe && size >= 12:
		extra = uint64(binary.LittleEndian.Uint32(raw[8:]))
		extra = (extra + 7) &^ 7
	}
	if extra > 0 {
		raw = append(r.rec[:0], raw...)
		r.rec = raw
		if r.end >= 0 && extra > uint64(r.end-r.off) {
			return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrTruncated, "%d bytes of data follow the record, past the data section's end", extra)
		}
		if extra > 1<<62 {
			return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrMalformed, "%d bytes of data follow the record", extra)
		}
		n, err := io.CopyN(io.Discard, r.src, int64(extra))
		if err != nil {
			if err == io.EOF {
				return nil, 0, false, r.recordError(typ, start, false, 0, decode.ErrTruncated, "%d bytes of data follow the record, have %d", extra, n)
			}
			return nil, 0, false, err
		}
		r.off += int64(extra)
	}
	return raw, start, false, nil
}

func (r *Reader) eof(at int64) error {
	if len(r.zkeep) > 0 {
		return r.errorf("record in PERF_RECORD_COMPRESSED", r.zoff, decode.ErrTruncated, "the last compressed record ends inside a record (%d bytes of it)", len(r.zkeep))
	}
	return io.EOF
}

// decompress unpacks a PERF_RECORD_COMPRESSED (header, zstd data) or
// PERF_RECORD_COMPRESSED2 (header, u64 data size, zstd data, padding).
func (r *Reader) decompress(typ RecordType, raw []byte, off int64) error {
	payload := raw[8:]
	if typ == RecordCompressed2 {
		if len(raw) < 16 {
			return r.recordError(typ, off, false, 0, decode.ErrMalformed, "size %d, want at least 16", len(raw))
		}
		n := binary.LittleEndian.Uint64(raw[8:])
		if n > uint64(len(raw)-16) {
			return r.recordError(typ, off, false, 8, decode.ErrTruncated, "data size %d, have %d bytes", n, len(raw)-16)
		}
		payload = raw[16 : 16+n]
	}
	if r.z == nil {
		z, err := newZstream()
		if err != nil {
			return r.recordError(typ, off, false, 0, decode.ErrMalformed, "zstd: %v", err)
		}
		r.z = z
	}
	keep := len(r.zkeep)
	out := append(r.zbuf[:0], r.zkeep...)
	if err := r.z.decode(payload, &out); err != nil {
		return r.recordError(typ, off, false, 0, decode.ErrMalformed, "zstd: %v", err)
	}
	r.zbuf, r.zpos, r.zoff, r.zbase = out, 0, off, -keep
	r.zkeep = r.zkeep[:0]
	return nil
}

// headerAttr reads a pipe's PERF_RECORD_HEADER_ATTR: perf_event_attr, then
// the event's ids to the record's end.
func (r *Reader) headerAttr(raw []byte, off int64, inZ bool) error {
	c := decode.NewCursor("perfdata", r.Name, "record PERF_RECORD_HEADER_ATTR", raw, 8)
	a := r.parseAttr(&c)
	if err := c.Err(); err != nil {
		return r.relocate(err, off)
	}
	for c.Remaining() >= 8 {
		a.IDs = append(a.IDs, c.U64())
	}
	return r.addAttr(a, off+8)
}

// attrOf finds the event of a record whose id sits at u64 index pos of
// b (from the end when back).
func (r *Reader) attrOf(b []byte, pos int, back bool) (*Attr, bool) {
	if len(r.Attrs) == 1 || pos < 0 || (back && pos == 0) {
		return r.Attrs[0], true
	}
	at := pos * 8
	if back {
		at = len(b) - pos*8
	}
	if at < 0 || at+8 > len(b) {
		return r.Attrs[0], true // the decoder reports the truncation
	}
	a, ok := r.byID[binary.LittleEndian.Uint64(b[at:])]
	return a, ok
}

// decodeRecord fills rec from raw; skip is true for a sample of an unknown
// id (counted in UnknownIDs).
func (r *Reader) decodeRecord(rec *Record, typ RecordType, raw []byte, off int64, inZ bool) (skip bool, err error) {
	rec.Type = typ
	rec.Misc = binary.LittleEndian.Uint16(raw[4:])
	rec.Offset, rec.InCompressed = off, inZ
	rec.Raw = raw
	rec.HasSampleID = false
	at := int64(0)
	if inZ {
		at = int64(r.zbase + r.zpos - len(raw))
	}
	fail := func(c *decode.Cursor) error {
		var de *decode.Error
		if errors.As(c.Err(), &de) {
			return r.recordError(typ, off, inZ, at+de.Offset, de.Err, "%s", de.Msg)
		}
		return c.Err()
	}
	if typ == RecordSample {
		if len(r.Attrs) == 0 {
			return false, r.recordError(typ, off, inZ, at, decode.ErrMalformed, "a sample before any event attribute")
		}
		a, ok := r.attrOf(raw[8:], idPos(r.Attrs[0].SampleType), false)
		if !ok {
			r.UnknownIDs++
			return true, nil
		}
		if r.SkipSamples {
			rec.Sample = Sample{Attr: a, Callchain: rec.Sample.Callchain[:0], Branches: rec.Sample.Branches[:0]}
			return false, nil
		}
		c := decode.NewCursor("perfdata", "", "", raw, 8)
		r.decodeSample(&c, a, &rec.Sample)
		if c.Err() != nil {
			return false, fail(&c)
		}
		return false, nil
	}
	if typ >= RecordHeaderAttr || len(r.Attrs) == 0 {
		return false, nil
	}
	// A kernel record: its sample_id trailer, then its body.
	body := raw
	if r.Attrs[0].SampleIDAll() {
		a, ok := r.attrOf(raw, trailerIDPos(r.Attrs[0].SampleType), true)
		if !ok {
			a = r.Attrs[0]
		}
		n := trailerSize(a.SampleType)
		if n > len(raw)-8 {
			return false, r.recordError(typ, off, inZ, at, decode.ErrTruncated, "size %d leaves no room for the %d-byte sample_id trailer", len(raw), n)
		}
		body = raw[:len(raw)-n]
		tc := decode.NewCursor("perfdata", "", "", raw, len(raw)-n)
		decodeTrailer(&tc, a.SampleType, &rec.SampleID)
		rec.HasSampleID = true
	}
	c := decode.NewCursor("perfdata", "", "", body, 8)
	switch typ {
	case RecordMmap, RecordMmap2:
		m := &rec.Mmap
		m.PID, m.TID = c.U32(), c.U32()
		m.Addr, m.Len, m.PgOff = c.U64(), c.U64(), c.U64()
		m.Maj, m.Min, m.Ino, m.InoGeneration, m.Prot, m.Flags = 0, 0, 0, 0, 0, 0
		m.BuildID = m.BuildID[:0]
		if typ == RecordMmap2 {
			if rec.Misc&MiscMmapBuildID != 0 {
				n := int(c.U8())
				c.Skip(3)
				id := c.Bytes(20)
				if n > len(id) {
					n = len(id)
				}
				m.BuildID = append(m.BuildID, id[:n]...)
			} else {
				m.Maj, m.Min = c.U32(), c.U32()
				m.Ino, m.InoGeneration = c.U64(), c.U64()
			}
			m.Prot, m.Flags = c.U32(), c.U32()
		}
		if c.Err() == nil {
			m.Filename = cstring(body[c.Off():])
		}
	case RecordComm:
		rec.Comm.PID, rec.Comm.TID = c.U32(), c.U32()
		if c.Err() == nil {
			rec.Comm.Comm = cstring(body[c.Off():])
		}
	case RecordFork, RecordExit:
		f := &rec.Fork
		f.PID, f.PPID, f.TID, f.PTID = c.U32(), c.U32(), c.U32(), c.U32()
		f.Time = c.U64()
	case RecordLost:
		rec.Lost.ID, rec.Lost.Lost = c.U64(), c.U64()
	case RecordThrottle, RecordUnthrottle:
		t := &rec.Throttle
		t.Time, t.ID, t.StreamID = c.U64(), c.U64(), c.U64()
	}
	if c.Err() != nil {
		return false, fail(&c)
	}
	return false, nil
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func decodeTrailer(c *decode.Cursor, t SampleType, s *SampleIDTrailer) {
	*s = SampleIDTrailer{}
	if t&SampleTID != 0 {
		s.PID, s.TID = c.U32(), c.U32()
	}
	if t&SampleTime != 0 {
		s.Time = c.U64()
	}
	if t&SampleID != 0 {
		s.ID = c.U64()
	}
	if t&SampleStreamID != 0 {
		s.StreamID = c.U64()
	}
	if t&SampleCPU != 0 {
		s.CPU = c.U32()
		c.Skip(4)
	}
	if t&SampleIdentifier != 0 {
		s.ID = c.U64()
	}
}

// decodeSample reads a PERF_RECORD_SAMPLE's fields in sample_type's order.
func (r *Reader) decodeSample(c *decode.Cursor, a *Attr, s *Sample) {
	t := a.SampleType
	cc, br := s.Callchain[:0], s.Branches[:0]
	*s = Sample{Attr: a, Callchain: cc, Branches: br}
	if t&SampleIdentifier != 0 {
		s.ID = c.U64()
	}
	if t&SampleIP != 0 {
		s.IP = c.U64()
	}
	if t&SampleTID != 0 {
		s.PID, s.TID = c.U32(), c.U32()
	}
	if t&SampleTime != 0 {
		s.Time = c.U64()
	}
	if t&SampleAddr != 0 {
		s.Addr = c.U64()
	}
	if t&SampleID != 0 {
		s.ID = c.U64()
	}
	if t&SampleStreamID != 0 {
		s.StreamID = c.U64()
	}
	if t&SampleCPU != 0 {
		s.CPU = c.U32()
		c.Skip(4)
	}
	if t&SamplePeriod != 0 {
		s.Period = c.U64()
	}
	if t&SampleRead != 0 {
		skipRead(c, a.ReadFormat)
	}
	if t&SampleCallchain != 0 {
		n := c.Count(8, "callchain entries")
		b := c.Bytes(8 * uint64(n))
		for i := 0; i+8 <= len(b); i += 8 {
			s.Callchain = append(s.Callchain, binary.LittleEndian.Uint64(b[i:]))
		}
	}
	if t&SampleRaw != 0 {
		c.Skip(uint64(c.U32()))
	}
	if t&SampleBranchStack != 0 {
		at := c.Off()
		n := c.U64()
		if a.BranchSampleType&BranchHWIndex != 0 {
			s.HWIndex, s.HasHWIndex = c.U64(), true
		}
		per := uint64(24)
		if a.BranchSampleType&BranchCounters != 0 {
			per += 8
		}
		if c.Err() == nil && n > uint64(c.Remaining())/per {
			c.FailAt(int64(at), decode.ErrTruncated, "branch stack of %d entries needs %d bytes each, have %d", n, per, c.Remaining())
		}
		if c.Err() == nil {
			b := c.Bytes(24 * n)
			for i := 0; i+24 <= len(b); i += 24 {
				e := b[i : i+24]
				s.Branches = append(s.Branches, BranchEntry{From: binary.LittleEndian.Uint64(e), To: binary.LittleEndian.Uint64(e[8:]), Flags: binary.LittleEndian.Uint64(e[16:])})
			}
			if a.BranchSampleType&BranchCounters != 0 {
				c.Skip(8 * n)
			}
		}
	}
	if t&SampleRegsUser != 0 {
		skipRegs(c, a.SampleRegsUser)
	}
	if t&SampleStackUser != 0 {
		if n := c.U64(); n != 0 {
			c.Skip(n)
			c.Skip(8) // dyn_size
		}
	}
	if t&(SampleWeight|SampleWeightStruct) != 0 {
		s.Weight = c.U64()
	}
	if t&SampleDataSrc != 0 {
		s.DataSrc = c.U64()
	}
	if t&SampleTransaction != 0 {
		c.Skip(8)
	}
	if t&SampleRegsIntr != 0 {
		skipRegs(c, a.SampleRegsIntr)
	}
	if t&SamplePhysAddr != 0 {
		s.PhysAddr = c.U64()
	}
	if t&SampleCgroup != 0 {
		c.Skip(8)
	}
	if t&SampleDataPageSize != 0 {
		c.Skip(8)
	}
	if t&SampleCodePageSize != 0 {
		c.Skip(8)
	}
	if t&SampleAux != 0 {
		c.Skip(c.U64())
	}
}

// skipRead skips a read_format value: {value, [enabled], [running], [id],
// [lost]}, or with PERF_FORMAT_GROUP {nr, [enabled], [running], nr ×
// {value, [id], [lost]}}.
func skipRead(c *decode.Cursor, f ReadFormat) {
	times := uint64(0)
	if f&FormatTotalTimeEnabled != 0 {
		times += 8
	}
	if f&FormatTotalTimeRunning != 0 {
		times += 8
	}
	per := uint64(8)
	if f&FormatID != 0 {
		per += 8
	}
	if f&FormatLost != 0 {
		per += 8
	}
	if f&FormatGroup == 0 {
		c.Skip(times + per)
		return
	}
	at := c.Off()
	n := c.U64()
	c.Skip(times)
	if c.Err() == nil && n > uint64(c.Remaining())/per {
		c.FailAt(int64(at), decode.ErrTruncated, "read group of %d values needs %d bytes each, have %d", n, per, c.Remaining())
		return
	}
	c.Skip(n * per)
}

// skipRegs skips {abi, regs[popcount(mask)]}; regs are absent when abi is
// PERF_SAMPLE_REGS_ABI_NONE.
func skipRegs(c *decode.Cursor, mask uint64) {
	if c.U64() != 0 {
		c.Skip(8 * uint64(bits.OnesCount64(mask)))
	}
}
