package elfsym

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
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
	closers []func() error

	buildID []byte

	dw       *dwarfFile   // nil without DWARF
	spans    []unitSpan   // sorted, non-overlapping address -> unit
	syms     *SymbolTable // .symtab or .dynsym, for the symbol-table fallback
	warnOnce sync.Map
}

type unitSpan struct {
	lo, hi uint64
	u      *unit
}

// Open opens the ELF file at path and indexes its debug information: the
// unit address ranges are read now, line tables and DIE trees on first use.
func Open(path string, opts *Options) (*Binary, error) {
	ef, data, closeFn, err := openELF(path)
	if err != nil {
		return nil, err
	}
	b := &Binary{path: path, ef: ef, closers: []func() error{closeFn}}
	if opts != nil {
		b.opts = *opts
	}
	if err := b.init(data); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// newFromBytes is Open for an ELF image held in memory (used by fuzzing
// and tests). Split DWARF and separate debug files are looked up relative
// to name.
func newFromBytes(name string, data []byte, opts *Options) (*Binary, error) {
	ef, err := parseELF(name, data)
	if err != nil {
		return nil, err
	}
	b := &Binary{path: name, ef: ef}
	if opts != nil {
		b.opts = *opts
	}
	if err := b.init(data); err != nil {
		return nil, err
	}
	return b, nil
}

// openELF maps (or reads) the file and parses its ELF headers.
func openELF(path string) (ef *elf.File, data []byte, closeFn func() error, err error) {
	// Only regular files: opening a FIFO or device named by (untrusted)
	// debug info could block or never end.
	if st, err := os.Stat(path); err != nil {
		return nil, nil, nil, err
	} else if !st.Mode().IsRegular() {
		return nil, nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	size := st.Size()
	closeFn = func() error { return nil }
	if size > 0 && size == int64(int(size)) {
		if m, merr := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); merr == nil {
			data = m
			closeFn = func() error { return syscall.Munmap(m) }
		}
	}
	if data == nil {
		if data, err = io.ReadAll(f); err != nil {
			return nil, nil, nil, err
		}
	}
	if ef, err = parseELF(path, data); err != nil {
		closeFn()
		return nil, nil, nil, err
	}
	return ef, data, closeFn, nil
}

// parseELF checks the ELF header and parses the headers with debug/elf.
func parseELF(path string, data []byte) (*elf.File, error) {
	if err := checkELFHeader(path, data); err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, newError(path, "ELF header", 0, decode.ErrMalformed, "%v", err)
	}
	return ef, nil
}

// checkELFHeader rejects files whose program or section header tables
// lie outside the file before debug/elf reads them (it would read every
// claimed header first).
func checkELFHeader(path string, data []byte) error {
	fail := func(off uint64, msg string) error {
		return newError(path, "ELF header", off, decode.ErrMalformed, "%s", msg)
	}
	if len(data) < 16 || string(data[:4]) != elf.ELFMAG {
		return newError(path, "ELF header", 0, decode.ErrBadMagic, "not an ELF file (bad magic)")
	}
	var order binary.ByteOrder
	switch elf.Data(data[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		order = binary.BigEndian
	default:
		return fail(elf.EI_DATA, fmt.Sprintf("unknown data encoding %d", data[elf.EI_DATA]))
	}
	var phoff, shoff, phent, phnum, shent, shnum uint64
	switch elf.Class(data[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		if len(data) < 64 {
			return fail(0, fmt.Sprintf("truncated header: %d bytes, need 64", len(data)))
		}
		phoff, shoff = order.Uint64(data[32:]), order.Uint64(data[40:])
		phent, phnum = uint64(order.Uint16(data[54:])), uint64(order.Uint16(data[56:]))
		shent, shnum = uint64(order.Uint16(data[58:])), uint64(order.Uint16(data[60:]))
	case elf.ELFCLASS32:
		if len(data) < 52 {
			return fail(0, fmt.Sprintf("truncated header: %d bytes, need 52", len(data)))
		}
		phoff, shoff = uint64(order.Uint32(data[28:])), uint64(order.Uint32(data[32:]))
		phent, phnum = uint64(order.Uint16(data[42:])), uint64(order.Uint16(data[44:]))
		shent, shnum = uint64(order.Uint16(data[46:])), uint64(order.Uint16(data[48:]))
	default:
		return fail(elf.EI_CLASS, fmt.Sprintf("unknown class %d", data[elf.EI_CLASS]))
	}
	size := uint64(len(data))
	if phnum > 0 && (phoff > size || phnum*phent > size-phoff) {
		return fail(0, fmt.Sprintf("program headers (%d at %#x) exceed the file (%#x bytes)", phnum, phoff, size))
	}
	if shnum > 0 && (shoff > size || shnum*shent > size-shoff) {
		return fail(0, fmt.Sprintf("section headers (%d at %#x) exceed the file (%#x bytes)", shnum, shoff, size))
	}
	return nil
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
	b.syms, _ = ReadSymbolTable(ef) // unreadable: no fallback, as LLVM

	dwPath, dwEF, dwData := b.path, ef, data
	if findSection(ef, ".debug_info") == nil {
		if p := b.findDebugFile(); p != "" {
			if def, ddata, closeFn, err := openELF(p); err == nil {
				b.closers = append(b.closers, closeFn)
				dwPath, dwEF, dwData = p, def, ddata
			} else {
				b.warn("debugfile", fmt.Sprintf("%s: %v", p, err))
			}
		}
	}
	if findSection(dwEF, ".debug_info") == nil {
		b.warn("nodwarf", fmt.Sprintf("%s: no DWARF line information; falling back to the symbol table", b.path))
		return nil
	}
	ss, err := loadSections(dwPath, dwEF, dwData, false)
	if err != nil {
		return err
	}
	df := &dwarfFile{file: dwPath, order: dwEF.ByteOrder, sec: ss}
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
	for i, u := range df.units {
		byOff[u.off] = i
		if !u.isCompile() {
			continue
		}
		if err := u.readUnitDIE(); err != nil {
			return err
		}
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
		if !u.isCompile() || covered[i] {
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
	ef, data, closeFn, err := openELF(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return findBuildID(ef, data), nil
}

// ELF returns the binary's parsed ELF headers (file header, program and
// section headers), for callers that check them without opening the file
// again. It stays valid until Close; callers must not close it.
func (b *Binary) ELF() *elf.File { return b.ef }

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
	var chain []int32
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
			if s, found := b.syms.Lookup(addr); found {
				f.Name, f.LinkageName, ok = s.Name, s.Name, true
			}
		}
		if !ok {
			return nil, ErrUnknownPC
		}
		return []Frame{f}, nil
	}
	frames := make([]Frame, len(chain))
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
	s, ok := b.syms.Lookup(addr)
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
// stored plainly, else decompressed (SHF_COMPRESSED zlib/zstd by debug/elf,
// legacy .zdebug_ "ZLIB" sections here).
func sectionBytes(path string, s *elf.Section, data []byte) ([]byte, error) {
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		if limit := maxInflated(s.FileSize); s.Size > limit {
			return nil, newError(path, s.Name, s.Offset+8, decode.ErrMalformed,
				"compressed section claims %d bytes from %d compressed, more than the %d allowed (deflate's 1032:1 at most, and 4 GiB)",
				s.Size, s.FileSize, limit)
		}
		d, err := s.Data()
		if err != nil {
			return nil, newError(path, s.Name, 0, decode.ErrMalformed, "decompressing: %v", err)
		}
		return d, nil
	}
	if s.Offset > uint64(len(data)) || s.Size > uint64(len(data))-s.Offset {
		return nil, newError(path, s.Name, s.Offset, decode.ErrTruncated, "section size %#x exceeds file", s.Size)
	}
	raw := data[s.Offset : s.Offset+s.Size]
	if strings.HasPrefix(s.Name, ".zdebug_") {
		if len(raw) < 12 || string(raw[:4]) != "ZLIB" {
			return nil, newError(path, s.Name, 0, decode.ErrMalformed, "missing ZLIB header")
		}
		size := binary.BigEndian.Uint64(raw[4:12])
		if limit := maxInflated(uint64(len(raw))); size > limit {
			return nil, newError(path, s.Name, s.Offset+4, decode.ErrMalformed,
				"compressed section claims %d bytes from %d compressed, more than the %d allowed (deflate's 1032:1 at most, and 4 GiB)",
				size, len(raw), limit)
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw[12:]))
		if err != nil {
			return nil, newError(path, s.Name, 12, decode.ErrMalformed, "zlib: %v", err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(size)))
		if err != nil {
			return nil, newError(path, s.Name, 12, decode.ErrMalformed, "zlib: %v", err)
		}
		if uint64(len(out)) != size {
			return nil, newError(path, s.Name, 4, decode.ErrMalformed, "decompressed %d bytes, header says %d", len(out), size)
		}
		return out, nil
	}
	return raw, nil
}

// maxInflated bounds what a compressed section of n bytes may decompress
// to, so that a file whose header lies (or a decompression bomb) fails
// instead of exhausting memory: deflate cannot exceed 1032:1, zstd's DWARF
// ratios are far below it, and no real debug section nears 4 GiB.
func maxInflated(n uint64) uint64 {
	return min(n*1032+64<<10, 4<<30)
}

func loadSections(path string, ef *elf.File, data []byte, dwo bool) (sections, error) {
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
		d, err := sectionBytes(path, s, data)
		if err != nil {
			return ss, err
		}
		*e.dst = d
	}
	return ss, nil
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
