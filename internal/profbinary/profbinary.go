// Package profbinary is the profiled binary of a run, as llvm-profgen's
// ProfiledBinary holds it: built once per run from one open of the file
// (internal/elfsym), it gives every reader of the run the segments, the
// symbol table, the functions of the DWARF (split units included), the
// pseudo probes, the build id and the x86 decoder, so that no layer opens
// the binary again or reads its DWARF with another reader.
//
// Parts are loaded on first use: a run that needs only the symbols pays
// only for the symbol table. The ELF headers, the build id and the symbol
// table are read at Open, the DWARF unit index too unless NoDWARF is set;
// the functions, the probes and each unit's DIE tree and line table when
// first asked for.
//
// Layers: profbinary sits on elfsym, pseudoprobe and x86inst; the trace
// reader (perfscript), the profile generator (profgen), the symbolizer
// and merge's show use it. It imports no profile format.
package profbinary

import (
	"debug/elf"
	"errors"
	"io"
	"io/fs"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/pseudoprobe"
	"github.com/rules-pgo/rules_pgo/internal/x86inst"
)

// Options say where the debug information is and how the binary is read.
type Options struct {
	// DebugBinary, if set, is the file whose DWARF describes the binary
	// (llvm-profgen's --debug-binary): the functions and frames come from
	// it, everything else from the binary itself.
	DebugBinary string
	// DWP is the DWARF package of the split units (--dwp); by default
	// <debug file>.dwp, then the .dwo files the skeleton units name.
	DWP string
	// DWARFOnly: no symbol-table fallback for addresses no unit covers
	// (elfsym.Options.DWARFOnly).
	DWARFOnly bool
	// NoDWARF: the debug information is neither looked for nor indexed
	// (a run that needs the headers and symbols only).
	NoDWARF bool
	// DebugFileDirectories, IgnoreBadProgramHeaders and SymbolTableEarly
	// are elfsym's.
	DebugFileDirectories    []string
	IgnoreBadProgramHeaders bool
	SymbolTableEarly        bool
	// Check, if set, vets the first bytes of each file (the binary, the
	// debug binary) before it is parsed: the caller's words for a file
	// that is not an object file. head holds up to 64 bytes.
	Check func(path string, head []byte) error
	// NotExist, if set, is the error of a binary or debug binary that does
	// not exist (the caller's words); flag names the option that gave it
	// ("" for the binary).
	NotExist func(path, flag string) error
	// Warn receives the non-fatal problems of reading the debug
	// information (elfsym's).
	Warn func(msg string)
}

// Binary is a profiled binary, opened once.
type Binary struct {
	path string
	opts Options
	// elf is the binary, opened once; debug the file of its DWARF (elf
	// itself without DebugBinary).
	elf, debug *elfsym.Binary

	symsOnce sync.Once
	syms     []Symbol
	symsErr  error

	secsOnce sync.Once
	secs     []*Section

	funcsOnce  sync.Once
	funcs      []elfsym.Subprogram
	missingDWO int

	guidOnce sync.Once
	byGUID   map[uint64]guidFunc
}

// Open opens the binary at path (and opts.DebugBinary), once each.
func Open(path string, opts Options) (*Binary, error) {
	b := &Binary{path: path, opts: opts}
	eo := elfsym.Options{DWARFOnly: opts.DWARFOnly, DWPFile: opts.DWP, Warn: opts.Warn, NoDWARF: opts.NoDWARF || opts.DebugBinary != "",
		DebugFileDirectories: opts.DebugFileDirectories, IgnoreBadProgramHeaders: opts.IgnoreBadProgramHeaders,
		SymbolTableEarly: opts.SymbolTableEarly}
	if opts.DebugBinary != "" {
		eo.Warn = nil
	}
	var err error
	if b.elf, err = open(path, "", &eo, &opts); err != nil {
		return nil, err
	}
	b.debug = b.elf
	if opts.DebugBinary != "" {
		eo.Warn, eo.NoDWARF = opts.Warn, opts.NoDWARF
		if b.debug, err = open(opts.DebugBinary, "--debug-binary", &eo, &opts); err != nil {
			b.elf.Close()
			return nil, err
		}
	}
	return b, nil
}

// open opens one file: infile's refusal of what is not a regular file,
// the caller's check of its head, then elfsym on the same descriptor.
func open(path, flag string, eo *elfsym.Options, opts *Options) (*elfsym.Binary, error) {
	f, err := infile.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && opts.NotExist != nil {
			return nil, opts.NotExist(path, flag)
		}
		return nil, err
	}
	defer f.Close()
	if opts.Check != nil {
		var head [64]byte
		n, err := f.ReadAt(head[:], 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if err := opts.Check(path, head[:n]); err != nil {
			return nil, err
		}
	}
	return elfsym.OpenFile(path, f, eo)
}

// Close releases the mappings; nothing of the binary may be used after.
func (b *Binary) Close() error {
	err := b.elf.Close()
	if b.debug != b.elf {
		if e := b.debug.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Path is the binary's path as given to Open.
func (b *Binary) Path() string { return b.path }

// DebugPath is the path of the file whose DWARF is read: DebugBinary, or
// the binary's.
func (b *Binary) DebugPath() string { return b.debug.Path() }

// ELF returns the binary's parsed headers: segments (Progs), sections and
// their data, read from the one mapping (do not Close it).
func (b *Binary) ELF() *elf.File { return b.elf.ELF() }

// BuildID is the binary's GNU build id, nil if it has none.
func (b *Binary) BuildID() []byte { return b.elf.BuildID() }

// Symbolizer returns the DWARF of the binary (of DebugBinary when given)
// as elfsym answers address lookups: inline frames, lines.
func (b *Binary) Symbolizer() *elfsym.Binary { return b.debug }

// SymbolTable is the binary's symbol table as llvm-symbolizer sees it (one
// symbol per address), nil when it could not be read.
func (b *Binary) SymbolTable() *elfsym.SymbolTable { return b.elf.SymbolTable() }

// Functions returns the subprograms of the DWARF with names and ranges:
// those of the debug file's own units, then those of its split units
// (.dwo or .dwp), as llvm-profgen's loadSymbolsFromDWARF reads them;
// missingDWO counts the skeleton units whose split unit was not found.
// Loaded on first call.
func (b *Binary) Functions() (subs []elfsym.Subprogram, missingDWO int) {
	b.funcsOnce.Do(func() {
		var split bool
		b.funcs, split = b.debug.Subprograms()
		if split {
			s, m := b.debug.SplitSubprograms()
			b.funcs, b.missingDWO = append(b.funcs, s...), m
		}
	})
	return b.funcs, b.missingDWO
}

// HasProbes reports whether the binary has both pseudo-probe sections.
func (b *Binary) HasProbes() bool {
	return b.Section(pseudoprobe.DescSection) != nil && b.Section(pseudoprobe.ProbeSection) != nil
}

// Probes decodes the binary's pseudo probes with opts (nil, nil without
// both probe sections, as llvm-profgen needs both). Each call decodes
// again: the filters differ by use.
func (b *Binary) Probes(opts pseudoprobe.Options) (*pseudoprobe.Probes, error) {
	ds, ps := b.Section(pseudoprobe.DescSection), b.Section(pseudoprobe.ProbeSection)
	if ds == nil || ps == nil {
		return nil, nil
	}
	desc, err := b.probeSection(ds)
	if err != nil {
		return nil, err
	}
	probes, err := b.probeSection(ps)
	if err != nil {
		return nil, err
	}
	return pseudoprobe.Decode(b.path, desc, probes, opts)
}

// probeSection returns a probe section's bytes (none for SHT_NOBITS).
func (b *Binary) probeSection(s *Section) ([]byte, error) {
	if s.NoBits {
		return nil, nil
	}
	d, err := s.Data()
	if err != nil {
		return nil, &decode.Error{Format: "pseudoprobe", File: b.path, Section: s.Name, Msg: err.Error(), Err: decode.ErrTruncated}
	}
	return d, nil
}

// Frames returns the inline frames of the file address addr, innermost
// first (elfsym.Binary.Symbolize on the debug file).
func (b *Binary) Frames(addr uint64) ([]elfsym.Frame, error) { return b.debug.Symbolize(addr) }

// Location is where an address or function is in the source: the
// function's linkage name, its file and line.
type Location struct {
	Name string
	File string
	Line uint32
}

// LocationAt returns the outermost function of addr with the innermost
// frame's file and line (ok false when no unit covers it).
func (b *Binary) LocationAt(addr uint64) (Location, bool) {
	fr, err := b.Frames(addr)
	if err != nil || len(fr) == 0 {
		return Location{}, false
	}
	return Location{Name: fr[len(fr)-1].LinkageName, File: fr[0].File, Line: fr[0].Line}, true
}

// Function is one subprogram DIE of the DWARF (a definition, an abstract
// instance of an inlined function or a declaration) with its names and
// declaration's file and line.
type Function = elfsym.Function

// EachFunction calls yield for every subprogram DIE of the DWARF (of
// DebugBinary when given; split units included), unit by unit in DIE
// order, until it returns false (elfsym.Binary.Functions).
func (b *Binary) EachFunction(yield func(Function) bool) { b.debug.Functions(yield) }

// FunctionByGUID returns the function whose name's MD5 GUID (llvmname.GUID
// of its canonical linkage name, as MemProf and instrumented profiles hash
// function names, or of the name as it is) is guid, with its
// declaration's file and line (ok false if none): an out-of-line
// definition wins over an abstract instance or a declaration, a DIE with
// a line over one without. Functions without DWARF are named from the
// symbol table, without lines. The index is built on the first call from
// one walk over every subprogram DIE.
func (b *Binary) FunctionByGUID(guid uint64) (Location, bool) {
	b.guidOnce.Do(b.indexGUIDs)
	f, ok := b.byGUID[guid]
	return f.Location, ok
}

// guidFunc is a function of the GUID index: hasCode says it is an
// out-of-line definition.
type guidFunc struct {
	Location
	hasCode bool
}

func (b *Binary) indexGUIDs() {
	b.byGUID = map[uint64]guidFunc{}
	add := func(name string, loc Location, hasCode bool) {
		if name == "" {
			return
		}
		c := llvmname.Canonical(name)
		for _, n := range []string{c, name} {
			g := llvmname.GUID(n)
			old, seen := b.byGUID[g]
			if !seen || hasCode && !old.hasCode || old.Line == 0 && loc.Line > 0 {
				loc.Name = n
				b.byGUID[g] = guidFunc{loc, hasCode}
			}
			if n == c && c != name {
				continue
			}
			break
		}
	}
	b.EachFunction(func(f Function) bool {
		add(f.LinkageName, Location{File: f.StartFile, Line: f.StartLine}, f.HasCode)
		return true
	})
	if st := b.SymbolTable(); st != nil {
		for _, sym := range st.Symbols() {
			if _, ok := b.byGUID[llvmname.GUID(llvmname.Canonical(sym.Name))]; !ok {
				add(sym.Name, Location{}, false)
			}
		}
	}
}

// Decode is the x86 decoder of the binary's code: the length and class of
// the instruction at the start of code as LLVM's disassembler draws them.
func Decode(code []byte) x86inst.Inst { return x86inst.Decode(code) }
