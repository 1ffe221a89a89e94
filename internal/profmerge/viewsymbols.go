package profmerge

import (
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/profview"
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
