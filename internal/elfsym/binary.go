package elfsym

import (
	"bytes"
	"debug/elf"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// Binary is an opened ELF file with its debug information indexed.
type Binary struct {
	path    string
	opts    Options
	ef      *elf.File
	layout  *elfLayout
	data    []byte  // the file, mapped (or read)
	patches []patch // debug/elf's rewrites of it (MappedSection)
	closers []func() error

	buildID []byte

	dw    *dwarfFile // nil without DWARF
	spans []unitSpan // sorted, non-overlapping address -> unit
	// syms is .symtab or .dynsym, for the symbol-table fallback, read on
	// first use (symtab).
	syms     *SymbolTable
	symsOnce sync.Once
	warnOnce sync.Map
}

type unitSpan struct {
	lo, hi uint64
	u      *unit
}

// Open opens the ELF file at path and indexes its debug information: the
// unit address ranges are read now, line tables and DIE trees on first use.
func Open(path string, opts *Options) (*Binary, error) {
	return newBinary(path, opts, func(ignore bool) (*elfImage, error) { return openELF(path, ignore) })
}

// newFromBytes is Open for an ELF image held in memory (used by fuzzing
// and tests). Split DWARF and separate debug files are looked up relative
// to name.
func newFromBytes(name string, data []byte, opts *Options) (*Binary, error) {
	return newBinary(name, opts, func(ignore bool) (*elfImage, error) { return parseELF(name, data, ignore) })
}

// newBinary is Open, OpenFile and newFromBytes once the image is had:
// load parses it (ignore is Options.IgnoreBadProgramHeaders), then the
// debug information is indexed.
func newBinary(path string, opts *Options, load func(ignore bool) (*elfImage, error)) (*Binary, error) {
	b := &Binary{path: path}
	if opts != nil {
		b.opts = *opts
	}
	img, err := load(b.opts.IgnoreBadProgramHeaders)
	if err != nil {
		return nil, err
	}
	b.ef, b.layout, b.data, b.patches, b.closers = img.ef, img.layout, img.data, img.patches, []func() error{img.close}
	if img.phdrWarning != "" {
		b.warn("phdrs", img.phdrWarning)
	}
	if b.opts.SymbolTableEarly {
		// Close waits for it (symsOnce).
		go b.symtab()
	}
	if err := b.init(img.data); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// elfImage is a parsed ELF file.
type elfImage struct {
	ef     *elf.File
	layout *elfLayout
	data   []byte
	close  func() error
	// phdrWarning says why the program headers were ignored, if they were.
	phdrWarning string
	// patches are the header rewrites debug/elf reads the file with.
	patches []patch
}

// OpenFile is Open for a regular file the caller already opened (and
// checked) as path: the file is mapped, not opened again, so that one open
// serves every reader of a run. f stays the caller's to close (the mapping
// outlives it).
func OpenFile(path string, f *os.File, opts *Options) (*Binary, error) {
	return newBinary(path, opts, func(ignore bool) (*elfImage, error) { return mapELF(path, f, ignore) })
}

// openELF maps (or reads) the file and parses its ELF headers.
func openELF(path string, ignoreBadPhdrs bool) (*elfImage, error) {
	// Only regular files: opening a FIFO or device named by (untrusted)
	// debug info could block or never end.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return mapELF(path, f, ignoreBadPhdrs)
}

// mapELF maps (or reads) the open file f and parses its ELF headers.
func mapELF(path string, f *os.File, ignoreBadPhdrs bool) (*elfImage, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var data []byte
	closeFn := func() error { return nil }
	if size > 0 && size == int64(int(size)) {
		if m, merr := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); merr == nil {
			data = m
			closeFn = func() error { return syscall.Munmap(m) }
		}
	}
	if data == nil {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(f); err != nil {
			return nil, err
		}
	}
	img, err := parseELF(path, data, ignoreBadPhdrs)
	if err != nil {
		closeFn()
		return nil, err
	}
	img.close = closeFn
	return img, nil
}

// parseELF checks the ELF header and parses the headers with debug/elf,
// through an overlay that hides from it what it would fail on and LLVM
// reads past (headers.go: sanitize).
func parseELF(path string, data []byte, ignoreBadPhdrs bool) (*elfImage, error) {
	l, err := readLayout(path, data)
	if err != nil {
		return nil, err
	}
	img := &elfImage{layout: l, data: data, close: func() error { return nil }}
	problem := l.phdrProblem(data)
	if problem != "" {
		if !ignoreBadPhdrs {
			return nil, newError(path, "ELF header", 0, decode.ErrMalformed, "%s", problem)
		}
		img.phdrWarning = fmt.Sprintf("%s: ignoring the program headers: %s", path, problem)
	}
	ov := &overlay{data: data, patches: l.sanitize(data, problem != "")}
	ef, err := elf.NewFile(ov)
	if err != nil {
		return nil, newError(path, "ELF header", 0, decode.ErrMalformed, "%v", err)
	}
	img.ef, img.patches = ef, ov.patches
	return img, nil
}

func (b *Binary) warn(key, msg string) {
	if b.opts.Warn == nil {
		return
	}
	if _, dup := b.warnOnce.LoadOrStore(key, true); dup {
		return
	}
	b.opts.Warn(msg)
}

func (b *Binary) init(data []byte) error {
	ef := b.ef
	b.buildID = findBuildID(ef, data)
	if b.opts.NoDWARF {
		return nil
	}

	dwPath, dwEF, dwLayout, dwData := b.path, ef, b.layout, data
	if findSection(ef, ".debug_info") == nil {
		if p := b.findDebugFile(); p != "" {
			if img, err := openELF(p, true); err == nil {
				b.closers = append(b.closers, img.close)
				dwPath, dwEF, dwLayout, dwData = p, img.ef, img.layout, img.data
			} else {
				b.warn("debugfile", fmt.Sprintf("%s: %v", p, err))
			}
		}
	}
	if findSection(dwEF, ".debug_info") == nil {
		b.warn("nodwarf", fmt.Sprintf("%s: no DWARF line information; falling back to the symbol table", b.path))
		return nil
	}
	ss := loadSections(dwPath, dwEF, dwLayout, dwData, false, b.opts.Warn)
	if ss.info == nil {
		// An unusable .debug_info (loadSections said why): the symbol
		// table answers, as LLVM's DWARFContext without units.
		return nil
	}
	df := &dwarfFile{file: dwPath, order: dwEF.ByteOrder, sec: ss, warn: func(msg string) { b.warn(msg, msg) }}
	if err := df.parseUnits(); err != nil {
		return err
	}
	dwp := b.opts.DWPFile
	if dwp == "" {
		dwp = dwPath + ".dwp"
	}
	df.split = &splitCtx{dwpPath: dwp}
	b.closers = append(b.closers, func() error { df.split.close(); return nil })
	b.dw = df
	return b.buildIndex()
}

// buildIndex maps addresses to units as LLVM's DWARFDebugAranges: ranges
// from .debug_aranges, then unit DIE ranges for units it did not list;
// where ranges overlap, the unit with the lowest offset wins.
func (b *Binary) buildIndex() error {
	df := b.dw
	type ev struct {
		addr  uint64
		unit  int
		start bool
	}
	var evs []ev
	add := func(ui int, lo, hi uint64) {
		if lo < hi {
			evs = append(evs, ev{lo, ui, true}, ev{hi, ui, false})
		}
	}
	byOff := make(map[uint64]int, len(df.units))
	noDIE := make(map[int]bool)
	for i, u := range df.units {
		if !u.isCompile() {
			byOff[u.off] = i
			continue
		}
		if err := u.readUnitDIE(); err != nil {
			// LLVM: "No unit DIE"; the unit covers no address and the
			// symbol table answers for its code.
			b.warn(fmt.Sprintf("noDIE%d", i), err.Error())
			noDIE[i] = true
			continue
		}
		byOff[u.off] = i
	}
	covered := make(map[int]bool)
	if len(df.sec.aranges) > 0 {
		ab := newCursor(df.file, ".debug_aranges", df.sec.aranges, 0, df.order)
		for ab.Remaining() > 0 {
			start := uint64(ab.Off())
			n, offSize := unitLength(&ab)
			if n > uint64(ab.Remaining()) {
				ab.Fail(decode.ErrMalformed, "set length %#x exceeds section", n)
			}
			if ab.Err() != nil {
				break
			}
			end := uint64(ab.Off()) + n
			ab.U16()
			cuOff := ab.UintN(offSize)
			as := ab.U8()
			ab.U8()
			if ab.Err() != nil || (as != 4 && as != 8) {
				break
			}
			// Tuples are aligned to twice the address size.
			hdr := uint64(ab.Off()) - start
			if r := hdr % (2 * uint64(as)); r != 0 {
				ab.Skip(2*uint64(as) - r)
			}
			ui, ok := byOff[cuOff]
			for ab.Err() == nil && uint64(ab.Off())+2*uint64(as) <= end {
				lo := ab.UintN(as)
				l := ab.UintN(as)
				if lo == 0 && l == 0 {
					break
				}
				if ok {
					add(ui, lo, lo+l)
				}
			}
			if ok {
				covered[ui] = true
			}
			ab.Seek(end)
		}
	}
	for i, u := range df.units {
		if !u.isCompile() || covered[i] || noDIE[i] {
			continue
		}
		rs, err := u.dieRanges(&u.cuDIE)
		if err != nil {
			b.warn(fmt.Sprintf("cuRanges%d", i), err.Error())
			continue
		}
		for _, r := range rs {
			add(i, r.lo, r.hi)
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].addr < evs[j].addr })
	// Sweep: the active unit with the smallest index (= offset) owns each
	// elementary interval.
	active := make(map[int]int)
	var heap []int
	push := func(x int) {
		heap = append(heap, x)
		for i := len(heap) - 1; i > 0; {
			p := (i - 1) / 2
			if heap[p] <= heap[i] {
				break
			}
			heap[p], heap[i] = heap[i], heap[p]
			i = p
		}
	}
	pop := func() {
		n := len(heap) - 1
		heap[0] = heap[n]
		heap = heap[:n]
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < n && heap[l] < heap[m] {
				m = l
			}
			if r < n && heap[r] < heap[m] {
				m = r
			}
			if m == i {
				break
			}
			heap[m], heap[i] = heap[i], heap[m]
			i = m
		}
	}
	for i := 0; i < len(evs); {
		a := evs[i].addr
		for ; i < len(evs) && evs[i].addr == a; i++ {
			e := evs[i]
			if e.start {
				active[e.unit]++
				if active[e.unit] == 1 {
					push(e.unit)
				}
			} else {
				active[e.unit]--
			}
		}
		for len(heap) > 0 && active[heap[0]] <= 0 {
			pop()
		}
		if len(heap) == 0 || i == len(evs) {
			continue
		}
		next := evs[i].addr
		u := df.units[heap[0]]
		if n := len(b.spans); n > 0 && b.spans[n-1].u == u && b.spans[n-1].hi == a {
			b.spans[n-1].hi = next
		} else {
			b.spans = append(b.spans, unitSpan{a, next, u})
		}
	}
	return nil
}

func (b *Binary) unitFor(addr uint64) *unit {
	s := b.spans
	i := sort.Search(len(s), func(i int) bool { return s[i].hi > addr })
	if i < len(s) && s[i].lo <= addr {
		return s[i].u
	}
	return nil
}

// Prefetch decodes, on up to GOMAXPROCS goroutines at once, the line
// tables and DIE trees of the units covering addrs (file vaddrs), which
// Symbolize otherwise decodes one at a time on first use. It returns when
// they are done. It is only a hint: problems are reported by the Symbolize
// calls that meet them. It may run concurrently with Symbolize, not with
// Close.
func (b *Binary) Prefetch(addrs []uint64) {
	if b.dw == nil {
		return
	}
	seen := make(map[*unit]bool)
	var units []*unit
	for _, a := range addrs {
		if u := b.unitFor(a); u != nil && !seen[u] {
			seen[u] = true
			units = append(units, u)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(units)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(units)); i = next.Add(1) - 1 {
				units[i].load()
			}
		}()
	}
	wg.Wait()
}

// Close releases the file mappings. Frames already returned stay valid;
// Symbolize must not run concurrently with or after Close (afterwards it
// reports ErrUnknownPC).
func (b *Binary) Close() error {
	b.symsOnce.Do(func() {})
	b.dw, b.spans, b.syms = nil, nil, nil
	b.opts.DWARFOnly = true
	var first error
	for i := len(b.closers) - 1; i >= 0; i-- {
		if err := b.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	b.closers = nil
	return first
}

// Path returns the path given to Open.
func (b *Binary) Path() string { return b.path }

// BuildID returns the GNU build id, or nil.
func (b *Binary) BuildID() []byte { return b.buildID }

// ReadBuildID returns the GNU build id of the ELF file at path (nil if it
// has none) without loading its symbols or debug info: the id of a
// stripped binary whose DWARF another file holds.
func ReadBuildID(path string) ([]byte, error) {
	img, err := openELF(path, false)
	if err != nil {
		return nil, err
	}
	defer img.close()
	return findBuildID(img.ef, img.data), nil
}

// ELF returns the binary's parsed ELF headers (file header, program and
// section headers), for callers that check them without opening the file
// again. It stays valid until Close; callers must not close it.
func (b *Binary) ELF() *elf.File { return b.ef }

// Segment is a PT_LOAD program header.
type Segment struct {
	Vaddr, Off, Filesz, Memsz uint64
	// Exec is PF_X.
	Exec bool
}

// MappedSection returns the bytes of the section of b.ELF() at index idx
// as a slice of the file's mapping (valid until Close), without copying:
// ok is false for a compressed or SHT_NOBITS section or one whose raw
// header places it outside the file (read those with elf.Section.Data).
func (b *Binary) MappedSection(idx int) ([]byte, bool) {
	if b.ef == nil || idx < 0 || idx >= len(b.ef.Sections) {
		return nil, false
	}
	s := b.ef.Sections[idx]
	if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 || strings.HasPrefix(s.Name, ".zdebug_") {
		return nil, false
	}
	raw, ok := b.layout.section(b.data, idx)
	if !ok || raw.flags&elf.SHF_COMPRESSED != 0 || raw.off > uint64(len(b.data)) || raw.size > uint64(len(b.data))-raw.off {
		return nil, false
	}
	if raw.off != s.Offset || raw.size != s.Size {
		// debug/elf's view was sanitized (headers.go): let it answer.
		return nil, false
	}
	for _, p := range b.patches {
		if uint64(p.off) < raw.off+raw.size && uint64(p.off)+uint64(len(p.b)) > raw.off {
			return nil, false // debug/elf reads rewritten bytes there
		}
	}
	return b.data[raw.off : raw.off+raw.size : raw.off+raw.size], true
}

// LoadSegments returns the PT_LOAD program headers in header order.
func (b *Binary) LoadSegments() []Segment {
	var segs []Segment
	for _, p := range b.ef.Progs {
		if p.Type == elf.PT_LOAD {
			segs = append(segs, Segment{Vaddr: p.Vaddr, Off: p.Off, Filesz: p.Filesz, Memsz: p.Memsz, Exec: p.Flags&elf.PF_X != 0})
		}
	}
	return segs
}

// Machine names e_machine as LLVM's and debug/elf's tables do
// ("EM_X86_64", "EM_386", "EM_AARCH64").
func (b *Binary) Machine() string { return b.ef.Machine.String() }

// SymbolTable returns the symbol table (.symtab, else .dynsym), read on
// first use; nil when it could not be read.
func (b *Binary) SymbolTable() *SymbolTable { return b.symtab() }

// symtab reads the symbol table on first use; nil when it is unreadable
// (no fallback, as LLVM).
func (b *Binary) symtab() *SymbolTable {
	b.symsOnce.Do(func() {
		if b.ef != nil {
			b.syms, _ = ReadSymbolTable(b.ef)
		}
	})
	return b.syms
}

// RequireDWARF returns an error wrapping ErrNoDWARF when the binary (and
// its debug files) have no DWARF, for callers that cannot work without it.
func (b *Binary) RequireDWARF() error {
	if b.dw == nil {
		return fmt.Errorf("%s: %w", b.path, ErrNoDWARF)
	}
	return nil
}

// RequireBuildID returns the GNU build id, or an error wrapping
// ErrNoBuildID.
func (b *Binary) RequireBuildID() ([]byte, error) {
	if b.buildID == nil {
		return nil, fmt.Errorf("%s: %w", b.path, ErrNoBuildID)
	}
	return b.buildID, nil
}

// Symbolize returns the inline chain for the file virtual address addr,
// innermost frame first. See Frame for what each field holds.
func (b *Binary) Symbolize(addr uint64) ([]Frame, error) {
	return b.SymbolizeInto(nil, addr)
}

// SymbolizeInto is Symbolize reusing buf's memory for the frames of an
// inline chain (the result then aliases buf): a caller that is done with
// the frames before its next lookup allocates nothing per address.
func (b *Binary) SymbolizeInto(buf []Frame, addr uint64) ([]Frame, error) {
	if b.dw == nil {
		if b.opts.DWARFOnly {
			return nil, ErrUnknownPC
		}
		return b.symtabFrames(addr)
	}
	u := b.unitFor(addr)
	if u == nil {
		if b.opts.DWARFOnly {
			return nil, ErrUnknownPC
		}
		return b.symtabFrames(addr)
	}
	st, _ := u.load()
	if st.ltErr != nil {
		b.warn(fmt.Sprintf("lt%p", u), st.ltErr.Error())
	}
	if st.treeErr != nil {
		b.warn(fmt.Sprintf("tree%p", u), st.treeErr.Error())
	}
	lt := st.lt
	var chainBuf [16]int32
	chain := chainBuf[:0]
	for i := st.subroutineFor(addr); i >= 0 && len(chain) < len(st.subs); {
		chain = append(chain, i)
		if st.subs[i].tag == tagSubprogram {
			break
		}
		i = st.subs[i].parent
	}
	if len(chain) == 0 {
		var f Frame
		ok := false
		if lt != nil {
			ok = lt.rowFrame(addr, &f)
		}
		if !b.opts.DWARFOnly {
			if s, found := b.symtab().Lookup(addr); found {
				f.Name, f.LinkageName, ok = s.Name, s.Name, true
			}
		}
		if !ok {
			return nil, ErrUnknownPC
		}
		return []Frame{f}, nil
	}
	frames := slices.Grow(buf[:0], len(chain))[:len(chain)]
	clear(frames)
	var caller *subInfo
	for i, si := range chain {
		fi := st.info(si, u)
		f := &frames[i]
		f.Name = fi.name
		f.LinkageName = fi.linkage
		if !fi.hasLinkage {
			f.LinkageName = fi.name
		}
		f.StartLine = fi.declLine
		f.StartFile = fi.declFile
		f.StartAddress = fi.lowPC
		f.Inlined = i != len(chain)-1
		if i == 0 {
			if lt != nil {
				lt.rowFrame(addr, f)
			}
		} else {
			// The callee's call-site attributes locate this frame.
			if lt != nil {
				f.File, _ = lt.fileName(caller.callFile)
			}
			f.Line, f.Column, f.Discriminator = uint32(caller.callLine), uint32(caller.callCol), uint32(caller.callDisc)
		}
		caller = fi
	}
	return frames, nil
}

// rowFrame fills file, line, column and discriminator from the row for
// addr, as LineTable::getFileLineInfoForAddress.
func (lt *lineTable) rowFrame(addr uint64, f *Frame) bool {
	i := lt.lookup(addr)
	if i < 0 {
		return false
	}
	r := lt.rows[i]
	name, ok := lt.fileName(uint64(r.file))
	if !ok {
		return false
	}
	f.File, f.Line, f.Column, f.Discriminator = name, r.line, r.column, r.discriminator
	return true
}

func (b *Binary) symtabFrames(addr uint64) ([]Frame, error) {
	s, ok := b.symtab().Lookup(addr)
	if !ok {
		return nil, ErrUnknownPC
	}
	return []Frame{{Name: s.Name, LinkageName: s.Name, StartAddress: s.Addr}}, nil
}

func findSection(ef *elf.File, name string) *elf.Section {
	if s := ef.Section(name); s != nil && s.Type != elf.SHT_NOBITS {
		return s
	}
	if strings.HasPrefix(name, ".debug_") {
		if s := ef.Section(".zdebug_" + name[len(".debug_"):]); s != nil && s.Type != elf.SHT_NOBITS {
			return s
		}
	}
	return nil
}

// sectionBytes returns a section's contents: a slice of the mapped file when
// stored plainly, else decompressed (SHF_COMPRESSED zlib or zstd, or a
// legacy .zdebug_ "ZLIB" section). It reads the section's placement from
// its raw header (l), not from debug/elf's sanitized view. Failures use
// LLVM's words ("failed to decompress", "corrupted compressed section
// header", "unsupported compression type") and section offsets.
func sectionBytes(path string, ef *elf.File, l *elfLayout, s *elf.Section, data []byte) ([]byte, error) {
	idx := slices.Index(ef.Sections, s)
	raw, ok := l.section(data, idx)
	if !ok {
		return nil, newError(path, s.Name, 0, decode.ErrMalformed, "section header %d unreadable", idx)
	}
	size := uint64(len(data))
	compressed := raw.flags&elf.SHF_COMPRESSED != 0
	if raw.off > size || raw.size > size-raw.off {
		msg := "section (%#x bytes at %#x) exceeds the file (%#x bytes)"
		if compressed {
			msg = "failed to decompress: corrupted compressed section header: " + msg
		}
		return nil, newError(path, s.Name, 0, decode.ErrTruncated, msg, raw.size, raw.off, size)
	}
	sec := data[raw.off : raw.off+raw.size]
	c := newCursor(path, s.Name, sec, 0, l.order)
	switch {
	case compressed:
		const fail = "failed to decompress"
		if uint64(len(sec)) < l.chdrSize() {
			c.Fail(decode.ErrTruncated, "%s: corrupted compressed section header (%d bytes, need %d)", fail, len(sec), l.chdrSize())
			return nil, c.Err()
		}
		typ := elf.CompressionType(c.U32())
		var claim uint64
		if l.is64 {
			c.U32()
			claim = c.U64()
			c.U64()
		} else {
			claim = uint64(c.U32())
			c.U32()
		}
		n := uint64(c.Remaining())
		var out []byte
		switch typ {
		case elf.COMPRESS_ZLIB:
			out = c.Uncompress(n, claim, fail)
		case elf.COMPRESS_ZSTD:
			// The standard library decodes zstd only behind debug/elf.
			out = c.UncompressReader(decode.Zstd, s.Open(), n, claim, fail)
		default:
			c.FailAt(0, decode.ErrMalformed, "%s: unsupported compression type (%d)", fail, uint32(typ))
		}
		return out, c.Err()
	case strings.HasPrefix(s.Name, ".zdebug_"):
		// "ZLIB", the size (8 bytes, big-endian), the zlib stream.
		if len(sec) < 12 || string(sec[:4]) != "ZLIB" {
			c.Fail(decode.ErrMalformed, "failed to decompress: corrupted compressed section header (no ZLIB magic)")
			return nil, c.Err()
		}
		c.Skip(4)
		c.SetBigEndian(true)
		claim := c.U64()
		out := c.Uncompress(uint64(c.Remaining()), claim, "failed to decompress")
		return out, c.Err()
	}
	return sec, nil
}

// loadSections reads the DWARF sections of a file. A section that cannot
// be used is left out, with a warning, as LLVM's DWARFObjInMemory leaves
// it out.
func loadSections(path string, ef *elf.File, l *elfLayout, data []byte, dwo bool, warn func(string)) sections {
	var ss sections
	suffix := ""
	if dwo {
		suffix = ".dwo"
	}
	for _, e := range []struct {
		name string
		dst  *[]byte
		dwo  bool // name takes the .dwo suffix in split files
	}{
		{".debug_info", &ss.info, true},
		{".debug_abbrev", &ss.abbrev, true},
		{".debug_str", &ss.str, true},
		{".debug_line_str", &ss.lineStr, true},
		{".debug_str_offsets", &ss.strOffsets, true},
		{".debug_addr", &ss.addr, false},
		{".debug_ranges", &ss.ranges, false},
		{".debug_rnglists", &ss.rnglists, true},
		{".debug_line", &ss.line, true},
		{".debug_aranges", &ss.aranges, false},
		{".debug_cu_index", &ss.cuIndex, false},
	} {
		name := e.name
		if e.dwo {
			name += suffix
		}
		s := findSection(ef, name)
		if s == nil {
			continue
		}
		d, err := sectionBytes(path, ef, l, s, data)
		if err != nil {
			if warn != nil {
				warn(err.Error())
			}
			continue
		}
		*e.dst = d
	}
	return ss
}

// findBuildID returns the NT_GNU_BUILD_ID descriptor of the first note
// holding one.
func findBuildID(ef *elf.File, data []byte) []byte {
	try := func(notes []byte) []byte {
		nb := newCursor("", "note", notes, 0, ef.ByteOrder)
		for nb.Remaining() >= 12 {
			namesz, descsz, typ := uint64(nb.U32()), uint64(nb.U32()), nb.U32()
			name := nb.Bytes(namesz)
			nb.Skip((4 - namesz%4) % 4)
			desc := nb.Bytes(descsz)
			nb.Skip((4 - descsz%4) % 4)
			if nb.Err() != nil {
				return nil
			}
			if typ == 3 && string(name) == "GNU\x00" {
				return append([]byte(nil), desc...)
			}
		}
		return nil
	}
	for _, s := range ef.Sections {
		if s.Type == elf.SHT_NOTE && s.Flags&elf.SHF_COMPRESSED == 0 && s.Offset <= uint64(len(data)) && s.Size <= uint64(len(data))-s.Offset {
			if id := try(data[s.Offset : s.Offset+s.Size]); id != nil {
				return id
			}
		}
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_NOTE && p.Off <= uint64(len(data)) && p.Filesz <= uint64(len(data))-p.Off {
			if id := try(data[p.Off : p.Off+p.Filesz]); id != nil {
				return id
			}
		}
	}
	return nil
}

// findDebugFile looks for a separate debug file by build id
// (<dir>/.build-id/xx/rest.debug) and by .gnu_debuglink (next to the
// binary, in its .debug/ subdirectory, then <dir>/<binary dir>/ for each
// debug directory), checking the link's CRC.
func (b *Binary) findDebugFile() string {
	dirs := append([]string(nil), b.opts.DebugFileDirectories...)
	if len(dirs) == 0 {
		dirs = []string{"/usr/lib/debug"}
	}
	if id := b.buildID; len(id) >= 2 {
		hex := fmt.Sprintf("%x", id)
		for _, d := range dirs {
			p := filepath.Join(d, ".build-id", hex[:2], hex[2:]+".debug")
			if isFile(p) {
				return p
			}
		}
	}
	s := b.ef.Section(".gnu_debuglink")
	if s == nil {
		return ""
	}
	link, err := s.Data()
	if err != nil {
		return ""
	}
	nul := bytes.IndexByte(link, 0)
	if nul <= 0 {
		return ""
	}
	name := string(link[:nul])
	off := (nul + 4) &^ 3
	var crc uint32
	hasCRC := off+4 <= len(link)
	if hasCRC {
		crc = b.ef.ByteOrder.Uint32(link[off:])
	}
	abs, err := filepath.Abs(b.path)
	if err != nil {
		abs = b.path
	}
	dir := filepath.Dir(abs)
	cands := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
	for _, d := range dirs {
		cands = append(cands, filepath.Join(d, dir, name))
	}
	for _, p := range cands {
		if p == abs || !isFile(p) {
			continue
		}
		if hasCRC {
			data, err := os.ReadFile(p)
			if err != nil || crc32.ChecksumIEEE(data) != crc {
				continue
			}
		}
		return p
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
