package instrprof

import (
	"os"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
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
	MemProfSummary *MemProfSummary // V4 only
	// DataAccessProfOffset is the V4 data-access profile offset (0 = none);
	// the data-access profile itself is not decoded.
	DataAccessProfOffset uint64
	// Profile holds the MemProf records in on-disk (bucket) order with their
	// frames resolved. Frames is the frame table/array order and, for V2,
	// CallStacks the call-stack table order.
	Profile *memprof.Profile

	BinaryIDs   [][]byte
	VTableNames []byte // the (possibly compressed) name blob as stored

	frameKeys, stackKeys []uint64 // V0–V2 table keys, parallel to Profile.Frames/CallStacks
}

// ProfileForWrite returns a shallow copy of f.Profile whose Records (and,
// for V2 files of LLVM 20+, Frames and CallStacks) are permuted into an
// insertion order that makes Write with the file's options reproduce the
// on-disk hash tables. For tables of fewer than 47 entries that is the
// on-disk order itself. For LLVM 19 and older, V0–V2 frame and call-stack
// tables are filled in DenseMap iteration order, which Write recomputes;
// their order here is one whose DenseMap order reproduces the table (see
// denseInsertionOrder).
func (f *File) ProfileForWrite(release int) *memprof.Profile {
	if f.Profile == nil {
		return nil
	}
	p := *f.Profile
	guids := make([]uint64, len(p.Records))
	for i, r := range p.Records {
		guids[i] = r.GUID
	}
	p.Records = permute(p.Records, odInsertionOrder(guids))
	switch {
	case f.MemProfVersion == 2 && release >= 20:
		p.Frames = permute(p.Frames, odInsertionOrder(f.frameKeys))
		p.CallStacks = permute(p.CallStacks, odInsertionOrder(f.stackKeys))
	case f.MemProfVersion <= 2 && release <= 19:
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
func denseInsertionOrder(release int, keys []uint64) []int {
	ins := slices.Clone(keys)
	pos := make(map[uint64]int, len(ins))
	for i, k := range ins {
		pos[k] = i
	}
	hashes := make([]uint64, len(keys))
	for tries := 0; tries < 4*len(keys)+4; tries++ {
		hashes = hashes[:0]
		for _, j := range denseOrder(release, ins) {
			hashes = append(hashes, ins[j])
		}
		var a, b uint64
		for i, j := range newODLayout(hashes).order {
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
// Errors are *DecodeError values wrapping ErrBadMagic,
// ErrUnsupportedVersion, ErrTruncated or ErrMalformed. MemProf records are
// returned in on-disk order (the order llvm-profdata show prints); use
// ProfileForWrite to re-write the file byte for byte.
func Read(name string, data []byte) (*File, error) {
	c := &cursor{name: name, data: data, end: len(data), section: "header"}
	f := &File{MemProfVersion: -1}
	h := &f.Header
	if len(data) < 8 {
		c.fail(ErrTruncated, "truncated header (need 8 bytes, have %d)", len(data))
		return nil, c.err
	}
	h.Magic = c.u64("magic")
	if h.Magic != Magic {
		c.off = 0
		c.fail(ErrBadMagic, "bad magic %#x, want %#x", h.Magic, uint64(Magic))
		return nil, c.err
	}
	h.Version = c.u64("version")
	v := h.IndexVersion()
	if v < 1 || v > 13 {
		c.off = 8
		c.fail(ErrUnsupportedVersion, "unsupported index version %d (want 1..13)", v)
		return nil, c.err
	}
	h.Unused = c.u64("header")
	h.HashType = c.u64("header")
	h.HashOffset = c.u64("header")
	if v >= 8 {
		h.MemProfOffset = c.u64("header")
	}
	if v >= 9 {
		h.BinaryIdOffset = c.u64("header")
	}
	if v >= 10 {
		h.TemporalProfTracesOffset = c.u64("header")
	}
	if v >= 12 {
		h.VTableNamesOffset = c.u64("header")
	}
	if c.err != nil {
		return nil, c.err
	}
	if h.HashType != 0 {
		c.off = 24
		c.fail(ErrMalformed, "unsupported hash type %d (want 0 = MD5)", h.HashType)
		return nil, c.err
	}
	if v >= 4 {
		c.section = "profile summary"
		f.Summary = readSummary(c)
		if h.Version&variantCSIR != 0 {
			c.section = "context-sensitive profile summary"
			s := readSummary(c)
			f.CSSummary = &s
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	var err error
	if f.NumFunctions, err = readFunctionTable(name, data, h.HashOffset); err != nil {
		return nil, err
	}
	if v >= 8 && h.HasMemProf() {
		if err := f.readMemProf(name, data); err != nil {
			return nil, err
		}
	}
	if v >= 9 && h.BinaryIdOffset != 0 {
		c.section = "binary ids"
		c.seek(h.BinaryIdOffset, "binary id offset")
		size := c.u64("binary id section size")
		body := &cursor{name: name, data: data, off: c.off, section: "binary ids"}
		if size > uint64(c.remaining()) {
			c.fail(ErrTruncated, "truncated binary id section (need %d bytes, have %d)", size, c.remaining())
			return nil, c.err
		}
		body.end = c.off + int(size)
		for body.err == nil && body.remaining() > 0 {
			n := body.u64("binary id length")
			id := body.bytes(n, "binary id")
			if body.err == nil {
				f.BinaryIDs = append(f.BinaryIDs, id)
				body.bytes(uint64((8-n%8)%8), "binary id padding")
			}
		}
		if body.err != nil {
			return nil, body.err
		}
	}
	if v >= 12 && h.VTableNamesOffset != 0 {
		c.section = "vtable names"
		c.seek(h.VTableNamesOffset, "vtable names offset")
		n := c.u64("vtable names length")
		f.VTableNames = c.bytes(n, "vtable names")
	}
	if c.err != nil {
		return nil, c.err
	}
	return f, nil
}

func readSummary(c *cursor) ProfileSummary {
	var s ProfileSummary
	nf := c.count(8, "summary field count")
	ne := c.count(24, "summary entry count")
	if c.err != nil {
		return s
	}
	if nf*8+ne*24 > c.remaining() {
		c.fail(ErrTruncated, "truncated profile summary (need %d bytes, have %d)", nf*8+ne*24, c.remaining())
		return s
	}
	s.Fields = make([]uint64, nf)
	for i := range s.Fields {
		s.Fields[i] = c.u64("summary field")
	}
	s.Entries = make([]SummaryEntry, ne)
	for i := range s.Entries {
		s.Entries[i] = SummaryEntry{c.u64("cutoff"), c.u64("min count"), c.u64("num counts")}
	}
	return s
}

// readFunctionTable validates the function table's bucket array and
// returns its entry count.
func readFunctionTable(name string, data []byte, tableOff uint64) (uint64, error) {
	c := &cursor{name: name, data: data, end: len(data), section: "function table"}
	c.seek(tableOff, "hash table offset")
	nb, ne := tableHeader(c)
	if c.err != nil {
		return 0, c.err
	}
	for range nb {
		at := c.off
		o := c.u64("bucket offset")
		if o != 0 && o >= tableOff {
			c.off = at
			c.fail(ErrMalformed, "bucket offset %#x is not before the table at %#x", o, tableOff)
		}
	}
	return ne, c.err
}

// tableHeader reads NumBuckets and NumEntries of an on-disk hash table and
// checks that the bucket array fits.
func tableHeader(c *cursor) (numBuckets, numEntries uint64) {
	at := c.off
	numBuckets = c.u64("bucket count")
	numEntries = c.u64("entry count")
	if c.err != nil {
		return 0, 0
	}
	if numBuckets == 0 || numBuckets&(numBuckets-1) != 0 {
		c.off = at
		c.fail(ErrMalformed, "bucket count %d is not a power of two", numBuckets)
		return 0, 0
	}
	if numBuckets > uint64(c.remaining()/8) {
		c.off = at
		c.fail(ErrTruncated, "truncated bucket array (need %d buckets, have room for %d)", numBuckets, c.remaining()/8)
		return 0, 0
	}
	return numBuckets, numEntries
}

// odEntry is one decoded hash-table item.
type odEntry struct {
	off  int // absolute offset of the item's hash
	hash uint64
	key  []byte
	data []byte
}

// readTable decodes every item of the on-disk hash table whose bucket array
// is at tableOff, in bucket order. Items must lie in [payload, tableOff).
// keyLen says whether the trait writes a key length (the call-stack table
// writes only the data length and an 8-byte key).
func readTable(name string, data []byte, section string, payload, tableOff uint64, keyLen bool) ([]odEntry, error) {
	c := &cursor{name: name, data: data, end: len(data), section: section}
	c.seek(tableOff, "table offset")
	nb, ne := tableHeader(c)
	if c.err != nil {
		return nil, c.err
	}
	if payload > tableOff {
		c.fail(ErrMalformed, "payload offset %#x is after the table at %#x", payload, tableOff)
		return nil, c.err
	}
	// Each item needs at least 2+8+8+8 bytes of payload.
	if ne > (tableOff-payload)/18 {
		c.off -= 8
		c.fail(ErrMalformed, "entry count %d does not fit in a %d-byte payload", ne, tableOff-payload)
		return nil, c.err
	}
	entries := make([]odEntry, 0, ne)
	p := &cursor{name: name, data: data, end: int(tableOff), section: section}
	for range nb {
		at := c.off
		o := c.u64("bucket offset")
		if c.err != nil {
			return nil, c.err
		}
		if o == 0 {
			continue
		}
		if o < payload || o >= tableOff {
			c.off = at
			c.fail(ErrMalformed, "bucket offset %#x outside the payload [%#x, %#x)", o, payload, tableOff)
			return nil, c.err
		}
		p.off = int(o)
		n := p.u16("bucket item count")
		for range n {
			e := odEntry{off: p.off}
			e.hash = p.u64("item hash")
			kl := uint64(8)
			if keyLen {
				kl = p.u64("key length")
			}
			dl := p.u64("data length")
			e.key = p.bytes(kl, "key")
			e.data = p.bytes(dl, "data")
			if p.err != nil {
				return nil, p.err
			}
			if uint64(len(entries)) >= ne {
				p.off = e.off
				p.fail(ErrMalformed, "more items than the table's entry count %d", ne)
				return nil, p.err
			}
			entries = append(entries, e)
		}
	}
	if uint64(len(entries)) != ne {
		c.fail(ErrMalformed, "table holds %d items, header says %d", len(entries), ne)
		return nil, c.err
	}
	return entries, nil
}
