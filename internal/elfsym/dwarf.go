package elfsym

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// DWARF constants used by the reader (DWARF 5 §7, plus GNU extensions).
const (
	tagCompileUnit       = 0x11
	tagPartialUnit       = 0x3c
	tagSkeletonUnit      = 0x4a
	tagSubprogram        = 0x2e
	tagInlinedSubroutine = 0x1d

	atSibling          = 0x01
	atName             = 0x03
	atStmtList         = 0x10
	atLowPC            = 0x11
	atHighPC           = 0x12
	atCompDir          = 0x1b
	atAbstractOrigin   = 0x31
	atDeclFile         = 0x3a
	atDeclLine         = 0x3b
	atSpecification    = 0x47
	atRanges           = 0x55
	atEntryPC          = 0x52
	atCallColumn       = 0x57
	atCallFile         = 0x58
	atCallLine         = 0x59
	atLinkageName      = 0x6e
	atStrOffsetsBase   = 0x72
	atAddrBase         = 0x73
	atRnglistsBase     = 0x74
	atDWOName          = 0x76
	atMIPSLinkageName  = 0x2007
	atGNUDiscriminator = 0x2136
	atGNUDWOName       = 0x2130
	atGNUDWOID         = 0x2131
	atGNURangesBase    = 0x2132
	atGNUAddrBase      = 0x2133

	utCompile      = 0x01
	utType         = 0x02
	utPartial      = 0x03
	utSkeleton     = 0x04
	utSplitCompile = 0x05
	utSplitType    = 0x06
)

const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// sections holds the DWARF sections of one object: the binary (or its
// separate debug file), a .dwo file or a .dwp package.
type sections struct {
	info, abbrev, str, lineStr, strOffsets, addr, ranges, rnglists, line, aranges []byte
	// DWP packages only.
	cuIndex []byte
}

// dwarfFile is one object's DWARF: its sections and unit headers.
type dwarfFile struct {
	file  string
	dwo   bool // .dwo/.dwp: section names carry the .dwo suffix
	order binary.ByteOrder
	sec   sections
	units []*unit // sorted by offset

	abbrevMu         sync.Mutex
	abbrevs          map[uint64]*abbrevTable
	abbrevsByContent map[abbrevContent][]*abbrevTable
	// abbrevRecent are the last distinct tables matched or added, most
	// recent first: a table whose bytes start with one of theirs is that
	// table, found with a byte compare instead of a scan.
	abbrevRecent []*abbrevTable

	// abbrevAdj, for .dwp packages, gives the .debug_abbrev.dwo
	// contribution of the unit at a .debug_info.dwo offset.
	abbrevAdj func(unitOff uint64) uint64
	// split finds .dwo/.dwp files for skeleton units (main file only).
	split *splitCtx
	// names caches nameInfo results of referenced DIEs by offset.
	names sync.Map
	// warn, when set, takes the problems LLVM reports and goes past: a
	// unit header it cannot read ends the unit list, a unit whose
	// abbreviations cannot be read has no DIEs. Without it they are errors.
	warn func(string)
}

func (df *dwarfFile) secName(base string) string {
	if df.dwo {
		return base + ".dwo"
	}
	return base
}

type abbrevAttr struct {
	attr, form uint16
	implicit   int64
}

type abbrev struct {
	tag      uint16
	children bool
	// hasRanges: the DIE has DW_AT_low_pc or DW_AT_ranges.
	hasRanges bool
	// fixed is the byte size of the attribute values when every form has
	// a fixed size for the table's sizes key, else -1.
	fixed int32
	attrs []abbrevAttr
	// skip is how to step over the values for the table's sizes key when
	// some form has a variable size: runs of fixed-size values collapse
	// into one op each.
	skip []skipOp
}

// skipOp skips pre bytes, then one value of the variable-size form (none
// when form is 0).
type skipOp struct {
	pre  uint32
	form uint16
}

// appendSkipOps appends a's skip program to ops; ok is false when a form
// is neither fixed-size nor one skipFast knows (the slow path then reports
// errors).
func appendSkipOps(ops []skipOp, a *abbrev, key sizesKey) ([]skipOp, bool) {
	var pre uint32
	for _, aa := range a.attrs {
		if n := formSize(aa.form, key); n >= 0 {
			pre += uint32(n)
			continue
		}
		switch aa.form {
		case formString, formBlock, formExprloc, formBlock1, formBlock2, formBlock4,
			formSdata, formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		default:
			return ops, false
		}
		ops = append(ops, skipOp{pre: pre, form: aa.form})
		pre = 0
	}
	if pre > 0 {
		ops = append(ops, skipOp{pre: pre})
	}
	return ops, true
}

// abbrevTable is one abbreviation table of .debug_abbrev. Opening a file
// only checks each table (scanAbbrevs, which allocates nothing) and keeps
// its first declaration, which is the unit DIE's as compilers write it;
// the whole table is decoded on the first lookup of another code, into
// three arrays sized by the check's counts: most units of a many-unit
// binary are never walked, and those that are cost three allocations.
type abbrevTable struct {
	key sizesKey // sizes the fixed values were computed for

	// first is the declaration of code 1 when it comes first.
	first    abbrev
	hasFirst bool

	df           *dwarfFile
	off          uint64
	size         uint64 // bytes, up to and including the ending 0 code
	nAbbr, nAttr int    // counted by the check

	once  sync.Once
	dense []abbrev          // code-1 indexed when codes are 1..n in order
	other map[uint64]abbrev // remaining codes
}

// sizesKey is what fixed attribute sizes depend on.
type sizesKey struct {
	addrSize, offSize uint8
	v2                bool
}

// formSize returns the size of a fixed-size form, or -1.
func formSize(form uint16, k sizesKey) int {
	switch form {
	case formAddr:
		return int(k.addrSize)
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formStrx4, formAddrx4, formRefSup4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return int(k.offSize)
	case formRefAddr:
		if k.v2 {
			return int(k.addrSize)
		}
		return int(k.offSize)
	case formFlagPresent, formImplicitConst:
		return 0
	}
	return -1
}

func (t *abbrevTable) get(code uint64) (*abbrev, bool) {
	if t == nil { // the unit's abbreviations could not be read
		return nil, false
	}
	if code == 1 && t.hasFirst {
		// The same declaration the decoded table has at dense[0].
		return &t.first, true
	}
	t.once.Do(t.decode)
	if code >= 1 && code <= uint64(len(t.dense)) {
		return &t.dense[code-1], true
	}
	a, ok := t.other[code]
	if !ok {
		return nil, false
	}
	return &a, true
}

// abbrevTable returns the table at off, checked (its errors are those of
// reading it) but decoded only on first use.
func (df *dwarfFile) abbrevTable(off uint64, key sizesKey) (*abbrevTable, error) {
	df.abbrevMu.Lock()
	defer df.abbrevMu.Unlock()
	if t, ok := df.abbrevs[off]; ok {
		return t, nil
	}
	if o := df.recentAbbrevs(off, key); o != nil {
		df.abbrevs[off] = o
		return o, nil
	}
	t := &abbrevTable{key: key, df: df, off: off}
	end, err := t.scan()
	if err != nil {
		return nil, err
	}
	t.size = end - off
	if df.abbrevs == nil {
		df.abbrevs = make(map[uint64]*abbrevTable)
		df.abbrevsByContent = make(map[abbrevContent][]*abbrevTable)
	}
	// The units of a many-unit binary mostly have tables of the same
	// bytes: they share one decoded table (decoding depends only on the
	// bytes and the sizes key).
	body := df.sec.abbrev[off:end]
	ck := abbrevContent{key: key, hash: maphash.Bytes(abbrevSeed, body), n: len(body)}
	for _, o := range df.abbrevsByContent[ck] {
		if bytes.Equal(df.sec.abbrev[o.off:o.off+uint64(len(body))], body) {
			df.abbrevs[off] = o
			df.useAbbrevs(o)
			return o, nil
		}
	}
	df.abbrevsByContent[ck] = append(df.abbrevsByContent[ck], t)
	df.abbrevs[off] = t
	df.useAbbrevs(t)
	return t, nil
}

// recentAbbrevs returns the recently used table whose bytes the table at
// off starts with (under the same sizes key), or nil. A table ends at its
// first 0 code, so the same bytes up to there are the same table: its scan
// would read them the same way, without error, and stop at the same place.
// Many-unit binaries have a handful of distinct tables (two for the 600
// units of bench/symbolize/units.sh), whose scans were most of opening one.
// Called with abbrevMu held.
func (df *dwarfFile) recentAbbrevs(off uint64, key sizesKey) *abbrevTable {
	sec := df.sec.abbrev
	if off > uint64(len(sec)) {
		return nil
	}
	rest := sec[off:]
	for _, o := range df.abbrevRecent {
		if o.key == key && o.size <= uint64(len(rest)) && bytes.Equal(rest[:o.size], sec[o.off:o.off+o.size]) {
			df.useAbbrevs(o)
			return o
		}
	}
	return nil
}

// useAbbrevs moves t to the front of abbrevRecent (at most 4 kept).
// Called with abbrevMu held.
func (df *dwarfFile) useAbbrevs(t *abbrevTable) {
	r := df.abbrevRecent
	if len(r) > 0 && r[0] == t {
		return
	}
	i := slices.Index(r, t)
	if i < 0 {
		if len(r) < 4 {
			r = append(r, nil)
		}
		i = len(r) - 1
	}
	copy(r[1:i+1], r[:i])
	r[0] = t
	df.abbrevRecent = r
}

// abbrevContent identifies a table by its bytes (hash and length) and
// sizes key.
type abbrevContent struct {
	key  sizesKey
	hash uint64
	n    int
}

var abbrevSeed = maphash.MakeSeed()

// readAbbrevDecl reads one declaration after its code: the tag, the
// children flag and the attribute specifications, appended to attrs
// (when keep) or only counted.
func readAbbrevDecl(b *decode.Cursor, a *abbrev, attrs []abbrevAttr, keep bool) ([]abbrevAttr, int) {
	tag := b.Uleb()
	a.tag = uint16(min(tag, 0xffff))
	a.children = b.U8() != 0
	n := 0
	for b.Err() == nil {
		at, form := b.Uleb(), b.Uleb()
		if at == 0 && form == 0 {
			break
		}
		aa := abbrevAttr{attr: uint16(min(at, 0xffff)), form: uint16(min(form, 0xffff))}
		if form == formImplicitConst {
			aa.implicit = b.Sleb()
		}
		if keep {
			attrs = append(attrs, aa)
		}
		n++
	}
	return attrs, n
}

// finish sets what a's lookups use: hasRanges, the fixed size or the
// skip program (appended to ops).
func (a *abbrev) finish(key sizesKey, ops []skipOp) []skipOp {
	a.fixed = 0
	for _, aa := range a.attrs {
		if aa.attr == atLowPC || aa.attr == atRanges {
			a.hasRanges = true
		}
	}
	for _, aa := range a.attrs {
		n := formSize(aa.form, key)
		if n < 0 {
			a.fixed = -1
			break
		}
		a.fixed += int32(n)
	}
	if a.fixed < 0 {
		start := len(ops)
		if more, ok := appendSkipOps(ops, a, key); ok && len(more) > start {
			ops = more
			a.skip = ops[start:len(ops):len(ops)]
		} else {
			ops = ops[:start]
		}
	}
	return ops
}

// scan checks the table as decoding it would (the same reads, so the same
// errors), counts its declarations and attributes and keeps the first
// declaration when its code is 1; end is the offset past the table.
func (t *abbrevTable) scan() (end uint64, err error) {
	df := t.df
	b := newCursor(df.file, df.secName(".debug_abbrev"), df.sec.abbrev, t.off, df.order)
	for b.Err() == nil {
		code := b.Uleb()
		if code == 0 {
			break
		}
		var a abbrev
		keep := t.nAbbr == 0 && code == 1
		var n int
		a.attrs, n = readAbbrevDecl(&b, &a, nil, keep)
		if keep && b.Err() == nil {
			a.finish(t.key, nil)
			t.first, t.hasFirst = a, true
		}
		t.nAbbr++
		t.nAttr += n
	}
	return uint64(b.Off()), b.Err()
}

// decode reads the whole table (scan checked it).
func (t *abbrevTable) decode() {
	df := t.df
	b := newCursor(df.file, df.secName(".debug_abbrev"), df.sec.abbrev, t.off, df.order)
	attrs := make([]abbrevAttr, 0, t.nAttr)
	ops := make([]skipOp, 0, t.nAttr+t.nAbbr)
	t.dense = make([]abbrev, 0, t.nAbbr)
	for b.Err() == nil {
		code := b.Uleb()
		if code == 0 {
			break
		}
		var a abbrev
		start := len(attrs)
		attrs, _ = readAbbrevDecl(&b, &a, attrs, true)
		a.attrs = attrs[start:len(attrs):len(attrs)]
		ops = a.finish(t.key, ops)
		if code == uint64(len(t.dense))+1 && t.other == nil {
			t.dense = append(t.dense, a)
		} else {
			if t.other == nil {
				t.other = make(map[uint64]abbrev)
			}
			t.other[code] = a
		}
	}
}

// unit is one unit header of .debug_info(.dwo) plus what its unit DIE
// says about how to read the rest.
type unit struct {
	df       *dwarfFile
	off      uint64 // offset of the unit header
	dieOff   uint64 // offset of the unit DIE
	end      uint64 // offset past the unit
	version  uint16
	unitType uint8
	addrSize uint8
	offSize  uint8
	abbrevs  *abbrevTable

	dwoID    uint64
	hasDWOID bool

	// From the unit DIE (or, for split units, from the skeleton).
	strOffsetsBase uint64 // absolute offset into .debug_str_offsets
	addrBase       uint64 // absolute offset into .debug_addr
	addrSec        []byte // .debug_addr to use (the skeleton's for split units)
	rnglistsBase   uint64 // absolute offset of the offsets array in .debug_rnglists
	hasRnglistBase bool
	rangesBase     uint64 // v4 split units: added to DW_AT_ranges (.debug_ranges of the skeleton's file)
	rangesSec      []byte // .debug_ranges to use
	baseAddr       uint64
	hasBaseAddr    bool
	compDir        string
	hasCompDir     bool
	stmtList       uint64
	hasStmtList    bool
	dwoName        string
	hasDWOName     bool

	skeleton *unit // for a split unit, its skeleton
	cuDIE    die

	// Lazily built state (see cu.go).
	once  sync.Once
	state *cuState
	err   error

	ltOnce sync.Once
	lt     *lineTable
	ltErr  error

	splitOnce sync.Once
	split     *unit
	splitErr  error
}

// parseUnits reads all unit headers of df.sec.info.
func (df *dwarfFile) parseUnits() error {
	b := newCursor(df.file, df.secName(".debug_info"), df.sec.info, 0, df.order)
	for b.Remaining() > 0 {
		u, err := df.parseUnitHeader(&b)
		if err != nil {
			if df.warn == nil {
				return err
			}
			// LLVM's DWARFUnitVector stops at the first unit header it
			// cannot read and keeps the units before it.
			df.warn(err.Error())
			return nil
		}
		df.units = append(df.units, u)
		b.Seek(u.end)
	}
	return b.Err()
}

// parseUnitHeader reads the unit header at uint64(b.Off()); it leaves b anywhere.
func (df *dwarfFile) parseUnitHeader(b *decode.Cursor) (*unit, error) {
	u := &unit{df: df, off: uint64(b.Off())}
	n, offSize := unitLength(b)
	if b.Err() != nil {
		return nil, b.Err()
	}
	if n > uint64(b.Remaining()) {
		b.Fail(decode.ErrMalformed, "unit length %#x exceeds section (%#x bytes left)", n, uint64(b.Remaining()))
		return nil, b.Err()
	}
	u.end = uint64(b.Off()) + n
	u.offSize = offSize
	u.version = b.U16()
	var abbrevOff uint64
	switch {
	case u.version >= 2 && u.version <= 4:
		abbrevOff = b.UintN(offSize)
		u.addrSize = b.U8()
		u.unitType = utCompile
	case u.version == 5:
		u.unitType = b.U8()
		u.addrSize = b.U8()
		abbrevOff = b.UintN(offSize)
		switch u.unitType {
		case utSkeleton, utSplitCompile:
			u.dwoID = b.U64()
			u.hasDWOID = true
		case utType, utSplitType:
			b.U64()
			b.UintN(offSize)
		}
	default:
		b.FailAt(int64(u.off), decode.ErrUnsupportedVersion, "unsupported DWARF version %d", u.version)
		return nil, b.Err()
	}
	if b.Err() == nil && u.addrSize != 4 && u.addrSize != 8 {
		b.FailAt(int64(u.off), decode.ErrMalformed, "unsupported address size %d", u.addrSize)
	}
	if b.Err() != nil {
		return nil, b.Err()
	}
	if uint64(b.Off()) > u.end {
		b.FailAt(int64(u.off), decode.ErrMalformed, "unit header longer than unit")
		return nil, b.Err()
	}
	u.dieOff = uint64(b.Off())
	if df.abbrevAdj != nil {
		abbrevOff += df.abbrevAdj(u.off)
	}
	t, err := df.abbrevTable(abbrevOff, u.sizes())
	if err != nil {
		if df.warn == nil {
			return nil, err
		}
		// LLVM keeps the unit, with no DIEs ("contains invalid
		// abbreviation set offset"): nil abbreviations decode nothing.
		df.warn(fmt.Sprintf("%v; the DWARF unit at offset %#x, whose abbreviations start there, has no DIEs", err, u.off))
		t = nil
	}
	u.abbrevs = t
	return u, nil
}

func (u *unit) sizes() sizesKey {
	return sizesKey{addrSize: u.addrSize, offSize: u.offSize, v2: u.version <= 2}
}

// readAbbrev reads the abbreviation code of the DIE at b.Off() and
// returns its abbreviation: nil, true for code 0 (the end of a sibling
// list); nil, false when the code cannot be read or is unknown (b fails).
func (u *unit) readAbbrev(b *decode.Cursor) (*abbrev, bool) {
	start := b.Off()
	code := b.Uleb()
	if b.Err() != nil {
		return nil, false
	}
	if code == 0 {
		return nil, true
	}
	a, found := u.abbrevs.get(code)
	if !found {
		b.FailAt(int64(start), decode.ErrMalformed, "unknown abbreviation code %d", code)
		return nil, false
	}
	return a, true
}

// skipDIE advances b past the DIE at uint64(b.Off()) without decoding its values.
// It returns the abbreviation (nil at the end of a sibling list).
func (u *unit) skipDIE(b *decode.Cursor) (*abbrev, bool) {
	a, ok := u.readAbbrev(b)
	if a == nil {
		return nil, ok
	}
	k := u.sizes()
	if u.abbrevs.key == k {
		if a.fixed >= 0 {
			b.Skip(uint64(a.fixed))
			return a, b.Err() == nil
		}
		if a.skip != nil {
			if end, ok := skipFast(b.Data(), uint64(b.Off()), a.skip, u.df.order); ok {
				b.Seek(end)
				return a, true
			}
			// Truncated or malformed: the slow path names the problem.
		}
	}
	for i := range a.attrs {
		if !u.skipForm(b, a.attrs[i].form, k) {
			return nil, false
		}
	}
	return a, b.Err() == nil
}

// skipFast steps over the values described by ops starting at off in data
// and returns the offset after them; ok is false when data ends first.
func skipFast(data []byte, off uint64, ops []skipOp, order binary.ByteOrder) (uint64, bool) {
	n := uint64(len(data))
	for _, op := range ops {
		off += uint64(op.pre)
		if off > n {
			return 0, false
		}
		var size uint64
		switch op.form {
		case 0:
			continue
		case formSdata, formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
			for {
				if off >= n {
					return 0, false
				}
				c := data[off]
				off++
				if c < 0x80 {
					break
				}
			}
			continue
		case formString:
			i := bytes.IndexByte(data[off:], 0)
			if i < 0 {
				return 0, false
			}
			off += uint64(i) + 1
			continue
		case formBlock, formExprloc:
			var shift uint
			for {
				if off >= n {
					return 0, false
				}
				c := data[off]
				off++
				if shift < 64 {
					size |= uint64(c&0x7f) << shift
				}
				shift += 7
				if c < 0x80 {
					break
				}
			}
		case formBlock1:
			if off+1 > n {
				return 0, false
			}
			size = uint64(data[off])
			off++
		case formBlock2:
			if off+2 > n {
				return 0, false
			}
			size = uint64(order.Uint16(data[off:]))
			off += 2
		case formBlock4:
			if off+4 > n {
				return 0, false
			}
			size = uint64(order.Uint32(data[off:]))
			off += 4
		default:
			return 0, false
		}
		if size > n-off {
			return 0, false
		}
		off += size
	}
	return off, true
}

// isCompile reports whether the unit holds code (not a type unit).
func (u *unit) isCompile() bool {
	// LLVM's DWARFUnitVector makes every unit that is not a type unit a
	// compile unit, whatever its DW_UT_ value.
	return u.unitType != utType && u.unitType != utSplitType
}

// unitAt returns the unit of df containing the .debug_info offset off.
func (df *dwarfFile) unitAt(off uint64) *unit {
	i := sort.Search(len(df.units), func(i int) bool { return df.units[i].end > off })
	if i < len(df.units) && df.units[i].dieOff <= off {
		return df.units[i]
	}
	return nil
}

// attrVal is one decoded attribute value. Strings are resolved lazily
// (str/strx) so walking DIEs does not allocate them.
type attrVal struct {
	val  uint64 // constant, address, reference (absolute .debug_info offset), string offset or index; for DW_FORM_string the string's .debug_info offset
	form uint16
	set  bool
}

// die is a decoded DIE holding only the attributes the symbolizer needs.
type die struct {
	off         uint64
	tag         uint16
	hasChildren bool
	sibling     uint64 // absolute offset, 0 if none

	name, linkageName, mipsLinkageName attrVal
	abstractOrigin, specification      attrVal
	declFile, declLine                 attrVal
	callFile, callLine, callColumn     attrVal
	discriminator                      attrVal
	lowPC, highPC, ranges, entryPC     attrVal
	stmtList, compDir                  attrVal
	strOffsetsBase, addrBase           attrVal
	rnglistsBase                       attrVal
	dwoName, gnuDWOName, gnuDWOID      attrVal
	gnuRangesBase, gnuAddrBase         attrVal
}

func (d *die) slot(at uint16) *attrVal {
	switch at {
	case atName:
		return &d.name
	case atLinkageName:
		return &d.linkageName
	case atMIPSLinkageName:
		return &d.mipsLinkageName
	case atAbstractOrigin:
		return &d.abstractOrigin
	case atSpecification:
		return &d.specification
	case atDeclFile:
		return &d.declFile
	case atDeclLine:
		return &d.declLine
	case atCallFile:
		return &d.callFile
	case atCallLine:
		return &d.callLine
	case atCallColumn:
		return &d.callColumn
	case atGNUDiscriminator:
		return &d.discriminator
	case atLowPC:
		return &d.lowPC
	case atHighPC:
		return &d.highPC
	case atRanges:
		return &d.ranges
	case atEntryPC:
		return &d.entryPC
	case atStmtList:
		return &d.stmtList
	case atCompDir:
		return &d.compDir
	case atStrOffsetsBase:
		return &d.strOffsetsBase
	case atAddrBase:
		return &d.addrBase
	case atRnglistsBase:
		return &d.rnglistsBase
	case atDWOName:
		return &d.dwoName
	case atGNUDWOName:
		return &d.gnuDWOName
	case atGNUDWOID:
		return &d.gnuDWOID
	case atGNURangesBase:
		return &d.gnuRangesBase
	case atGNUAddrBase:
		return &d.gnuAddrBase
	}
	return nil
}

// readDIE decodes the DIE at uint64(b.Off()) in unit u. A zero abbreviation code
// (end of siblings) returns ok == false with no error.
func (u *unit) readDIE(b *decode.Cursor, d *die) (ok bool) {
	*d = die{off: uint64(b.Off())}
	a, _ := u.readAbbrev(b)
	if a == nil {
		return false
	}
	d.tag = a.tag
	d.hasChildren = a.children
	for i := range a.attrs {
		aa := &a.attrs[i]
		v, ok := u.value(b, aa.form, aa.implicit)
		if !ok {
			return false
		}
		if aa.attr == atSibling {
			if isRefForm(v.form) && v.form != formRefAddr {
				d.sibling = v.val
			}
			continue
		}
		if s := d.slot(aa.attr); s != nil {
			*s = v
		}
	}
	return b.Err() == nil
}

// readRangeAttrs decodes only the address-range attributes of the DIE at
// uint64(b.Off()) (low_pc, high_pc, ranges), skipping the other values.
func (u *unit) readRangeAttrs(b *decode.Cursor, d *die) bool {
	d.off = uint64(b.Off())
	d.lowPC, d.highPC, d.ranges = attrVal{}, attrVal{}, attrVal{}
	a, _ := u.readAbbrev(b)
	if a == nil {
		return false
	}
	d.tag = a.tag
	d.hasChildren = a.children
	k := u.sizes()
	for i := range a.attrs {
		aa := &a.attrs[i]
		switch aa.attr {
		case atLowPC, atHighPC, atRanges:
			v, ok := u.value(b, aa.form, aa.implicit)
			if !ok {
				return false
			}
			*d.slot(aa.attr) = v
		default:
			if !u.skipForm(b, aa.form, k) {
				return false
			}
		}
	}
	return b.Err() == nil
}

// value decodes one attribute value of the given form.
func (u *unit) value(b *decode.Cursor, form uint16, implicit int64) (attrVal, bool) {
	var v attrVal
	for depth := 0; form == formIndirect; depth++ {
		f := b.Uleb()
		if depth > 4 || f > 0xffff {
			b.Fail(decode.ErrMalformed, "bad DW_FORM_indirect")
			return v, false
		}
		form = uint16(f)
	}
	v.form = form
	v.set = true
	switch form {
	case formAddr:
		v.val = b.UintN(u.addrSize)
	case formBlock2:
		b.Skip(uint64(b.U16()))
	case formBlock4:
		b.Skip(uint64(b.U32()))
	case formData2:
		v.val = uint64(b.U16())
	case formData4:
		v.val = uint64(b.U32())
	case formData8:
		v.val = b.U64()
	case formString:
		v.val = uint64(b.Off())
		b.SkipCString()
	case formBlock, formExprloc:
		b.Skip(b.Uleb())
	case formBlock1:
		b.Skip(uint64(b.U8()))
	case formData1, formFlag:
		v.val = uint64(b.U8())
	case formSdata:
		v.val = uint64(b.Sleb())
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNUStrpAlt:
		v.val = b.UintN(u.offSize)
	case formUdata:
		v.val = b.Uleb()
	case formRefAddr:
		if u.version <= 2 {
			v.val = b.UintN(u.addrSize)
		} else {
			v.val = b.UintN(u.offSize)
		}
	case formGNURefAlt:
		v.val = b.UintN(u.offSize)
	case formRef1:
		v.val = u.off + uint64(b.U8())
	case formRef2:
		v.val = u.off + uint64(b.U16())
	case formRef4:
		v.val = u.off + uint64(b.U32())
	case formRef8:
		v.val = u.off + b.U64()
	case formRefUdata:
		v.val = u.off + b.Uleb()
	case formFlagPresent:
		v.val = 1
	case formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		v.val = b.Uleb()
	case formRefSup4:
		v.val = uint64(b.U32())
	case formRefSup8, formRefSig8:
		v.val = b.U64()
	case formData16:
		b.Skip(16)
	case formImplicitConst:
		v.val = uint64(implicit)
	case formStrx1, formAddrx1:
		v.val = uint64(b.U8())
	case formStrx2, formAddrx2:
		v.val = uint64(b.U16())
	case formStrx3, formAddrx3:
		v.val = uint64(b.U24())
	case formStrx4, formAddrx4:
		v.val = uint64(b.U32())
	default:
		b.Fail(decode.ErrMalformed, "unknown attribute form %#x", form)
		return v, false
	}
	return v, b.Err() == nil
}

// skipForm skips one attribute value.
func (u *unit) skipForm(b *decode.Cursor, form uint16, k sizesKey) bool {
	for depth := 0; form == formIndirect; depth++ {
		f := b.Uleb()
		if depth > 4 || f > 0xffff {
			b.Fail(decode.ErrMalformed, "bad DW_FORM_indirect")
			return false
		}
		form = uint16(f)
	}
	if n := formSize(form, k); n >= 0 {
		b.Skip(uint64(n))
		return b.Err() == nil
	}
	switch form {
	case formString:
		b.SkipCString()
	case formBlock, formExprloc:
		b.Skip(b.Uleb())
	case formBlock1:
		b.Skip(uint64(b.U8()))
	case formBlock2:
		b.Skip(uint64(b.U16()))
	case formBlock4:
		b.Skip(uint64(b.U32()))
	case formSdata, formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		b.Uleb()
	default:
		b.Fail(decode.ErrMalformed, "unknown attribute form %#x", form)
		return false
	}
	return b.Err() == nil
}

func isRefForm(f uint16) bool {
	switch f {
	case formRef1, formRef2, formRef4, formRef8, formRefUdata, formRefAddr:
		return true
	}
	return false
}

func isConstForm(f uint16) bool {
	switch f {
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formImplicitConst:
		return true
	}
	return false
}

// constant returns an attribute's value if it has constant class, as LLVM's
// toUnsigned does.
func (v attrVal) constant() (uint64, bool) {
	if !v.set || !isConstForm(v.form) {
		return 0, false
	}
	return v.val, true
}

// sectionOffset returns a sec_offset-class value (DWARF 2/3 used data4/8).
func (v attrVal) sectionOffset() (uint64, bool) {
	if !v.set {
		return 0, false
	}
	switch v.form {
	case formSecOffset, formData4, formData8:
		return v.val, true
	}
	return 0, false
}

// str resolves a string-class attribute.
func (u *unit) str(v attrVal) (string, bool) {
	if !v.set {
		return "", false
	}
	sec := &u.df.sec
	switch v.form {
	case formString:
		return decode.CStringAt(sec.info, v.val)
	case formStrp:
		return decode.CStringAt(sec.str, v.val)
	case formLineStrp:
		return decode.CStringAt(sec.lineStr, v.val)
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		off := u.strOffsetsBase + v.val*uint64(u.offSize)
		if v.val > uint64(len(sec.strOffsets)) || off+uint64(u.offSize) > uint64(len(sec.strOffsets)) {
			return "", false
		}
		var so uint64
		if u.offSize == 8 {
			so = u.df.order.Uint64(sec.strOffsets[off:])
		} else {
			so = uint64(u.df.order.Uint32(sec.strOffsets[off:]))
		}
		return decode.CStringAt(sec.str, so)
	}
	return "", false
}

// addr resolves an address-class attribute.
func (u *unit) addr(v attrVal) (uint64, bool) {
	if !v.set {
		return 0, false
	}
	switch v.form {
	case formAddr:
		return v.val, true
	case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4, formGNUAddrIndex:
		return u.addrIndex(v.val)
	}
	return 0, false
}

func (u *unit) addrIndex(i uint64) (uint64, bool) {
	as := uint64(u.addrSize)
	if i > uint64(len(u.addrSec)) {
		return 0, false
	}
	off := u.addrBase + i*as
	if off < u.addrBase || off+as > uint64(len(u.addrSec)) {
		return 0, false
	}
	if as == 8 {
		return u.df.order.Uint64(u.addrSec[off:]), true
	}
	return uint64(u.df.order.Uint32(u.addrSec[off:])), true
}

// readUnitDIE decodes the unit DIE and sets the unit's bases. For split
// units the skeleton's values are applied by the caller afterwards.
func (u *unit) readUnitDIE() error {
	b := newCursor(u.df.file, u.df.secName(".debug_info"), u.df.sec.info[:u.end], u.dieOff, u.df.order)
	var d die
	if !u.readDIE(&b, &d) {
		if b.Err() != nil {
			return b.Err()
		}
		return newError(u.df.file, u.df.secName(".debug_info"), u.dieOff, decode.ErrMalformed, "unit has no DIE")
	}
	u.cuDIE = d
	u.addrSec = u.df.sec.addr
	u.rangesSec = u.df.sec.ranges
	if v, ok := d.strOffsetsBase.sectionOffset(); ok {
		u.strOffsetsBase = v
	} else if u.version >= 5 && len(u.df.sec.strOffsets) >= 8 && !u.df.dwo {
		// LLVM assumes the header size when the attribute is missing.
		u.strOffsetsBase = 8
	}
	if v, ok := d.addrBase.sectionOffset(); ok {
		u.addrBase = v
	} else if v, ok := d.gnuAddrBase.sectionOffset(); ok {
		u.addrBase = v
	}
	if v, ok := d.rnglistsBase.sectionOffset(); ok {
		u.rnglistsBase = v
		u.hasRnglistBase = true
	}
	if v, ok := d.gnuRangesBase.sectionOffset(); ok {
		u.rangesBase = v
	}
	if id, ok := d.gnuDWOID.constant(); ok && !u.hasDWOID {
		u.dwoID = id
		u.hasDWOID = true
	}
	if d.gnuDWOID.set && d.gnuDWOID.form == formData8 && !u.hasDWOID {
		u.dwoID, u.hasDWOID = d.gnuDWOID.val, true
	}
	if s, ok := u.str(d.compDir); ok {
		u.compDir, u.hasCompDir = s, true
	}
	if v, ok := d.stmtList.sectionOffset(); ok {
		u.stmtList, u.hasStmtList = v, true
	}
	name := d.dwoName
	if u.version < 5 {
		name = d.gnuDWOName
	}
	if s, ok := u.str(name); ok {
		u.dwoName, u.hasDWOName = s, true
	}
	if a, ok := u.addr(d.lowPC); ok {
		u.baseAddr, u.hasBaseAddr = a, true
	} else if a, ok := u.addr(d.entryPC); ok {
		u.baseAddr, u.hasBaseAddr = a, true
	}
	return nil
}

// subDIE is the part of a subroutine DIE kept after the tree walk.
type subDIE struct {
	off                                uint64
	tag                                uint16
	name, linkageName, mipsLinkageName attrVal
	abstractOrigin, specification      attrVal
	declFile, declLine                 attrVal
	callFile, callLine, callColumn     attrVal
	discriminator, lowPC               attrVal
}

func (d *die) sub() subDIE {
	return subDIE{
		off: d.off, tag: d.tag,
		name: d.name, linkageName: d.linkageName, mipsLinkageName: d.mipsLinkageName,
		abstractOrigin: d.abstractOrigin, specification: d.specification,
		declFile: d.declFile, declLine: d.declLine,
		callFile: d.callFile, callLine: d.callLine, callColumn: d.callColumn,
		discriminator: d.discriminator, lowPC: d.lowPC,
	}
}
