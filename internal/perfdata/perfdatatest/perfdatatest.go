// Package perfdatatest writes perf.data files for tests: small ones for
// the reader's fuzz seeds and bad-input tests, and LBR recordings built
// from lbr-trace's perf script traces, which the tests prove valid by
// running the real perf on them. It is test code: nothing outside tests
// imports it.
package perfdatatest

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/rules-pgo/rules_pgo/internal/perfdata"
)

const attrSize = 128 // PERF_ATTR_SIZE_VER7, what perf 6.1 writes

// File is a perf.data to write: events, then records in order.
type File struct {
	Attrs    []*perfdata.Attr
	Records  [][]byte
	BuildIDs []perfdata.BuildID
	// Zstd writes the HEADER_COMPRESSED feature (zstd, level 1, this
	// mmap_len), without which perf does not decompress
	// PERF_RECORD_COMPRESSED records.
	Zstd uint32
}

func u16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func u32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func u64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AttrBytes encodes a perf_event_attr of 128 bytes.
func AttrBytes(a *perfdata.Attr) []byte {
	b := make([]byte, 0, attrSize)
	b = u32(b, a.Type)
	b = u32(b, attrSize)
	b = u64(b, a.Config)
	b = u64(b, a.SamplePeriod)
	b = u64(b, uint64(a.SampleType))
	b = u64(b, uint64(a.ReadFormat))
	b = u64(b, a.Flags)
	b = u32(b, 0) // wakeup_events
	b = u32(b, 0) // bp_type
	b = u64(b, 0) // config1
	b = u64(b, 0) // config2
	b = u64(b, a.BranchSampleType)
	b = u64(b, a.SampleRegsUser)
	b = u32(b, a.SampleStackUser)
	b = u32(b, 0) // clockid
	b = u64(b, a.SampleRegsIntr)
	for len(b) < attrSize {
		b = append(b, 0)
	}
	return b
}

// Record wraps body in a perf_event_header; body is padded to 8 bytes.
func Record(typ perfdata.RecordType, misc uint16, body []byte) []byte {
	for len(body)%8 != 0 {
		body = append(body, 0)
	}
	return Unpadded(typ, misc, body)
}

// Unpadded wraps body in a perf_event_header as it is: perf writes
// PERF_RECORD_COMPRESSED's zstd data unpadded.
func Unpadded(typ perfdata.RecordType, misc uint16, body []byte) []byte {
	b := u32(nil, uint32(typ))
	b = u16(b, misc)
	b = u16(b, uint16(8+len(body)))
	return append(b, body...)
}

// Trailer encodes the sample_id trailer of a non-sample record.
func Trailer(t perfdata.SampleType, s perfdata.SampleIDTrailer) []byte {
	var b []byte
	if t&perfdata.SampleTID != 0 {
		b = u32(u32(b, s.PID), s.TID)
	}
	if t&perfdata.SampleTime != 0 {
		b = u64(b, s.Time)
	}
	if t&perfdata.SampleID != 0 {
		b = u64(b, s.ID)
	}
	if t&perfdata.SampleStreamID != 0 {
		b = u64(b, s.StreamID)
	}
	if t&perfdata.SampleCPU != 0 {
		b = u32(u32(b, s.CPU), 0)
	}
	if t&perfdata.SampleIdentifier != 0 {
		b = u64(b, s.ID)
	}
	return b
}

func cstr(b []byte, s string) []byte {
	b = append(b, s...)
	b = append(b, 0)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// Mmap2 encodes a PERF_RECORD_MMAP2 (the inode form, or the build-id form
// when m.BuildID is set).
func Mmap2(a *perfdata.Attr, misc uint16, m perfdata.Mmap, id perfdata.SampleIDTrailer) []byte {
	b := u32(u32(nil, m.PID), m.TID)
	b = u64(u64(u64(b, m.Addr), m.Len), m.PgOff)
	if m.BuildID != nil {
		misc |= perfdata.MiscMmapBuildID
		b = append(b, byte(len(m.BuildID)), 0, 0, 0)
		var id [20]byte
		copy(id[:], m.BuildID)
		b = append(b, id[:]...)
	} else {
		b = u32(u32(b, m.Maj), m.Min)
		b = u64(u64(b, m.Ino), m.InoGeneration)
	}
	b = u32(u32(b, m.Prot), m.Flags)
	b = cstr(b, m.Filename)
	return Record(perfdata.RecordMmap2, misc, append(b, trailer(a, id)...))
}

// Comm encodes a PERF_RECORD_COMM.
func Comm(a *perfdata.Attr, misc uint16, c perfdata.Comm, id perfdata.SampleIDTrailer) []byte {
	b := cstr(u32(u32(nil, c.PID), c.TID), c.Comm)
	return Record(perfdata.RecordComm, misc, append(b, trailer(a, id)...))
}

// Fork encodes a PERF_RECORD_FORK or PERF_RECORD_EXIT.
func Fork(a *perfdata.Attr, typ perfdata.RecordType, f perfdata.Fork, id perfdata.SampleIDTrailer) []byte {
	b := u32(u32(u32(u32(nil, f.PID), f.PPID), f.TID), f.PTID)
	b = u64(b, f.Time)
	return Record(typ, 0, append(b, trailer(a, id)...))
}

func trailer(a *perfdata.Attr, id perfdata.SampleIDTrailer) []byte {
	if !a.SampleIDAll() {
		return nil
	}
	return Trailer(a.SampleType, id)
}

// Sample encodes a PERF_RECORD_SAMPLE of the fields a's sample_type
// selects among IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD,
// CALLCHAIN, BRANCH_STACK and IDENTIFIER.
func Sample(a *perfdata.Attr, misc uint16, s *perfdata.Sample) []byte {
	t := a.SampleType
	var b []byte
	if t&perfdata.SampleIdentifier != 0 {
		b = u64(b, s.ID)
	}
	if t&perfdata.SampleIP != 0 {
		b = u64(b, s.IP)
	}
	if t&perfdata.SampleTID != 0 {
		b = u32(u32(b, s.PID), s.TID)
	}
	if t&perfdata.SampleTime != 0 {
		b = u64(b, s.Time)
	}
	if t&perfdata.SampleAddr != 0 {
		b = u64(b, s.Addr)
	}
	if t&perfdata.SampleID != 0 {
		b = u64(b, s.ID)
	}
	if t&perfdata.SampleStreamID != 0 {
		b = u64(b, s.StreamID)
	}
	if t&perfdata.SampleCPU != 0 {
		b = u32(u32(b, s.CPU), 0)
	}
	if t&perfdata.SamplePeriod != 0 {
		b = u64(b, s.Period)
	}
	if t&perfdata.SampleCallchain != 0 {
		b = u64(b, uint64(len(s.Callchain)))
		for _, v := range s.Callchain {
			b = u64(b, v)
		}
	}
	if t&perfdata.SampleBranchStack != 0 {
		b = u64(b, uint64(len(s.Branches)))
		if a.BranchSampleType&perfdata.BranchHWIndex != 0 {
			b = u64(b, s.HWIndex)
		}
		for _, e := range s.Branches {
			b = u64(u64(u64(b, e.From), e.To), e.Flags)
		}
	}
	return Record(perfdata.RecordSample, misc, b)
}

// FinishedRound is a PERF_RECORD_FINISHED_ROUND.
func FinishedRound() []byte { return Record(perfdata.RecordFinishedRound, 0, nil) }

func buildIDRecord(id perfdata.BuildID) []byte {
	b := u32(nil, uint32(id.PID))
	var bid [24]byte
	copy(bid[:], id.BuildID)
	bid[20] = byte(len(id.BuildID))
	b = append(b, bid[:]...)
	// perf pads the name to 64 bytes (NAME_ALIGN).
	name := append([]byte(id.Filename), 0)
	for len(name)%64 != 0 {
		name = append(name, 0)
	}
	b = append(b, name...)
	return Record(perfdata.RecordHeaderBuildID, id.CPUMode|perfdata.MiscBuildIDSize, b)
}

// Bytes writes the file in file mode: header, the attrs' ids, the attrs,
// the data, then the build-id feature's section when there are build ids.
func (f *File) Bytes() []byte {
	const hdr = 104
	var ids []byte
	idOff := make([]uint64, len(f.Attrs))
	for i, a := range f.Attrs {
		idOff[i] = hdr + uint64(len(ids))
		for _, id := range a.IDs {
			ids = u64(ids, id)
		}
	}
	attrsOff := hdr + uint64(len(ids))
	var attrs []byte
	for i, a := range f.Attrs {
		attrs = append(attrs, AttrBytes(a)...)
		attrs = u64(u64(attrs, idOff[i]), uint64(8*len(a.IDs)))
	}
	dataOff := attrsOff + uint64(len(attrs))
	var data []byte
	for _, r := range f.Records {
		data = append(data, r...)
	}
	featOff := dataOff + uint64(len(data))
	var features [4]uint64
	var secs [][]byte // in feature bit order
	if len(f.BuildIDs) > 0 {
		features[0] |= 1 << perfdata.FeatureBuildID
		var sec []byte
		for _, id := range f.BuildIDs {
			sec = append(sec, buildIDRecord(id)...)
		}
		secs = append(secs, sec)
	}
	if f.Zstd != 0 {
		// version, type (PERF_COMP_ZSTD), level, ratio, mmap_len
		features[0] |= 1 << perfdata.FeatureCompressed
		secs = append(secs, u32(u32(u32(u32(u32(nil, 0), 1), 1), 1), f.Zstd))
	}
	// The table of {offset, size}, then the sections.
	var table, body []byte
	at := featOff + uint64(16*len(secs))
	for _, sec := range secs {
		table = u64(u64(table, at), uint64(len(sec)))
		body = append(body, sec...)
		at += uint64(len(sec))
	}
	feat := append(table, body...)
	b := u64(nil, perfdata.Magic)
	b = u64(b, hdr)
	b = u64(b, attrSize+16)
	b = u64(u64(b, attrsOff), uint64(len(attrs)))
	b = u64(u64(b, dataOff), uint64(len(data)))
	b = u64(u64(b, 0), 0)
	for _, w := range features {
		b = u64(b, w)
	}
	b = append(b, ids...)
	b = append(b, attrs...)
	b = append(b, data...)
	return append(b, feat...)
}

// PipeBytes writes the file in pipe mode: the 16-byte header, a
// PERF_RECORD_HEADER_ATTR per event, the records, then the build ids as
// PERF_RECORD_HEADER_BUILD_ID records.
func (f *File) PipeBytes() []byte {
	b := u64(nil, perfdata.Magic)
	b = u64(b, 16)
	for _, a := range f.Attrs {
		body := AttrBytes(a)
		for _, id := range a.IDs {
			body = u64(body, id)
		}
		b = append(b, Record(perfdata.RecordHeaderAttr, 0, body)...)
	}
	for _, r := range f.Records {
		b = append(b, r...)
	}
	for _, id := range f.BuildIDs {
		b = append(b, buildIDRecord(id)...)
	}
	return b
}

// Clone returns a copy of a with ids.
func Clone(a *perfdata.Attr, ids ...uint64) *perfdata.Attr {
	c := *a
	c.IDs = slices.Clone(ids)
	return &c
}

// Compressed returns f with its records after the first (perf writes its
// synthesized records before the ring buffers' compressed data) turned
// into PERF_RECORD_COMPRESSED records of one zstd stream, flushed every
// chunk bytes (cutting records in two, as perf's ring-buffer halves do),
// the FINISHED_ROUND records left uncompressed between them, as perf record
// -z writes them.
func Compressed(f *File, chunk int) (*File, error) {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<16))
	if err != nil {
		return nil, err
	}
	g := *f
	g.Zstd = 512 << 10
	g.Records = [][]byte{f.Records[0]}
	var pending []byte
	flush := func() {
		for len(pending) > 0 {
			n := min(len(pending), chunk)
			w.Write(pending[:n])
			w.Flush()
			pending = pending[n:]
			g.Records = append(g.Records, Unpadded(perfdata.RecordCompressed, 0, bytes.Clone(buf.Bytes())))
			buf.Reset()
		}
	}
	for _, r := range f.Records[1:] {
		if perfdata.RecordType(binary.LittleEndian.Uint32(r)) == perfdata.RecordFinishedRound {
			flush()
			g.Records = append(g.Records, r)
			continue
		}
		pending = append(pending, r...)
	}
	flush()
	return &g, nil
}
