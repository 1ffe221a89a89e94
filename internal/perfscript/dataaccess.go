package perfscript

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
)

// DataAccess is one key of llvm-profgen's DataAccessCounter: the
// canonical (link-time) address of a load instruction and the vtable
// symbol its data address fell in.
type DataAccess struct {
	IP     uint64
	VTable string
}

// DataAccessSymbols is what llvm-profgen's ProfiledBinary knows for
// data-access traces: the ELF symbol table (its symbolizeDataAddress) and
// the non-executable PT_LOAD segments (NonTextPhdrInfo).
type DataAccessSymbols struct {
	syms  *elfsym.SymbolTable
	phdrs []profbinary.Segment // PT_LOAD without PF_X, in header order
}

// DataAccessSymbols reads the symbol table and the segments of the
// profiled binary.
func (b *Binary) DataAccessSymbols() (*DataAccessSymbols, error) {
	st := b.pb.SymbolTable()
	if st == nil {
		_, err := elfsym.ReadSymbolTable(b.pb.ELF())
		return nil, &decode.Error{Format: "perfscript", File: b.pb.Path(), Section: ".symtab", Msg: fmt.Sprint(err), Err: decode.ErrMalformed}
	}
	d := &DataAccessSymbols{syms: st}
	for _, p := range b.pb.LoadSegments() {
		if !p.Exec {
			d.phdrs = append(d.phdrs, p)
		}
	}
	return d, nil
}

// dataSampleRe is parseDataAccessPerfTraces' pattern for a sample line of
// `perf report -D`: pid, IP and data address.
var dataSampleRe = regexp.MustCompile(`PERF_RECORD_SAMPLE\([A-Za-z]+, 0x[0-9a-fA-F]+\): ([0-9]+)/[0-9]+: 0x([0-9a-fA-F]+) period: [0-9]+ addr: 0x([0-9a-fA-F]+)`)

// nonTextMMap is one mapping of the binary without execute permission.
type nonTextMMap struct{ addr, size, offset uint64 }

// ParseDataAccess is llvm-profgen's parseDataAccessPerfTraces: it reads the
// `perf report -D` dump of a load-sampling event (--data-access-perftrace)
// and counts, for every sample whose data address lies in a vtable
// (an Itanium _ZTV symbol), the pair (canonical IP, vtable). Each sample
// counts 1 (the period is ignored, as in llvm-profgen). base is the
// binary's runtime base the LBR trace left (Profile.BaseAddress): IPs are
// canonicalized with it, as llvm-profgen does. Data addresses are mapped
// back to the binary through the dump's own mmap events of the binary
// without execute permission; an address outside them is used as is (a
// non-PIE binary). opts.PID filters samples (not mmap events); opts.Warn
// and opts.MmapEvents are honoured as in Parse.
func ParseDataAccess(name string, r io.Reader, bin *Binary, syms *DataAccessSymbols, base uint64, opts Options) (map[DataAccess]uint64, error) {
	d := newDataAccessCounter(bin, syms, base, opts)
	s := newLineStream(r)
	for nul := false; !s.eof && !nul; s.advance() {
		line := s.line
		if i := bytes.IndexByte(line, 0); i >= 0 {
			// line_iterator takes a NUL for the end of the buffer: the
			// line ends there and so does the trace.
			line, nul = line[:i], true
		} else if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1] // line_iterator ends lines at "\r\n" too
		}
		if len(line) == 0 {
			continue
		}
		if bytes.Contains(line, []byte("PERF_RECORD_MMAP2")) {
			e, ok := parseMMap(line)
			if !ok {
				if opts.Warn != nil {
					opts.Warn(fmt.Sprintf("Cannot parse mmap event: %s ", line))
				}
				continue
			}
			if !d.mmap(e) {
				return nil, &decode.Error{Format: "perfscript", File: name, Section: "data-access trace", Offset: s.off,
					Msg: fmt.Sprintf("line %d: Non-text mmap event overlaps with existing event at address: %x", s.lineNo, e.Address), Err: decode.ErrMalformed}
			}
			continue
		}
		m := dataSampleRe.FindSubmatch(line)
		if m == nil {
			continue
		}
		pid, ok := parseUint(m[1], 10)
		if !ok || pid > 1<<31-1 {
			return nil, &decode.Error{Format: "perfscript", File: name, Section: "data-access trace", Offset: s.off,
				Msg: fmt.Sprintf("line %d: Failed to parse PID from perf trace line: %s", s.lineNo, line), Err: decode.ErrMalformed}
		}
		if opts.HasPID && int32(pid) != opts.PID {
			continue
		}
		data, ok := parseUint(m[3], 16)
		if !ok {
			return nil, &decode.Error{Format: "perfscript", File: name, Section: "data-access trace", Offset: s.off,
				Msg: fmt.Sprintf("line %d: Failed to parse data address from perf trace line: %s", s.lineNo, line), Err: decode.ErrMalformed}
		}
		ip, _ := parseUint(m[2], 16) // llvm-profgen ignores a bad IP (0)
		d.sample(ip, data)
	}
	if s.err != nil {
		if s.err == errLineTooLong {
			return nil, s.failure(name, "data-access trace")
		}
		return nil, &decode.Error{Format: "perfscript", File: name, Section: "data-access trace", Offset: s.off, Msg: s.err.Error(), Err: decode.ErrTruncated}
	}
	return d.counts, nil
}

// DataAccessEvent is an event of a data-access recording read from
// perf.data: an MMAP2 event (MMap), or a sample's process, instruction
// address and data address.
type DataAccessEvent struct {
	MMap     *MMapEvent
	PID      int32
	IP, Addr uint64
	// Where names the event in errors: the file, the record and its
	// offset.
	File, Section string
	Offset        int64
}

// ParseDataAccessEvents counts the events next returns (ErrEndOfEvents
// ends them; any other error is returned) as ParseDataAccess counts the
// lines `perf report -D` prints of the same events: the MMAP2 events
// (every process's) and the samples (of opts.PID only, when set).
func ParseDataAccessEvents(bin *Binary, syms *DataAccessSymbols, base uint64, opts Options, next func(*DataAccessEvent) error) (map[DataAccess]uint64, error) {
	d := newDataAccessCounter(bin, syms, base, opts)
	var ev DataAccessEvent
	for {
		ev.MMap = nil
		if err := next(&ev); err == ErrEndOfEvents {
			return d.counts, nil
		} else if err != nil {
			return nil, err
		}
		if ev.MMap != nil {
			if !d.mmap(*ev.MMap) {
				return nil, &decode.Error{Format: "perfdata", File: ev.File, Section: ev.Section, Offset: ev.Offset,
					Msg: fmt.Sprintf("Non-text mmap event overlaps with existing event at address: %x", ev.MMap.Address), Err: decode.ErrMalformed}
			}
			continue
		}
		if ev.PID < 0 || (opts.HasPID && ev.PID != opts.PID) {
			continue // perf prints a pid ≥ 2³¹ negative: not a sample line for llvm-profgen
		}
		d.sample(ev.IP, ev.Addr)
	}
}

// dataAccessCounter is parseDataAccessPerfTraces' state: the binary's
// non-text mappings and the counts.
type dataAccessCounter struct {
	bin    *Binary
	syms   *DataAccessSymbols
	base   uint64
	opts   Options
	mmaps  []nonTextMMap // sorted by addr
	counts map[DataAccess]uint64
}

func newDataAccessCounter(bin *Binary, syms *DataAccessSymbols, base uint64, opts Options) *dataAccessCounter {
	return &dataAccessCounter{bin: bin, syms: syms, base: base, opts: opts, counts: map[DataAccess]uint64{}}
}

// mmap takes an mmap event; it reports false for a non-text mapping of
// the binary that overlaps one seen before (addMMapNonTextEvent's error).
func (d *dataAccessCounter) mmap(e MMapEvent) bool {
	if d.opts.MmapEvents != nil {
		fmt.Fprintf(d.opts.MmapEvents, "Mmap: Binary %s loaded at %#x: \n", e.Path, e.Address)
	}
	if fileName(e.Path) != d.bin.Name || strings.Contains(e.Prot, "x") {
		return true
	}
	i := sort.Search(len(d.mmaps), func(i int) bool { return d.mmaps[i].addr >= e.Address })
	if (i < len(d.mmaps) && d.mmaps[i].addr < e.Address+e.Size) || (i > 0 && e.Address < d.mmaps[i-1].addr+d.mmaps[i-1].size) {
		return false
	}
	d.mmaps = slices.Insert(d.mmaps, i, nonTextMMap{e.Address, e.Size, e.Offset})
	return true
}

// sample counts a load at ip (a runtime address) of data, if data lies in
// a vtable.
func (d *dataAccessCounter) sample(ip, data uint64) {
	sym, ok := d.syms.syms.Lookup(d.syms.canonicalData(d.mmaps, data))
	if !ok || !strings.HasPrefix(sym.Name, "_ZTV") {
		return
	}
	ip = ip - d.base + d.bin.PreferredBase()
	d.counts[DataAccess{ip, sym.Name}]++
}

// canonicalData is CanonicalizeNonTextAddress: the link-time address of a
// data address, through the mapping that starts at or below it (if the
// address lies inside it) and the non-executable segment holding that file
// offset; otherwise the address unchanged.
func (d *DataAccessSymbols) canonicalData(mmaps []nonTextMMap, addr uint64) uint64 {
	i := sort.Search(len(mmaps), func(i int) bool { return mmaps[i].addr > addr })
	if i == 0 {
		return addr
	}
	m := mmaps[i-1]
	var off uint64
	if m.addr <= addr && addr < m.addr+m.size {
		off = addr - m.addr + m.offset
	}
	if off == 0 {
		return addr
	}
	for _, p := range d.phdrs {
		if p.Off <= off && off < p.Off+p.Filesz {
			return p.Vaddr + (off - p.Off)
		}
	}
	return addr
}
