package profmerge

import (
	"maps"

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
func viewSymbols(vb *viewBinary, ps ...*memprof.Profile) (*profview.Symbols, error) {
	binary := vb.path
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
	funcs, err := binaryFunctions(vb, want)
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
// for each GUID of want, the function profbinary.FunctionByGUID finds (its
// linkage name, DW_AT_decl_file and DW_AT_decl_line).
func binaryFunctions(vb *viewBinary, want map[uint64]bool) (map[uint64]profview.Func, error) {
	bin, err := vb.open()
	if err != nil {
		return nil, err
	}
	out := map[uint64]profview.Func{}
	for g := range want {
		if f, ok := bin.FunctionByGUID(g); ok {
			out[g] = profview.Func{Name: f.Name, File: f.File, Line: f.Line}
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
	vb := &viewBinary{path: binary, warnf: warnf}
	defer vb.Close()
	funcs, err := binaryFunctions(vb, want)
	if err != nil {
		return nil, err
	}
	maps.Copy(s.Funcs, funcs)
	return s, nil
}
