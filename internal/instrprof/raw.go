package instrprof

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// Raw profiles (.profraw), as the compiler-rt profile runtime writes them
// (InstrProfData.inc; docs/formats/instrprof.md has the verified details).
// All integers are in the writer's byte order (little-endian here; a
// byte-swapped magic means big-endian). A file holds one or more profiles,
// each:
//
//	header        u64 fields, see rawHeaderFields
//	binary ids    BinaryIdsSize bytes: {u64 len, len bytes, pad to 8}...
//	data          NumData records (48 bytes in v8, 64 in v9/v10)
//	              PaddingBytesBeforeCounters
//	counters      NumCounters × 8 bytes (1 byte with single-byte coverage)
//	              PaddingBytesAfterCounters
//	bitmap        NumBitmapBytes (v9+), PaddingBytesAfterBitmapBytes
//	names         NamesSize bytes, pad to 8
//	vtables       NumVTables × 24 bytes (v10), pad to 8
//	vtable names  VNamesSize bytes (v10), pad to 8
//	value data    one ValueProfData per data record that has value sites
//
// then zero padding up to the next profile's header.
//
// Data record, v8:  NameRef, FuncHash, CounterPtr, FunctionPointer, Values
// (u64 each), u32 NumCounters, u16 NumValueSites[2].
// v9: NameRef, FuncHash, CounterPtr, BitmapPtr, FunctionPointer, Values,
// u32 NumCounters, u16 NumValueSites[2], u32 NumBitmapBytes, pad to 64.
// v10: as v9 with NumValueSites[3], then 2 bytes of padding before
// NumBitmapBytes (at offset 60).
//
// CounterPtr (BitmapPtr) is relative: the counters of data record i start
// CounterPtr − (CountersDelta − i × record size) bytes into the counter
// section.

// RawMagic is the little-endian raw profile magic (INSTR_PROF_RAW_MAGIC_64).
const RawMagic = 0xff6c70726f667281

// Raw format versions this reader accepts: 8 (clang 16–17), 9 (clang 18),
// 10 (clang 19–22).
const (
	minRawVersion = 8
	maxRawVersion = 10
)

// RawProfile is a decoded .profraw file (all its profiles).
type RawProfile struct {
	Version int    // raw format version (low 32 bits of the version field)
	Variant uint64 // the version field's flag bits (Variant*)
	// BinaryIDs are the binary ids of all the file's profiles, those of
	// the last one from LastIDs on.
	BinaryIDs [][]byte
	LastIDs   int
	// Records are the data records in file order, names resolved, counts
	// decoded (single-byte coverage: 1 covered, 0 not), ICall targets
	// mapped from addresses to name MD5s (0 for an address no record has).
	Records     []FuncRecord
	Names       []string // the name section, in order
	VTableNames []string
	// Trace is the temporal profiling trace (VariantTemporalProf): the
	// NameRefs of the functions with a timestamp, by timestamp. The
	// timestamp is each function's first counter, left out of Counts.
	Trace []uint64
	// LargeCounts are the counter values above 2^56 (LLVM's
	// MaxCounterValue), which llvm-profdata reports as "excessively large
	// counter value suggests corrupted profile data" while it still merges
	// them.
	LargeCounts []uint64
	stamps      [][2]uint64 // (timestamp, NameRef)
	profiles    int         // profiles in the file
	// folding: each profile's records are folded before the next is
	// read (RawReader.parse), so they may share buffers and data.
	folding   bool
	counts    []uint64 // the records' counts when folding, reused
	hasValues bool     // some record has value sites
}

// IsRaw reports whether data starts with a raw profile magic (either byte
// order).
func IsRaw(data []byte) bool {
	if len(data) < 8 {
		return false
	}
	m := le.Uint64(data)
	return m == RawMagic || m == swap64(RawMagic)
}

func swap64(v uint64) uint64 {
	var b [8]byte
	le.PutUint64(b[:], v)
	slices.Reverse(b[:])
	return le.Uint64(b[:])
}

// OpenRaw reads and decodes the raw profile in file name.
func OpenRaw(name string) (*RawProfile, error) {
	return new(RawReader).Open(name)
}

// ParseRaw decodes a raw profile; name is for errors.
func ParseRaw(name string, data []byte) (*RawProfile, error) {
	return new(RawReader).Parse(name, data)
}

// RawReader decodes raw profiles one after the other, remembering the last
// name section: the raws of one binary share it, so its decompression and
// the MD5 of every name happen once, not once per file. The zero value is
// ready; a RawReader is not safe for concurrent use.
type RawReader struct {
	names    []byte // the last name section's bytes
	decNames []string
	byRef    map[uint64]string
	scratch  []byte // for FuncProfile.AddRawData
}

// Open reads and decodes the raw profile in file name.
func (rr *RawReader) Open(name string) (*RawProfile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return rr.Parse(name, data)
}

// Parse decodes a raw profile; name is for errors.
func (rr *RawReader) Parse(name string, data []byte) (*RawProfile, error) {
	return rr.parse(name, data, nil, nil)
}

// parse is Parse. With fold set, the records of each profile but the last
// are handed to fold when the next profile starts and then dropped (with
// the name sections), so that a file of many concatenated profiles costs
// the memory of one; the result then holds only the last profile's
// records and names. With done set, done(off) is called after each
// profile with where it ends.
func (rr *RawReader) parse(name string, data []byte, fold func(*RawProfile), done func(off int)) (*RawProfile, error) {
	p := &RawProfile{folding: fold != nil}
	off := 0
	for first := true; ; first = false {
		if !first && done != nil {
			done(off)
		}
		// Zero padding separates profiles.
		off = skipZeros(data, off, done)
		if off == len(data) {
			if first {
				c := decode.NewCursor("instrprof", name, "raw header", data, 0)
				return nil, c.Errorf(0, decode.ErrTruncated, "empty raw profile")
			}
			slices.SortFunc(p.stamps, func(a, b [2]uint64) int {
				if a[0] != b[0] {
					return cmp.Compare(a[0], b[0])
				}
				return cmp.Compare(a[1], b[1])
			})
			for _, s := range p.stamps {
				p.Trace = append(p.Trace, s[1])
			}
			p.stamps = nil
			return p, nil
		}
		if off%8 != 0 {
			c := decode.NewCursor("instrprof", name, "raw header", data, 0)
			return nil, c.Errorf(int64(off), decode.ErrMalformed, "insufficient padding before the next profile")
		}
		if !first && fold != nil {
			fold(p)
			clear(p.Records)
			p.Records, p.Names, p.VTableNames = p.Records[:0], p.Names[:0], p.VTableNames[:0]
		}
		end, err := p.readOne(rr, name, data, off, first)
		if err != nil {
			return nil, err
		}
		off = end
	}
}

// zeroBlock is what skipZeros compares the input with.
var zeroBlock [4096]byte

// skipZeros returns the offset of the first byte at or after off that is
// not zero (len(data) if none), a block at a time; done, when not nil,
// is told of each block passed.
func skipZeros(data []byte, off int, done func(int)) int {
	for off < len(data) {
		n := min(len(zeroBlock), len(data)-off)
		if !bytes.Equal(data[off:off+n], zeroBlock[:n]) {
			break
		}
		off += n
		if done != nil {
			done(off)
		}
	}
	for off < len(data) && data[off] == 0 {
		off++
	}
	return off
}

// lookupNames returns the names of a name section and their NameRefs.
func (rr *RawReader) lookupNames(name string, data []byte, off int) ([]string, map[uint64]string, error) {
	sec := data[off:]
	if rr.byRef != nil && bytes.Equal(sec, rr.names) {
		return rr.decNames, rr.byRef, nil
	}
	names, err := readNames(name, "names", data, off)
	if err != nil {
		return nil, nil, err
	}
	byRef := make(map[uint64]string, len(names))
	for _, n := range names {
		byRef[llvmname.GUID(n)] = n
	}
	rr.names, rr.decNames, rr.byRef = bytes.Clone(sec), names, byRef
	return names, byRef, nil
}

// rawHeader is RawInstrProf::Header; fields the version lacks are zero.
type rawHeader struct {
	magic, version, binaryIdsSize, numData, padBeforeCounters, numCounters,
	padAfterCounters, numBitmapBytes, padAfterBitmap, namesSize,
	countersDelta, bitmapDelta, namesDelta, numVTables, vnamesSize,
	valueKindLast uint64
	size, namesDeltaAt int // header size, NamesDelta's offset in it
	bitmapDeltaAt      int // BitmapDelta's offset (v9+)
}

func pad8(n uint64) uint64 { return (8 - n%8) % 8 }

// readRawHeader reads a raw header at c (after its magic check: c is set
// to the file's byte order). namesDeltaAt is the offset of NamesDelta from
// the header's start.
func readRawHeader(c *decode.Cursor) (rawHeader, error) {
	start := c.Off()
	var h rawHeader
	h.magic = c.U64()
	if err := c.Err(); err != nil {
		return h, err
	}
	switch h.magic {
	case RawMagic:
	case swap64(RawMagic):
		c.SetBigEndian(true)
	default:
		return h, c.Errorf(int64(start), decode.ErrBadMagic, "bad magic %#x, want %#x (a raw instrumentation profile)", h.magic, uint64(RawMagic))
	}
	h.version = c.U64()
	ver := h.version32()
	if c.Err() == nil && (ver < minRawVersion || ver > maxRawVersion) {
		return h, c.Errorf(int64(start+8), decode.ErrUnsupportedVersion, "unsupported raw profile version %d (supported: %d..%d, as clang 16–22 write)", ver, minRawVersion, maxRawVersion)
	}
	h.binaryIdsSize = c.U64()
	h.numData = c.U64()
	h.padBeforeCounters = c.U64()
	h.numCounters = c.U64()
	h.padAfterCounters = c.U64()
	if ver >= 9 {
		h.numBitmapBytes = c.U64()
		h.padAfterBitmap = c.U64()
	}
	h.namesSize = c.U64()
	h.countersDelta = c.U64()
	if ver >= 9 {
		h.bitmapDeltaAt = c.Off() - start
		h.bitmapDelta = c.U64()
	}
	h.namesDeltaAt = c.Off() - start
	h.namesDelta = c.U64()
	if ver >= 10 {
		h.numVTables = c.U64()
		h.vnamesSize = c.U64()
	}
	h.valueKindLast = c.U64()
	if err := c.Err(); err != nil {
		return h, err
	}
	if h.binaryIdsSize%8 != 0 {
		return h, c.Errorf(int64(start+16), decode.ErrMalformed, "binary id section size %d is not a multiple of 8", h.binaryIdsSize)
	}
	h.size = c.Off() - start
	return h, nil
}

func (h *rawHeader) version32() int { return int(uint32(h.version)) }

// rawOffsets are a profile's section offsets from its header's start.
type rawOffsets struct {
	binIDs, dataOff, ctrOff, bitmapOff, namesOff, vtabOff, vtabSize,
	vnamesOff, valueOff uint64
	recSize, ctrSize uint64
	numKinds         int
}

// offsets lays out the sections h describes; ok is false if they do not
// fit in size bytes (valueOff then says how much they need, or size+1).
func (h *rawHeader) offsets(size uint64) (o rawOffsets, ok bool) {
	ver := h.version32()
	o.recSize, o.numKinds = 48, 2
	if ver >= 9 {
		o.recSize = 64
	}
	if ver >= 10 {
		o.numKinds = 3
	}
	o.ctrSize = 8
	if h.version&VariantByteCoverage != 0 {
		o.ctrSize = 1
	}
	bad := false
	add := func(a, b uint64) uint64 {
		if a > size || b > size-a {
			bad = true
			return size + 1
		}
		return a + b
	}
	mul := func(a, b uint64) uint64 {
		if b != 0 && a > size/b {
			bad = true
			return size + 1
		}
		return a * b
	}
	o.binIDs = uint64(h.size)
	o.dataOff = add(o.binIDs, h.binaryIdsSize)
	o.ctrOff = add(add(o.dataOff, mul(h.numData, o.recSize)), h.padBeforeCounters)
	o.bitmapOff = add(add(o.ctrOff, mul(h.numCounters, o.ctrSize)), h.padAfterCounters)
	o.namesOff = add(add(o.bitmapOff, h.numBitmapBytes), h.padAfterBitmap)
	o.vtabOff = add(o.namesOff, add(h.namesSize, pad8(h.namesSize)))
	o.vtabSize = mul(h.numVTables, 24)
	o.vnamesOff = add(o.vtabOff, add(o.vtabSize, pad8(o.vtabSize)))
	o.valueOff = add(o.vnamesOff, add(h.vnamesSize, pad8(h.vnamesSize)))
	return o, !bad && o.valueOff <= size
}

// readOne decodes the profile at off and returns where it ends.
func (p *RawProfile) readOne(rr *RawReader, name string, data []byte, off int, first bool) (int, error) {
	c := decode.NewCursor("instrprof", name, "raw header", data, off)
	h, err := readRawHeader(&c)
	if err != nil {
		return 0, err
	}
	ver := h.version32()
	if !first && (ver != p.Version || h.version>>32 != p.Variant>>32) {
		return 0, c.Errorf(int64(off+8), decode.ErrMalformed, "profile version %#x differs from the first profile's", h.version)
	}
	p.Version, p.Variant = ver, h.version&^0xffffffff
	p.profiles++
	size := uint64(len(data) - off)
	o, ok := h.offsets(size)
	if !ok {
		return 0, c.Errorf(int64(off), decode.ErrTruncated, "header describes %s bytes of sections, the file has %d", sizeString(o.valueOff > size, o.valueOff), size)
	}
	recSize, numKinds, ctrSize := o.recSize, o.numKinds, o.ctrSize
	binIDs, dataOff, ctrOff, bitmapOff, namesOff := o.binIDs, o.dataOff, o.ctrOff, o.bitmapOff, o.namesOff
	vtabOff, vtabSize, vnamesOff, valueOff := o.vtabOff, o.vtabSize, o.vnamesOff, o.valueOff
	abs := func(o uint64) int { return off + int(o) }

	// Binary ids.
	p.LastIDs = len(p.BinaryIDs)
	bc := decode.NewCursor("instrprof", name, "binary ids", data[:abs(dataOff)], abs(binIDs))
	bc.SetBigEndian(c.BigEndian())
	for bc.Remaining() > 0 {
		at := bc.Off()
		n := bc.U64()
		if bc.Err() == nil && n == 0 {
			return 0, bc.Errorf(int64(at), decode.ErrMalformed, "binary id length is 0")
		}
		id := bc.Bytes(n)
		bc.Skip(min(pad8(n), uint64(bc.Remaining())))
		if err := bc.Err(); err != nil {
			return 0, err
		}
		p.BinaryIDs = append(p.BinaryIDs, slices.Clone(id))
	}

	// Names.
	names, byRef, err := rr.lookupNames(name, data[:abs(namesOff)+int(h.namesSize)], abs(namesOff))
	if err != nil {
		return 0, err
	}
	p.Names = append(p.Names, names...)
	if h.vnamesSize > 0 {
		vn, err := readNames(name, "vtable names", data[:abs(vnamesOff)+int(h.vnamesSize)], abs(vnamesOff))
		if err != nil {
			return 0, err
		}
		p.VTableNames = append(p.VTableNames, vn...)
	}
	// Address → name MD5 for indirect-call targets (and vtables).
	var addrs addrMap

	// Data records.
	dc := decode.NewCursor("instrprof", name, "data", data[:abs(ctrOff)], abs(dataOff))
	dc.SetBigEndian(c.BigEndian())
	type pending struct {
		rec   int
		sites [NumValueKinds]uint16
	}
	var withValues []pending
	ctrDelta, bmDelta := h.countersDelta, h.bitmapDelta
	var countBuf []uint64 // the records' counts, carved from few allocations
	if p.folding {
		countBuf = p.counts[:cap(p.counts)]
	}
	p.Records = slices.Grow(p.Records, int(h.numData))
	ctrLen, bmLen := h.numCounters*ctrSize, h.numBitmapBytes
	for i := uint64(0); i < h.numData; i++ {
		at := dc.Off()
		var d struct {
			nameRef, funcHash, counterPtr, bitmapPtr, funcPtr uint64
			numCounters, numBitmapBytes                       uint32
			sites                                             [NumValueKinds]uint16
		}
		d.nameRef, d.funcHash, d.counterPtr = dc.U64(), dc.U64(), dc.U64()
		if ver >= 9 {
			d.bitmapPtr = dc.U64()
		}
		d.funcPtr = dc.U64()
		dc.U64() // Values: a runtime pointer, meaningless in the file
		d.numCounters = dc.U32()
		for k := range numKinds {
			d.sites[k] = dc.U16()
		}
		if ver >= 9 {
			dc.Seek(uint64(dc.Off()+3) &^ 3) // u32 alignment after the u16s
			d.numBitmapBytes = dc.U32()
		}
		dc.Seek(uint64(at) + recSize)
		if err := dc.Err(); err != nil {
			return 0, err
		}
		n, ok := byRef[d.nameRef]
		if !ok {
			return 0, dc.Errorf(int64(at), decode.ErrMalformed, "function name MD5 %#016x is not in the name section", d.nameRef)
		}
		r := FuncRecord{Name: n, Hash: d.funcHash}
		if d.numCounters == 0 {
			return 0, dc.Errorf(int64(at), decode.ErrMalformed, "%s: number of counters is zero", n)
		}
		co := d.counterPtr - ctrDelta
		if int64(co) < 0 || co >= ctrLen || uint64(d.numCounters)*ctrSize > ctrLen-co {
			return 0, dc.Errorf(int64(at), decode.ErrMalformed, "%s: counter offset %#x (%d counters) is outside the counter section (%#x bytes)", n, int64(co), d.numCounters, ctrLen)
		}
		ctr := data[abs(ctrOff)+int(co):][:uint64(d.numCounters)*ctrSize]
		u64 := func(b []byte) uint64 {
			if c.BigEndian() {
				return swap64(le.Uint64(b))
			}
			return le.Uint64(b)
		}
		if p.Variant&VariantTemporalProf != 0 {
			// The first counter is an 8-byte timestamp, whatever the
			// counter size (readRawCounts).
			if len(ctr) < 8 {
				return 0, dc.Errorf(int64(at), decode.ErrMalformed, "%s: no room for the timestamp counter", n)
			}
			if ts := u64(ctr); ts != 0 && ts != ^uint64(0) {
				p.stamps = append(p.stamps, [2]uint64{ts, d.nameRef})
			}
			ctr = ctr[8:]
		}
		nc := len(ctr) / int(ctrSize)
		if len(countBuf) < nc {
			countBuf = make([]uint64, max(nc, int(min(h.numCounters, 1<<16))))
			if p.folding {
				p.counts = countBuf
			}
		}
		r.Counts, countBuf = countBuf[:nc:nc], countBuf[nc:]
		for j := range r.Counts {
			if ctrSize == 1 {
				if ctr[j] == 0 {
					r.Counts[j] = 1
				}
			} else {
				v := u64(ctr[8*j:])
				r.Counts[j] = v
				if v > 1<<56 {
					p.LargeCounts = append(p.LargeCounts, v)
				}
			}
		}
		if d.numBitmapBytes > 0 {
			bo := d.bitmapPtr - bmDelta
			if int64(bo) < 0 || bo >= bmLen || uint64(d.numBitmapBytes) > bmLen-bo {
				return 0, dc.Errorf(int64(at), decode.ErrMalformed, "%s: bitmap offset %#x (%d bytes) is outside the bitmap section (%#x bytes)", n, int64(bo), d.numBitmapBytes, bmLen)
			}
			r.Bitmap = data[abs(bitmapOff)+int(bo):][:d.numBitmapBytes:d.numBitmapBytes]
			if !p.folding {
				r.Bitmap = slices.Clone(r.Bitmap)
			}
		}
		if d.funcPtr != 0 {
			addrs = append(addrs, addrRef{d.funcPtr, d.nameRef})
		}
		if d.sites != [NumValueKinds]uint16{} {
			p.hasValues = true
			withValues = append(withValues, pending{rec: len(p.Records), sites: d.sites})
		}
		p.Records = append(p.Records, r)
		ctrDelta -= recSize
		bmDelta -= recSize
	}
	lookup := addrs.sorted().lookup

	// VTable records (v10): u64 VTableNameHash, u64 VTablePointer, u32
	// VTableSize, 4 bytes of padding. A vtable-target value is mapped to
	// the name hash of the vtable whose [VTablePointer, VTablePointer +
	// VTableSize] (closed, as LLVM's IntervalMap) holds it, else 0.
	type vtable struct{ lo, hi, ref uint64 }
	var vtables []vtable
	tc := decode.NewCursor("instrprof", name, "vtables", data[:abs(vtabOff)+int(vtabSize)], abs(vtabOff))
	tc.SetBigEndian(c.BigEndian())
	for range h.numVTables {
		ref, ptr, size := tc.U64(), tc.U64(), uint64(tc.U32())
		tc.U32()
		vtables = append(vtables, vtable{ptr, ptr + size, ref})
	}
	if err := tc.Err(); err != nil {
		return 0, err
	}
	slices.SortStableFunc(vtables, func(a, b vtable) int { return cmp.Compare(a.lo, b.lo) })
	vtableRef := func(a uint64) uint64 {
		// The last vtable starting at or below a.
		i, _ := slices.BinarySearchFunc(vtables, a+1, func(v vtable, t uint64) int {
			if v.lo < t {
				return -1
			}
			return 1
		})
		if a != ^uint64(0) && i > 0 && a <= vtables[i-1].hi {
			return vtables[i-1].ref
		}
		return 0
	}

	// Value profile data.
	vc := decode.NewCursor("instrprof", name, "value profile data", data, abs(valueOff))
	vc.SetBigEndian(c.BigEndian())
	for _, pv := range withValues {
		r := &p.Records[pv.rec]
		if err := readValueData(&vc, r, o.numKinds, lookup, vtableRef); err != nil {
			return 0, err
		}
	}
	return vc.Off(), nil
}

// addrMap maps a run's function addresses to NameRefs (LLVM's
// AddrToMD5Map): indirect-call target values are looked up in it.
type addrMap []addrRef

type addrRef struct{ addr, ref uint64 }

func (m addrMap) sorted() addrMap {
	slices.SortStableFunc(m, func(a, b addrRef) int { return cmp.Compare(a.addr, b.addr) })
	return m
}

// lookup returns the NameRef of the function at address a, 0 if none (an
// uninstrumented target).
func (m addrMap) lookup(a uint64) uint64 {
	i, ok := slices.BinarySearchFunc(m, a, func(e addrRef, a uint64) int { return cmp.Compare(e.addr, a) })
	if !ok {
		return 0
	}
	return m[i].ref
}

func sizeString(overflow bool, n uint64) string {
	if overflow {
		return "more than the file's"
	}
	return fmt.Sprint(n)
}

// readValueData decodes one ValueProfData into r:
//
//	u32 TotalSize, u32 NumValueKinds, then per kind a ValueProfRecord:
//	u32 Kind, u32 NumValueSites, u8 SiteCountArray[NumValueSites], pad to
//	8 (counting from Kind), then {u64 Value, u64 Count} per value.
//
// numKinds is how many value kinds the file's version has (2 before
// version 10, whose records gained vtable targets). LLVM 19 and later
// accept a vtable-target record in an older file; no compiler-rt writes
// one, it could not be written back in that version, and LLVM 16 rejects
// it, so it is an error here.
func readValueData(vc *decode.Cursor, r *FuncRecord, numKinds int, lookup, vtableRef func(uint64) uint64) error {
	at := vc.Off()
	total := vc.U32()
	kinds := vc.U32()
	if err := vc.Err(); err != nil {
		return err
	}
	if total%8 != 0 || total < 8 {
		return vc.Errorf(int64(at), decode.ErrMalformed, "%s: value data size %d is not a positive multiple of 8", r.Name, total)
	}
	if uint64(total) > uint64(vc.Len()-at) {
		return vc.Errorf(int64(at), decode.ErrTruncated, "%s: value data of %d bytes, %d left", r.Name, total, vc.Len()-at)
	}
	if kinds > NumValueKinds {
		return vc.Errorf(int64(at+4), decode.ErrMalformed, "%s: %d value kinds", r.Name, kinds)
	}
	end := at + int(total)
	sub := decode.NewCursor(vc.Format, vc.File, vc.Section, vc.Data()[:end], at+8)
	sub.SetBigEndian(vc.BigEndian())
	for range kinds {
		kat := sub.Off()
		kind := sub.U32()
		nsites := sub.U32()
		if sub.Err() == nil && kind >= NumValueKinds {
			return sub.Errorf(int64(kat), decode.ErrMalformed, "%s: value kind %d is invalid", r.Name, kind)
		}
		if sub.Err() == nil && kind >= uint32(numKinds) {
			return sub.Errorf(int64(kat), decode.ErrMalformed, "%s: value kind %d (vtable targets) is not in this version's raw profiles, which have %d kinds", r.Name, kind, numKinds)
		}
		counts := sub.Bytes(uint64(nsites))
		sub.Skip(min(pad8(uint64(8+nsites)), uint64(sub.Remaining())))
		if err := sub.Err(); err != nil {
			return err
		}
		sites := make([][]ValueData, nsites)
		for s, n := range counts {
			if uint64(n)*16 > uint64(sub.Remaining()) {
				return sub.Errorf(int64(sub.Off()), decode.ErrMalformed, "%s: value profile address is greater than total size", r.Name)
			}
			if n == 0 {
				continue
			}
			vs := make([]ValueData, n)
			for j := range vs {
				vs[j].Value, vs[j].Count = sub.U64(), sub.U64()
				switch kind {
				case IPVKIndirectCallTarget:
					vs[j].Value = lookup(vs[j].Value)
				case IPVKVTableTarget:
					vs[j].Value = vtableRef(vs[j].Value)
				}
			}
			sites[s] = vs
		}
		r.Values[kind] = sites
	}
	if err := sub.Err(); err != nil {
		return err
	}
	vc.Seek(uint64(end))
	return nil
}

// readNames decodes a name section (readPGOFuncNameStrings): blocks of
// ULEB uncompressed size, ULEB compressed size (0 = stored), the bytes
// (zlib when compressed), names separated by "\x01"; zero bytes between
// blocks are skipped.
func readNames(file, section string, data []byte, off int) ([]string, error) {
	c := decode.NewCursor("instrprof", file, section, data, off)
	var names []string
	for c.Remaining() > 0 {
		usize := c.Uleb()
		csize := c.Uleb()
		if err := c.Err(); err != nil {
			return nil, err
		}
		var s []byte
		if csize == 0 {
			s = c.Bytes(usize)
		} else {
			// LLVM's message for any failure here (instrprof_error::uncompress_failed).
			s = c.Uncompress(csize, usize, "failed to uncompress data (zlib)")
		}
		if err := c.Err(); err != nil {
			return nil, err
		}
		names = append(names, strings.Split(string(s), "\x01")...)
		for c.Remaining() > 0 && c.Data()[c.Off()] == 0 {
			c.Skip(1)
		}
	}
	return names, nil
}
