package elfsym

import (
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// lineRow is one row of a line-number matrix.
type lineRow struct {
	addr          uint64
	line          uint32
	column        uint32
	file          uint32
	discriminator uint32
}

// lineSeq is a contiguous run of rows ending with an end_sequence row, as
// LLVM's DWARFDebugLine::Sequence.
type lineSeq struct {
	lo, hi      uint64
	first, last int // rows[first:last], last row is the end_sequence
}

type lineFile struct {
	name   string
	dirIdx uint64
	// noName: the entry's path string could not be read (a DWARF 5
	// form pointing outside its section, or no DW_LNCT_path): LLVM then
	// has no file, and no line, for rows naming it.
	noName bool
}

// lineTable is a decoded line program (DWARF 2-5).
type lineTable struct {
	version uint16
	dirs    []string
	files   []lineFile
	rows    []lineRow
	seqs    []lineSeq // sorted by hi
	compDir string
	hasComp bool
	paths   []string // fileName results by index, built after parsing
	pathOK  []bool
}

const (
	lnsCopy             = 1
	lnsAdvancePC        = 2
	lnsAdvanceLine      = 3
	lnsSetFile          = 4
	lnsSetColumn        = 5
	lnsNegateStmt       = 6
	lnsSetBasicBlock    = 7
	lnsConstAddPC       = 8
	lnsFixedAdvancePC   = 9
	lnsSetPrologueEnd   = 10
	lnsSetEpilogueBegin = 11
	lnsSetISA           = 12

	lneEndSequence      = 1
	lneSetAddress       = 2
	lneDefineFile       = 3
	lneSetDiscriminator = 4

	lnctPath           = 1
	lnctDirectoryIndex = 2
)

// maxLineEntries caps directory and file counts read from a header.
const maxLineEntries = 1 << 22

// parseLineTable decodes the line program at off in .debug_line of u's
// file. u supplies the address size and string sections.
func (u *unit) parseLineTable(off uint64) (*lineTable, error) {
	df := u.df
	b := newCursor(df.file, ".debug_line", df.sec.line, off, df.order)
	n, offSize := unitLength(&b)
	if b.Err() != nil {
		return nil, b.Err()
	}
	if n > uint64(b.Remaining()) {
		b.Fail(decode.ErrMalformed, "line table length %#x exceeds section", n)
		return nil, b.Err()
	}
	end := uint64(b.Off()) + n
	// The table ends at end: reads stop there.
	b = newCursor(df.file, ".debug_line", df.sec.line[:end], uint64(b.Off()), df.order)
	lt := &lineTable{version: b.U16()}
	lt.compDir, lt.hasComp = u.compDir, u.hasCompDir
	if lt.version < 2 || lt.version > 5 {
		b.FailAt(int64(off), decode.ErrUnsupportedVersion, "unsupported line table version %d", lt.version)
		return nil, b.Err()
	}
	addrSize := u.addrSize
	if lt.version >= 5 {
		addrSize = b.U8()
		b.U8() // segment selector size
	}
	hdrLen := b.UintN(offSize)
	if hdrLen > uint64(b.Remaining()) {
		b.Fail(decode.ErrMalformed, "header length %#x exceeds table", hdrLen)
		return nil, b.Err()
	}
	progOff := uint64(b.Off()) + hdrLen
	minInst := uint64(b.U8())
	if lt.version >= 4 {
		b.U8() // maximum_operations_per_instruction
	}
	defaultIsStmt := b.U8() != 0
	_ = defaultIsStmt
	lineBase := int64(int8(b.U8()))
	lineRange := uint64(b.U8())
	opcodeBase := b.U8()
	stdLens := b.Bytes(uint64(max(opcodeBase, 1) - 1))
	if b.Err() != nil {
		return nil, b.Err()
	}
	if lt.version >= 5 {
		lt.parseEntriesV5(u, &b, true)
		lt.parseEntriesV5(u, &b, false)
	} else {
		for b.Err() == nil {
			s := b.CString()
			if s == "" {
				break
			}
			lt.dirs = append(lt.dirs, s)
		}
		for b.Err() == nil {
			s := b.CString()
			if s == "" {
				break
			}
			f := lineFile{name: s, dirIdx: b.Uleb()}
			b.Uleb()
			b.Uleb()
			lt.files = append(lt.files, f)
		}
	}
	if b.Err() != nil {
		return nil, b.Err()
	}
	b.Seek(progOff)

	// About 6 bytes of program per row on clang output.
	lt.rows = make([]lineRow, 0, min((end-uint64(b.Off()))/6+16, 1<<22))
	// State machine.
	var row lineRow
	var isStmt bool
	reset := func() {
		row = lineRow{file: 1, line: 1}
		isStmt = defaultIsStmt
	}
	_ = isStmt
	reset()
	seq := lineSeq{first: -1}
	endSeq := false
	appendRow := func() {
		if len(lt.rows) >= maxRows(b.Len()) {
			b.Fail(decode.ErrMalformed, "too many line rows")
			return
		}
		if seq.first < 0 {
			seq.first = len(lt.rows)
			seq.lo = row.addr
		}
		lt.rows = append(lt.rows, row)
		if endSeq {
			endSeq = false
			seq.hi = row.addr
			seq.last = len(lt.rows)
			if seq.lo < seq.hi {
				lt.seqs = append(lt.seqs, seq)
			}
			seq = lineSeq{first: -1}
		}
		row.discriminator = 0
	}
	advance := func(opAdv uint64) { row.addr += opAdv * minInst }
	for b.Err() == nil && uint64(b.Off()) < end {
		op := b.U8()
		switch {
		case op >= opcodeBase:
			adj := uint64(op - opcodeBase)
			if lineRange != 0 {
				advance(adj / lineRange)
				row.line = uint32(int64(row.line) + lineBase + int64(adj%lineRange))
			}
			appendRow()
		case op == 0:
			n := b.Uleb()
			if n == 0 || n > uint64(b.Remaining()) {
				b.Fail(decode.ErrMalformed, "bad extended opcode length %d", n)
				break
			}
			next := uint64(b.Off()) + n
			sub := b.U8()
			switch sub {
			case lneEndSequence:
				endSeq = true
				appendRow()
				reset()
			case lneSetAddress:
				w := n - 1
				switch w {
				case 1, 2, 4, 8:
					row.addr = b.UintN(uint8(w))
				default:
					_ = addrSize
					b.Skip(w)
				}
			case lneSetDiscriminator:
				row.discriminator = uint32(b.Uleb())
			}
			b.Seek(next)
		case op == lnsCopy:
			appendRow()
		case op == lnsAdvancePC:
			advance(b.Uleb())
		case op == lnsAdvanceLine:
			row.line = uint32(int64(row.line) + b.Sleb())
		case op == lnsSetFile:
			row.file = uint32(b.Uleb())
		case op == lnsSetColumn:
			row.column = uint32(b.Uleb())
		case op == lnsNegateStmt:
			isStmt = !isStmt
		case op == lnsSetBasicBlock, op == lnsSetPrologueEnd, op == lnsSetEpilogueBegin:
		case op == lnsConstAddPC:
			if lineRange != 0 {
				advance(uint64(255-opcodeBase) / lineRange)
			}
		case op == lnsFixedAdvancePC:
			row.addr += uint64(b.U16())
		case op == lnsSetISA:
			b.Uleb()
		default:
			// Unknown standard opcode: skip its ULEB128 operands.
			for i := 0; i < int(stdLens[op-1]); i++ {
				b.Uleb()
			}
		}
	}
	if b.Err() != nil {
		return nil, b.Err()
	}
	sort.SliceStable(lt.seqs, func(i, j int) bool { return lt.seqs[i].hi < lt.seqs[j].hi })
	lt.buildPaths()
	return lt, nil
}

// maxRows bounds the row count by what the program bytes can encode
// (each row needs at least one opcode byte).
func maxRows(progBytes int) int { return progBytes + 1 }

func (lt *lineTable) parseEntriesV5(u *unit, b *decode.Cursor, dirs bool) {
	nfmt := int(b.U8())
	type fmtPair struct{ ct, form uint64 }
	fmts := make([]fmtPair, 0, nfmt)
	for i := 0; i < nfmt && b.Err() == nil; i++ {
		fmts = append(fmts, fmtPair{b.Uleb(), b.Uleb()})
	}
	count := b.Uleb()
	if count > maxLineEntries || count > uint64(b.Remaining()) && len(fmts) > 0 {
		b.Fail(decode.ErrMalformed, "too many line table entries (%d)", count)
		return
	}
	for i := uint64(0); i < count && b.Err() == nil; i++ {
		f := lineFile{noName: true}
		for _, p := range fmts {
			var v attrVal
			v.set = true
			v.form = uint16(min(p.form, 0xffff))
			inline := ""
			switch p.form {
			case formString:
				inline = b.CString()
			case formLineStrp, formStrp:
				v.val = b.UintN(u.offSize)
			case formStrx, formUdata:
				v.val = b.Uleb()
			case formStrx1, formData1:
				v.val = uint64(b.U8())
			case formStrx2, formData2:
				v.val = uint64(b.U16())
			case formStrx3:
				v.val = uint64(b.U24())
			case formStrx4, formData4:
				v.val = uint64(b.U32())
			case formData8:
				v.val = b.U64()
			case formData16:
				b.Skip(16)
			case formBlock:
				b.Skip(b.Uleb())
			default:
				b.Fail(decode.ErrMalformed, "unsupported form %#x in line table header", p.form)
				return
			}
			switch p.ct {
			case lnctPath:
				if p.form == formString {
					f.name, f.noName = inline, false
				} else {
					var ok bool
					f.name, ok = u.str(v)
					f.noName = !ok
				}
			case lnctDirectoryIndex:
				f.dirIdx = v.val
			}
		}
		if dirs {
			lt.dirs = append(lt.dirs, f.name)
		} else {
			lt.files = append(lt.files, f)
		}
	}
}

// lookup returns the row index for addr as LLVM's LineTable::lookupAddress
// does, or -1.
func (lt *lineTable) lookup(addr uint64) int {
	// upper_bound by hi.
	i := upperBound(len(lt.seqs), func(i int) bool { return addr < lt.seqs[i].hi })
	if i == len(lt.seqs) {
		return -1
	}
	s := lt.seqs[i]
	if !(s.lo <= addr && addr < s.hi) {
		return -1
	}
	// upper_bound over rows[first+1 : last-1] by address, minus one.
	lo, hi := s.first+1, s.last-1
	if hi < lo {
		return -1
	}
	j := lo + upperBound(hi-lo, func(k int) bool { return addr < lt.rows[lo+k].addr })
	return j - 1
}

// upperBound is std::upper_bound's halving loop over [0, n): it returns the
// first index for which greater(i) is true, probing the same elements as the
// C++ library so unsorted input gives the same answer.
func upperBound(n int, greater func(int) bool) int {
	first, count := 0, n
	for count > 0 {
		step := count / 2
		mid := first + step
		if !greater(mid) {
			first = mid + 1
			count -= step + 1
		} else {
			count = step
		}
	}
	return first
}

// fileName returns the path for a file index as LLVM's
// Prologue::getFileNameByIndex does with AbsoluteFilePath.
func (lt *lineTable) fileName(idx uint64) (string, bool) {
	if idx < uint64(len(lt.paths)) {
		return lt.paths[idx], lt.pathOK[idx]
	}
	return lt.buildFileName(idx)
}

func (lt *lineTable) buildPaths() {
	n := len(lt.files) + 1
	lt.paths = make([]string, n)
	lt.pathOK = make([]bool, n)
	for i := range n {
		lt.paths[i], lt.pathOK[i] = lt.buildFileName(uint64(i))
	}
}

func (lt *lineTable) buildFileName(idx uint64) (string, bool) {
	var f lineFile
	if lt.version >= 5 {
		if idx >= uint64(len(lt.files)) {
			return "", false
		}
		f = lt.files[idx]
		if f.noName {
			return "", false
		}
	} else {
		if idx == 0 || idx > uint64(len(lt.files)) {
			return "", false
		}
		f = lt.files[idx-1]
	}
	if isAbs(f.name) {
		return f.name, true
	}
	var dir string
	if lt.version >= 5 {
		if f.dirIdx < uint64(len(lt.dirs)) {
			dir = lt.dirs[f.dirIdx]
		}
	} else if f.dirIdx > 0 && f.dirIdx <= uint64(len(lt.dirs)) {
		dir = lt.dirs[f.dirIdx-1]
	}
	var p string
	if (lt.version < 5 || f.dirIdx != 0) && lt.hasComp && lt.compDir != "" && !isAbs(dir) {
		p = appendPath(p, lt.compDir)
	}
	p = appendPath(p, dir)
	p = appendPath(p, f.name)
	return p, true
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") }

// appendPath is llvm::sys::path::append for one POSIX component.
func appendPath(p, c string) string {
	if p != "" && p[len(p)-1] == '/' {
		return p + strings.TrimLeft(c, "/")
	}
	if c != "" && c[0] == '/' || p == "" {
		return p + c
	}
	return p + "/" + c
}
