package instrprof

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/ondiskhash"
)

// Header is IndexedInstrProf::Header. Fields the file's index version lacks
// are zero.
type Header struct {
	Magic                    uint64
	Version                  uint64 // index version in the low 32 bits, variant flags above
	Unused                   uint64
	HashType                 uint64
	HashOffset               uint64
	MemProfOffset            uint64
	BinaryIdOffset           uint64
	TemporalProfTracesOffset uint64
	VTableNamesOffset        uint64
}

// fields are the header's fields in file order, those of its index version
// (Version must be set): the layout Read and ReadHeader decode.
//
//	0   Magic, Version, Unused, HashType, HashOffset    every version
//	40  MemProfOffset                                   version 8 and later
//	48  BinaryIdOffset                                  9 and later
//	56  TemporalProfTracesOffset                        10 and later
//	64  VTableNamesOffset                               12 and later
func (h *Header) fields() []*uint64 {
	f := []*uint64{&h.Magic, &h.Version, &h.Unused, &h.HashType, &h.HashOffset}
	v := h.IndexVersion()
	if v >= 8 {
		f = append(f, &h.MemProfOffset)
	}
	if v >= 9 {
		f = append(f, &h.BinaryIdOffset)
	}
	if v >= 10 {
		f = append(f, &h.TemporalProfTracesOffset)
	}
	if v >= 12 {
		f = append(f, &h.VTableNamesOffset)
	}
	return f
}

// headerPrefixSize is the size of the fields every index version has.
const headerPrefixSize = 5 * 8

// ReadHeader reads the header at the start of the indexed profile in r
// without decoding the rest of the file: what a caller needs to route the
// file before it reads it whole (r is the file already open). The fields
// every index version has must be there; the later fields of the file's
// index version are read as far as the file holds them (zero past its
// end). Nothing else is checked: Read checks the version, the hash type
// and every field. Errors are *decode.Error values wrapping
// decode.ErrBadMagic or decode.ErrTruncated, or the error of r.
func ReadHeader(name string, r io.ReaderAt) (*Header, error) {
	var b [9 * 8]byte
	n, err := r.ReadAt(b[:], 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	c := decode.NewCursor("instrprof", name, "header", b[:n], 0)
	h := &Header{}
	if h.Magic = c.U64(); c.Err() == nil && h.Magic != Magic {
		return nil, c.Errorf(0, decode.ErrBadMagic, "bad magic %#x, want %#x", h.Magic, uint64(Magic))
	}
	h.Version = c.U64()
	if n < headerPrefixSize {
		return nil, c.Errorf(int64(n), decode.ErrTruncated, "truncated header (need %d bytes, have %d)", headerPrefixSize, n)
	}
	for _, field := range h.fields()[2:] {
		if c.Remaining() < 8 {
			break
		}
		*field = c.U64()
	}
	return h, nil
}

// ReadFunctionCount reads the entry count of the function table of the
// indexed profile in r whose header is h (NumEntries of the
// OnDiskChainedHashTable at h.HashOffset), without checking the table:
// Read does. Errors are *decode.Error values wrapping decode.ErrMalformed
// (an offset past the end) or decode.ErrTruncated, or the error of r.
func ReadFunctionCount(name string, r io.ReaderAt, h *Header) (uint64, error) {
	var b [16]byte // NumBuckets, NumEntries
	n, err := 0, error(nil)
	if int64(h.HashOffset) >= 0 {
		n, err = r.ReadAt(b[:], int64(h.HashOffset))
	}
	switch {
	case n == len(b):
	case err != nil && err != io.EOF:
		return 0, err
	case n == 0:
		return 0, &decode.Error{Format: "instrprof", File: name, Section: "header", Offset: 32, Err: decode.ErrMalformed,
			Msg: fmt.Sprintf("function table offset %#x is past the end", h.HashOffset)}
	default:
		return 0, &decode.Error{Format: "instrprof", File: name, Section: "function table", Offset: int64(h.HashOffset), Err: decode.ErrTruncated,
			Msg: fmt.Sprintf("truncated table header (need %d bytes, have %d)", len(b), n)}
	}
	return le.Uint64(b[8:]), nil
}

// IndexVersion returns the low 32 bits of Version.
func (h *Header) IndexVersion() int { return int(uint32(h.Version)) }

// HasMemProf reports whether the MemProf variant bit is set.
func (h *Header) HasMemProf() bool { return h.Version&VariantMemProf != 0 }

// SummaryEntry is one cutoff of a ProfileSummary.
type SummaryEntry struct {
	Cutoff, MinCount, NumCounts uint64
}

// ProfileSummary is IndexedInstrProf::Summary.
type ProfileSummary struct {
	Fields  []uint64 // TotalNumFunctions, TotalNumBlocks, MaxFunctionCount, ...
	Entries []SummaryEntry
}

// File is a decoded indexed profile.
type File struct {
	Header    Header
	Summary   ProfileSummary
	CSSummary *ProfileSummary // only with the CS variant bit
	// NumFunctions is the entry count of the function table (0 for
	// memprof-only files); function records are not decoded.
	NumFunctions uint64

	// MemProfVersion is the MemProf section version, -1 without a section.
	MemProfVersion int
	Schema         []memprof.Meta
	MemProfSummary *memprof.Summary // V4 only
	// DataAccessProfOffset is the V4 data-access profile offset (0 = none);
	// the data-access profile itself is not decoded.
	DataAccessProfOffset uint64
	// Profile holds the MemProf records in on-disk (bucket) order with their
	// frames resolved. Frames is the frame table/array order and, for V2,
	// CallStacks the call-stack table order.
	Profile *memprof.Profile

	BinaryIDs   [][]byte
	VTableNames []byte // the (possibly compressed) name blob as stored

	// Funcs, Traces and TraceStreamSize are the function records (in
	// on-disk order) and temporal profiling traces; only ReadFuncs fills
	// them.
	Funcs           []FuncRecord
	Traces          []TemporalTrace
	TraceStreamSize uint64

	frameKeys, stackKeys []uint64 // V0–V2 table keys, parallel to Profile.Frames/CallStacks
	funcPayload          uint64   // where the function table's items may start (after the summaries)
}

// profileForWrite returns a shallow copy of f.Profile whose Records (and,
// for V2 files of LLVM 20+, Frames and CallStacks) are permuted into an
// insertion order that makes Write with the file's options reproduce the
// on-disk hash tables. For tables of fewer than 47 entries that is the
// on-disk order itself. For LLVM 19 and older, V0–V2 frame and call-stack
// tables are filled in DenseMap iteration order, which Write recomputes;
// their order here is one whose DenseMap order reproduces the table (see
// denseInsertionOrder).
func (f *File) profileForWrite(release llvmrelease.Release) *memprof.Profile {
	if f.Profile == nil {
		return nil
	}
	p := *f.Profile
	guids := make([]uint64, len(p.Records))
	for i, r := range p.Records {
		guids[i] = r.GUID
	}
	p.Records = permute(p.Records, ondiskhash.InsertionOrder(guids))
	switch {
	case f.MemProfVersion == 2 && !release.MemProfDenseMapOrder():
		p.Frames = permute(p.Frames, ondiskhash.InsertionOrder(f.frameKeys))
		p.CallStacks = permute(p.CallStacks, ondiskhash.InsertionOrder(f.stackKeys))
	case f.MemProfVersion <= 2 && release.MemProfDenseMapOrder():
		p.Frames = permute(p.Frames, denseInsertionOrder(release, f.frameKeys))
		p.CallStacks = permute(p.CallStacks, denseInsertionOrder(release, f.stackKeys))
	}
	return &p
}

// denseInsertionOrder returns an order of keys (indexes into keys, the
// on-disk order of a V0–V2 frame or call-stack table written by LLVM ≤ 19)
// whose insertion into an emulated DenseMap yields an iteration order that
// reproduces that table. The iteration order is fixed by the key set except
// inside DenseMap collision clusters, where it depends on which key came
// first; where the layout disagrees with the table, the two keys at the
// first differing position swap insertion places, until the layout matches
// (or the search gives up and keeps its best guess).
func denseInsertionOrder(release llvmrelease.Release, keys []uint64) []int {
	ins := slices.Clone(keys)
	pos := make(map[uint64]int, len(ins))
	for i, k := range ins {
		pos[k] = i
	}
	hashes := make([]uint64, len(keys))
	for tries := 0; tries < 4*len(keys)+4; tries++ {
		hashes = hashes[:0]
		for _, j := range memprofidx.DenseOrder(release, ins) {
			hashes = append(hashes, ins[j])
		}
		var a, b uint64
		for i, j := range ondiskhash.New(hashes).Order {
			if got := hashes[j]; got != keys[i] && a == b {
				a, b = keys[i], got
			}
		}
		if a == b {
			break
		}
		pa, pb := pos[a], pos[b]
		ins[pa], ins[pb] = b, a
		pos[a], pos[b] = pb, pa
	}
	idx := make(map[uint64]int, len(keys))
	for i, k := range keys {
		idx[k] = i
	}
	out := make([]int, len(ins))
	for i, k := range ins {
		out[i] = idx[k]
	}
	return out
}

func permute[T any](s []T, order []int) []T {
	if len(order) != len(s) {
		return s
	}
	out := make([]T, len(s))
	for i, j := range order {
		out[i] = s[j]
	}
	return out
}

const variantCSIR = 1 << 57

// Open reads and decodes the named file.
func Open(name string) (*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Read(name, data)
}

// Read decodes an indexed profile. name is used in error messages only.
// Errors are *decode.Error values (Format "instrprof", Offset absolute in
// the file) wrapping decode.ErrBadMagic, ErrUnsupportedVersion,
// ErrTruncated or ErrMalformed. MemProf records are returned in on-disk
// order (the order llvm-profdata show prints); use profileForWrite to
// re-write the file byte for byte.
func Read(name string, data []byte) (*File, error) {
	cur := decode.NewCursor("instrprof", name, "header", data, 0)
	c := &cur
	f := &File{MemProfVersion: -1}
	h := &f.Header
	if len(data) < 8 {
		c.Fail(decode.ErrTruncated, "truncated header (need 8 bytes, have %d)", len(data))
		return nil, c.Err()
	}
	h.Magic = c.U64()
	if h.Magic != Magic {
		c.FailAt(0, decode.ErrBadMagic, "bad magic %#x, want %#x", h.Magic, uint64(Magic))
		return nil, c.Err()
	}
	h.Version = c.U64()
	v := h.IndexVersion()
	if v < 1 || v > 13 {
		c.FailAt(8, decode.ErrUnsupportedVersion, "unsupported index version %d (want 1..13)", v)
		return nil, c.Err()
	}
	for _, field := range h.fields()[2:] {
		*field = c.U64()
	}
	if c.Err() != nil {
		return nil, c.Err()
	}
	// LLVM reads the hash type as its 32-bit IndexedInstrProf::HashT:
	// the upper half of the field is never looked at.
	if uint32(h.HashType) != 0 {
		c.FailAt(24, decode.ErrMalformed, "unsupported hash type %d (want 0 = MD5)", uint32(h.HashType))
		return nil, c.Err()
	}
	if v >= 4 {
		c.Section = "profile summary"
		f.Summary = readSummary(c)
		if h.Version&variantCSIR != 0 {
			c.Section = "context-sensitive profile summary"
			s := readSummary(c)
			f.CSSummary = &s
		}
		if c.Err() != nil {
			return nil, c.Err()
		}
	}
	f.funcPayload = uint64(c.Off())
	var err error
	if f.NumFunctions, err = readFunctionTable(name, data, h.HashOffset); err != nil {
		return nil, err
	}
	if v >= 8 && h.HasMemProf() {
		d, err := memprofidx.ReadSection(name, data, h.MemProfOffset)
		if err != nil {
			return nil, err
		}
		f.MemProfVersion, f.Schema, f.MemProfSummary = d.Version, d.Schema, d.Summary
		f.DataAccessProfOffset, f.Profile = d.DataAccessProfOffset, d.Profile
		f.frameKeys, f.stackKeys = d.FrameKeys, d.StackKeys
	}
	if v >= 9 && h.BinaryIdOffset != 0 {
		c.Section = "binary ids"
		c.Seek(h.BinaryIdOffset)
		size := c.U64()
		if c.Err() == nil && size > uint64(c.Remaining()) {
			c.Fail(decode.ErrTruncated, "truncated binary id section (need %d bytes, have %d)", size, c.Remaining())
		}
		if c.Err() != nil {
			return nil, c.Err()
		}
		body := decode.NewCursor("instrprof", name, "binary ids", data[:c.Off()+int(size)], c.Off())
		for body.Err() == nil && body.Remaining() > 0 {
			n := body.U64()
			id := body.Bytes(n)
			if body.Err() == nil {
				f.BinaryIDs = append(f.BinaryIDs, id)
				body.Bytes(uint64((8 - n%8) % 8))
			}
		}
		if body.Err() != nil {
			return nil, body.Err()
		}
	}
	if v >= 12 && h.VTableNamesOffset != 0 {
		c.Section = "vtable names"
		c.Seek(h.VTableNamesOffset)
		n := c.U64()
		f.VTableNames = c.Bytes(n)
	}
	if c.Err() != nil {
		return nil, c.Err()
	}
	return f, nil
}

func readSummary(c *decode.Cursor) ProfileSummary {
	var s ProfileSummary
	nf := c.Count(8, "summary field count")
	ne := c.Count(24, "summary entry count")
	if c.Err() != nil {
		return s
	}
	if nf*8+ne*24 > c.Remaining() {
		c.Fail(decode.ErrTruncated, "truncated profile summary (need %d bytes, have %d)", nf*8+ne*24, c.Remaining())
		return s
	}
	s.Fields = make([]uint64, nf)
	for i := range s.Fields {
		s.Fields[i] = c.U64()
	}
	s.Entries = make([]SummaryEntry, ne)
	for i := range s.Entries {
		s.Entries[i] = SummaryEntry{c.U64(), c.U64(), c.U64()}
	}
	return s
}

// readFunctionTable validates the function table's bucket array and
// returns its entry count.
func readFunctionTable(name string, data []byte, tableOff uint64) (uint64, error) {
	c := decode.NewCursor("instrprof", name, "function table", data, 0)
	c.Seek(tableOff)
	nb, ne := container.TableHeader(&c)
	if c.Err() != nil {
		return 0, c.Err()
	}
	for range nb {
		at := c.Off()
		o := c.U64()
		if o != 0 && o >= tableOff {
			c.FailAt(int64(at), decode.ErrMalformed, "bucket offset %#x is not before the table at %#x", o, tableOff)
		}
	}
	return ne, c.Err()
}
