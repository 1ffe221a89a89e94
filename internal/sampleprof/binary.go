package sampleprof

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// The binary encodings (SampleProfReader.cpp), every integer ULEB128
// unless noted:
//
//	raw binary:  magic(0x...ff) version(103) SUMMARY NAMES FUNC...
//	extbinary:   magic(0x...04) version(103) u64le N, N × {u64le type, flags, offset, size},
//	             then the sections, read in table order:
//	  1 summary       SUMMARY (flags: partial, context, fs, preinlined, vtables)
//	  2 name table    N NAME\0... | N u64le MD5... (flags md5|fixlenmd5)
//	  6 CS name table N × (M × (nameidx line disc))
//	  4 func offsets  N × (idx offset)            (not needed to read everything)
//	 32 LBR profile   FUNC...
//	  3 symbol list   NAME\0...
//	  5 metadata      per function: idx [checksum] [attributes] [callsite metadata...]
//	a compressed section is: uncompressed size, compressed size, zlib stream
//	(read to its end through decode.Uncompress: adler32 checked, exactly the
//	size claimed, else LLVM's "Uncompress failure"; a function offset table
//	claiming one byte more than its stream gives passes llvm-profdata, which
//	never reads it, not us: TestCompressedSectionCorruption).
//
//	SUMMARY = total maxcount maxfunc numcounts numfuncs N × (cutoff mincount numcounts)
//	FUNC    = head BODY
//	BODY    = nameidx total N × (line disc samples M × (nameidx count))
//	          K × (line disc BODY) [V × (line disc T × (nameidx count))]   (vtables: flag)

// Read reads a sample profile in any encoding, detected from its first
// bytes (LLVM's order: extbinary, raw binary, text).
func Read(name string, data []byte, opts ReadOptions) (*Profile, error) {
	c := decode.NewCursor(format, name, "header", data, 0)
	switch magic := c.Uleb(); {
	case c.Err() == nil && magic == magicExt:
		return ReadExtBinary(name, data, opts)
	case c.Err() == nil && magic == magicRaw:
		return ReadBinary(name, data, opts)
	}
	return ReadText(name, data, opts)
}

type binReader struct {
	c        decode.Cursor
	p        *Profile
	names    []FunctionID
	ctxs     [][]Frame
	vtables  bool
	overflow bool
	calls    []CallTarget
	// md5Strings: MD5 names become decimal strings (LLVM 16).
	md5Strings bool
}

func (r *binReader) md5Name(h uint64) FunctionID {
	if r.md5Strings {
		return Name(strconv.FormatUint(h, 10))
	}
	return HashID(h)
}

func (r *binReader) num(max uint64, what string) uint64 {
	at := r.c.Off()
	v := r.c.Uleb()
	if r.c.Err() == nil && v > max {
		r.c.FailAt(int64(at), decode.ErrMalformed, "%s %d is out of range", what, v)
		return 0
	}
	return v
}

// count reads a ULEB count of elements of at least minSize bytes each.
func (r *binReader) count(minSize int, what string) int {
	at := r.c.Off()
	v := r.c.Uleb()
	if r.c.Err() == nil && v > uint64(r.c.Remaining()/minSize) {
		r.c.FailAt(int64(at), decode.ErrTruncated, "%s %d does not fit in the %d bytes left", what, v, r.c.Remaining())
		return 0
	}
	return int(v)
}

func (r *binReader) name() FunctionID {
	at := r.c.Off()
	i := r.c.Uleb()
	if r.c.Err() != nil {
		return FunctionID{}
	}
	if i >= uint64(len(r.names)) {
		r.c.FailAt(int64(at), decode.ErrMalformed, "name index %d out of range (%d names)", i, len(r.names))
		return FunctionID{}
	}
	return r.names[i]
}

func (r *binReader) loc(checkLine bool, what string) LineLocation {
	at := r.c.Off()
	line := r.num(0xffffffff, what+" line offset")
	if checkLine && line > 0xffff && r.c.Err() == nil {
		r.c.FailAt(int64(at), decode.ErrMalformed, "illegal line offset %d", line)
	}
	disc := r.num(^uint64(0), what+" discriminator")
	return LineLocation{uint32(line), uint32(disc)}
}

// body reads BODY (after the name or context) into fs, recursively.
func (r *binReader) body(fs *FunctionSamples, depth int) {
	if depth > 1000 {
		r.c.Fail(decode.ErrMalformed, "inlinees nested too deeply")
		return
	}
	var o bool
	fs.TotalSamples, o = satMulAdd(fs.TotalSamples, r.c.Uleb(), 1)
	r.overflow = r.overflow || o
	n := r.count(4, "body records")
	for i := 0; i < n && r.c.Err() == nil; i++ {
		loc := r.loc(true, "body")
		samples := r.c.Uleb()
		calls := r.count(2, "call targets")
		b := fs.BodyAt(loc)
		r.calls = r.calls[:0]
		for j := 0; j < calls && r.c.Err() == nil; j++ {
			f := r.name()
			r.calls = append(r.calls, CallTarget{f, r.c.Uleb()})
		}
		slices.SortStableFunc(r.calls, func(x, y CallTarget) int { return x.Func.Compare(y.Func) })
		b.addCalls(r.calls, 1, &r.overflow)
		b.Samples, o = satMulAdd(b.Samples, samples, 1)
		r.overflow = r.overflow || o
	}
	n = r.count(5, "callsites")
	for i := 0; i < n && r.c.Err() == nil; i++ {
		loc := r.loc(false, "callsite")
		f := r.name()
		if r.c.Err() != nil {
			return
		}
		r.body(fs.CalleeAt(loc, f), depth+1)
	}
	if r.vtables {
		n = r.count(3, "vtable callsites")
		for i := 0; i < n && r.c.Err() == nil; i++ {
			loc := r.loc(true, "vtable")
			site := fs.VTablesAt(loc)
			types := r.count(2, "vtable types")
			for j := 0; j < types && r.c.Err() == nil; j++ {
				t := r.name()
				// A duplicate type is ignored, with a warning in LLVM.
				if site.FindType(t) == nil {
					site.add(t, r.c.Uleb(), 1, &r.overflow)
				} else {
					r.c.Uleb()
				}
			}
		}
	}
}

// FindType returns the count entry of type t or nil.
func (v *VTableSite) FindType(t FunctionID) *TypeCount {
	i, found := slices.BinarySearchFunc(v.Types, t, func(c TypeCount, f FunctionID) int { return c.Type.Compare(f) })
	if !found {
		return nil
	}
	return &v.Types[i]
}

// function reads FUNC: a top-level profile.
func (r *binReader) function() {
	head := r.c.Uleb()
	var fs *FunctionSamples
	if r.p.CS {
		at := r.c.Off()
		i := r.c.Uleb()
		if r.c.Err() != nil {
			return
		}
		if i >= uint64(len(r.ctxs)) {
			r.c.FailAt(int64(at), decode.ErrMalformed, "context index %d out of range (%d contexts)", i, len(r.ctxs))
			return
		}
		fs = r.p.GetContext(r.ctxs[i])
	} else {
		f := r.name()
		if r.c.Err() != nil {
			return
		}
		fs = r.p.Get(f)
	}
	var o bool
	fs.HeadSamples, o = satMulAdd(fs.HeadSamples, head, 1)
	r.overflow = r.overflow || o
	r.body(fs, 0)
}

func (r *binReader) summary() *Summary {
	s := &Summary{}
	s.TotalCount = r.c.Uleb()
	s.MaxCount = r.c.Uleb()
	s.MaxFunctionCount = r.c.Uleb()
	s.NumCounts = r.c.Uleb()
	s.NumFunctions = r.c.Uleb()
	n := r.count(3, "summary entries")
	for i := 0; i < n && r.c.Err() == nil; i++ {
		s.Detailed = append(s.Detailed, SummaryEntry{r.c.Uleb(), r.c.Uleb(), r.c.Uleb()})
	}
	return s
}

func (r *binReader) stringNames() {
	n := r.count(1, "names")
	r.names = make([]FunctionID, 0, n)
	for i := 0; i < n && r.c.Err() == nil; i++ {
		r.names = append(r.names, Name(r.c.CString()))
	}
}

func (r *binReader) finish(name string) (*Profile, error) {
	if err := r.c.Err(); err != nil {
		return nil, err
	}
	if r.overflow {
		return nil, &decode.Error{Format: format, File: name, Section: r.c.Section, Offset: int64(r.c.Off()),
			Msg: "counter overflow", Err: decode.ErrMalformed}
	}
	return r.p, nil
}

// ReadBinary reads a raw binary profile (SPF_Binary).
func ReadBinary(name string, data []byte, opts ReadOptions) (*Profile, error) {
	r := binReader{c: decode.NewCursor(format, name, "header", data, 0), p: &Profile{}}
	if err := readMagic(&r.c, magicRaw); err != nil {
		return nil, err
	}
	r.c.Section = "summary"
	r.p.summary = r.summary()
	r.c.Section = "name table"
	r.stringNames()
	r.c.Section = "profiles"
	for r.c.Err() == nil && r.c.Remaining() > 0 {
		r.function()
	}
	return r.finish(name)
}

func readMagic(c *decode.Cursor, want uint64) error {
	magic := c.Uleb()
	if err := c.Err(); err != nil {
		return err
	}
	if magic != want {
		return c.Errorf(0, decode.ErrBadMagic, "bad magic %#x", magic)
	}
	at := c.Off()
	v := c.Uleb()
	if err := c.Err(); err != nil {
		return err
	}
	if v != spVersion {
		return c.Errorf(int64(at), decode.ErrUnsupportedVersion, "version %d, want %d", v, spVersion)
	}
	return nil
}

// Section is one entry of an extbinary section table.
type Section struct {
	Type, Flags, Offset, Size uint64
}

var sectionNames = map[uint64]string{secProfSummary: "summary section", secNameTable: "name table section",
	secProfSymbolList: "symbol list section", secFuncOffsetTable: "function offset section",
	secFuncMetadata: "function metadata section", secCSNameTable: "CS name table section", secLBRProfile: "profile section"}

// ReadSections reads the section table of an extensible binary profile.
func ReadSections(name string, data []byte) ([]Section, error) {
	c := decode.NewCursor(format, name, "header", data, 0)
	if err := readMagic(&c, magicExt); err != nil {
		return nil, err
	}
	n := c.Count(32, "sections")
	secs := make([]Section, 0, n)
	for i := 0; i < n; i++ {
		// LLVM casts the type to its SecType enum, an int: the upper half
		// of the field is never looked at.
		typ := uint64(uint32(c.U64()))
		secs = append(secs, Section{typ, c.U64(), c.U64(), c.U64()})
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return secs, nil
}

// ReadExtBinary reads an extensible binary profile (SPF_Ext_Binary).
//
// LLVM 16 (opts.LLVM) holds MD5 names as their decimal strings, which then
// sort as strings; later releases keep them as numbers.
func ReadExtBinary(name string, data []byte, opts ReadOptions) (*Profile, error) {
	secs, err := ReadSections(name, data)
	if err != nil {
		return nil, err
	}
	// The header is the 9-byte magic, the 1-byte version, the count and
	// the table.
	n := len(secs)
	tableEnd := 9 + 1 + 8 + 32*n
	p := &Profile{}
	r := binReader{p: p, md5Strings: opts.llvm().SampleLegacyReader16()}
	var attrs bool
	for i, s := range secs {
		if s.Size == 0 {
			continue
		}
		secName := sectionNames[s.Type]
		if secName == "" {
			secName = fmt.Sprintf("section %d", s.Type)
		}
		if s.Offset > uint64(len(data)) || s.Size > uint64(len(data))-s.Offset {
			return nil, &decode.Error{Format: format, File: name, Section: "section table",
				Offset: int64(tableEnd - 32*(n-i)), Err: decode.ErrTruncated,
				Msg: fmt.Sprintf("%s at %#x size %#x lies outside the file (%#x bytes)", secName, s.Offset, s.Size, len(data))}
		}
		if s.Flags&secFlagComp != 0 {
			sec, err := decompress(name, secName, data, s.Offset, s.Offset+s.Size)
			if err != nil {
				return nil, err
			}
			// Offsets of errors are within the decompressed bytes.
			r.c = decode.NewCursor(format, name, "decompressed "+secName, sec, 0)
		} else {
			// Offsets of errors are file offsets: the cursor reads the
			// file, ending where the section ends.
			r.c = decode.NewCursor(format, name, secName, data[:s.Offset+s.Size], int(s.Offset))
		}
		switch s.Type {
		case secProfSummary:
			p.summary = r.summary()
			p.Partial = p.Partial || s.Flags&flagPartial != 0
			p.CS = p.CS || s.Flags&flagFullContext != 0
			p.PreInlined = p.PreInlined || s.Flags&flagIsPreInlined != 0
			p.FS = p.FS || s.Flags&flagFSDiscriminator != 0
			r.vtables = r.vtables || s.Flags&flagHasVTableTypes != 0
		case secNameTable:
			r.nameTable(s.Flags)
		case secCSNameTable:
			r.csNameTable()
		case secLBRProfile:
			for r.c.Err() == nil && r.c.Remaining() > 0 {
				r.function()
			}
		case secFuncOffsetTable:
			r.c.Skip(uint64(r.c.Remaining()))
		case secFuncMetadata:
			p.ProbeBased = s.Flags&flagProbeBased != 0
			attrs = s.Flags&flagHasAttribute != 0
			for r.c.Err() == nil && r.c.Remaining() > 0 {
				r.metadata(attrs, nil, true, 0)
			}
		case secProfSymbolList:
			rest := r.c.Bytes(uint64(r.c.Remaining()))
			for len(rest) > 0 {
				s, tail, _ := bytes.Cut(rest, []byte{0})
				p.SymbolList = append(p.SymbolList, string(s))
				rest = tail
			}
		default:
			r.c.Skip(uint64(r.c.Remaining()))
		}
		if err := r.c.Err(); err != nil {
			return nil, err
		}
		if r.c.Remaining() != 0 {
			return nil, r.c.Errorf(int64(r.c.Off()), decode.ErrMalformed, "%d bytes left unread at the end of the section", r.c.Remaining())
		}
	}
	if r.overflow {
		return nil, &decode.Error{Format: format, File: name, Section: "profile section", Msg: "counter overflow", Err: decode.ErrMalformed}
	}
	slices.Sort(p.SymbolList)
	p.SymbolList = slices.Compact(p.SymbolList)
	return p, nil
}

// decompress inflates the compressed section at [off, end) of data:
// ULEB uncompressed size, ULEB compressed size, the zlib stream. Offsets
// of errors are file offsets.
func decompress(name, secName string, data []byte, off, end uint64) ([]byte, error) {
	c := decode.NewCursor(format, name, secName, data[:end], int(off))
	size := c.Uleb()
	csize := c.Uleb()
	if c.Err() == nil && csize > uint64(c.Remaining()) {
		c.Fail(decode.ErrMalformed, "compressed size %d exceeds the %d bytes of the section", csize, c.Remaining())
	}
	// LLVM's word for any failure here is "Uncompress failure".
	out := c.Uncompress(csize, size, "Uncompress failure")
	return out, c.Err()
}

func (r *binReader) nameTable(flags uint64) {
	switch {
	case flags&flagFixedLengthMD5 != 0:
		// handled below
	case flags&flagMD5Name != 0:
		n := r.count(1, "MD5 names")
		r.names = make([]FunctionID, 0, n)
		for i := 0; i < n && r.c.Err() == nil; i++ {
			r.names = append(r.names, r.md5Name(r.c.Uleb()))
		}
		return
	default:
		r.stringNames()
		return
	}
	n := r.count(8, "MD5 names")
	r.names = make([]FunctionID, 0, n)
	for i := 0; i < n && r.c.Err() == nil; i++ {
		r.names = append(r.names, r.md5Name(r.c.U64()))
	}
}

func (r *binReader) csNameTable() {
	n := r.count(1, "contexts")
	r.ctxs = make([][]Frame, 0, n)
	for i := 0; i < n && r.c.Err() == nil; i++ {
		m := r.count(3, "context frames")
		frames := make([]Frame, 0, m)
		for j := 0; j < m && r.c.Err() == nil; j++ {
			f := r.name()
			frames = append(frames, Frame{Func: f, Loc: r.loc(true, "context")})
		}
		if m == 0 && r.c.Err() == nil {
			r.c.Fail(decode.ErrMalformed, "empty context")
		}
		r.ctxs = append(r.ctxs, frames)
	}
}

// metadata reads one function's metadata record into fs (nil: skip).
func (r *binReader) metadata(attrs bool, fs *FunctionSamples, top bool, depth int) {
	if depth > 1000 {
		r.c.Fail(decode.ErrMalformed, "metadata nested too deeply")
		return
	}
	if top {
		at := r.c.Off()
		i := r.c.Uleb()
		if r.c.Err() != nil {
			return
		}
		if r.p.CS {
			if i >= uint64(len(r.ctxs)) {
				r.c.FailAt(int64(at), decode.ErrMalformed, "context index %d out of range (%d contexts)", i, len(r.ctxs))
				return
			}
			fs = r.p.LookupContext(r.ctxs[i])
		} else {
			if i >= uint64(len(r.names)) {
				r.c.FailAt(int64(at), decode.ErrMalformed, "name index %d out of range (%d names)", i, len(r.names))
				return
			}
			fs = r.p.Lookup(r.names[i])
		}
	}
	if r.p.ProbeBased {
		if h := r.c.Uleb(); fs != nil {
			fs.Checksum = h
		}
	}
	if attrs {
		if a := r.num(0xffffffff, "attributes"); fs != nil {
			fs.Attributes = uint32(a)
		}
	}
	if r.p.CS {
		return
	}
	n := r.count(3, "metadata callsites")
	for i := 0; i < n && r.c.Err() == nil; i++ {
		line := r.c.Uleb()
		disc := r.c.Uleb()
		f := r.name()
		if r.c.Err() != nil {
			return
		}
		var callee *FunctionSamples
		if fs != nil {
			callee = fs.CalleeAt(LineLocation{uint32(line), uint32(disc)}, f)
		}
		r.metadata(attrs, callee, false, depth+1)
	}
}
