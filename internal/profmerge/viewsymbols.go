package profmerge

import (
	"maps"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// viewSymbols names the functions the frames of ps use, for the views:
// each profile's own names (a raw profile's, symbolized), then, given the
// profiled binary, the linkage name, source file and first line of every
// function of its DWARF whose GUID a frame uses (names of functions
// without DWARF from its symbol table). Without a binary the Symbols say
// so (Symbols.Note).
func viewSymbols(binary string, warnf func(format string, args ...any), ps ...*memprof.Profile) (*profview.Symbols, error) {
	s := &profview.Symbols{Funcs: map[uint64]profview.Func{}, Binary: binary}
	want := map[uint64]bool{}
	for _, p := range ps {
		for g, n := range p.SymbolNames {
			if n != "" {
				s.Funcs[g] = profview.Func{Name: n}
			}
		}
		for _, r := range p.Records {
			for _, a := range r.AllocSites {
				for _, f := range a.CallStack {
					want[f.Function] = true
				}
			}
		}
	}
	if binary == "" {
		return s, nil
	}
	funcs, err := binaryFunctions(binary, warnf, want)
	if err != nil {
		return nil, err
	}
	for g, f := range funcs {
		if old := s.Funcs[g]; old.Name != "" && f.Line == 0 {
			continue // the profile's name, no better source
		}
		s.Funcs[g] = f
	}
	return s, nil
}

// binaryFunctions is the one place the views read the profiled binary:
// for each GUID of want (the MD5 of a canonical linkage name, as MemProf
// and instrumented profiles hash function names), the function's linkage
// name and its DW_AT_decl_file and DW_AT_decl_line; an out-of-line
// definition wins over an abstract instance or a declaration. Functions
// without DWARF are named from the ELF symbol table, without lines.
func binaryFunctions(binary string, warnf func(format string, args ...any), want map[uint64]bool) (map[uint64]profview.Func, error) {
	bin, err := openViewBinary(binary, warnf)
	if err != nil {
		return nil, err
	}
	defer bin.Close()
	out := map[uint64]profview.Func{}
	code := map[uint64]bool{}
	add := func(name string, f profview.Func, hasCode bool) {
		if name == "" {
			return
		}
		for _, n := range []string{llvmname.Canonical(name), name} {
			g := llvmname.GUID(n)
			if !want[g] {
				continue
			}
			old, seen := out[g]
			if !seen || code[g] != hasCode && hasCode || old.Line == 0 && f.Line > 0 {
				f.Name = n
				out[g], code[g] = f, hasCode
			}
			return
		}
	}
	bin.Functions(func(f elfsym.Function) bool {
		add(f.LinkageName, profview.Func{File: f.StartFile, Line: f.StartLine}, f.HasCode)
		return true
	})
	if st, err := elfsym.ReadSymbolTable(bin.ELF()); err == nil {
		for _, sym := range st.Symbols() {
			if g := llvmname.GUID(llvmname.Canonical(sym.Name)); want[g] && out[g].Name == "" {
				add(sym.Name, profview.Func{}, false)
			}
		}
	}
	return out, nil
}

// sampleSymbols gives the sample views the profiled binary's functions
// that ps name (top-level, context frames, inlinees, by
// profview.SampleGUID): file and first line, from which the views turn
// line offsets into source lines. Without a binary the Symbols are empty
// and say so.
func sampleSymbols(binary string, warnf func(format string, args ...any), ps ...*sampleprof.Profile) (*profview.Symbols, error) {
	s := &profview.Symbols{Funcs: map[uint64]profview.Func{}, Binary: binary}
	if binary == "" {
		return s, nil
	}
	want := map[uint64]bool{}
	var walk func(fs *sampleprof.FunctionSamples)
	walk = func(fs *sampleprof.FunctionSamples) {
		want[profview.SampleGUID(fs.Name)] = true
		for _, f := range fs.Context {
			want[profview.SampleGUID(f.Func)] = true
		}
		for _, c := range fs.Callsites {
			walk(c.Callee)
		}
	}
	for _, p := range ps {
		for _, fs := range p.Funcs {
			walk(fs)
		}
	}
	funcs, err := binaryFunctions(binary, warnf, want)
	if err != nil {
		return nil, err
	}
	maps.Copy(s.Funcs, funcs)
	return s, nil
}
