package profmerge

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/profview"
)

// LoadInstr reads the instrumented profile at path (.profraw or indexed)
// as llvm-profdata's readers give it: records in file order (a raw file's
// as stored, several modules' one after the other; an indexed file's in
// on-disk order), values mapped to name hashes.
func LoadInstr(path string) (*profview.InstrInput, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if instrprof.IsRaw(data) {
		r, err := instrprof.ParseRaw(path, data)
		if err != nil {
			return nil, err
		}
		return &profview.InstrInput{Name: path, Records: r.Records, IR: r.Variant&instrprof.VariantIRProf != 0}, nil
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty raw profile file", path)
	}
	if Detect(data) != KindIndexed {
		return nil, fmt.Errorf("%s: not an instrumentation profile (.profraw or indexed)", path)
	}
	f, err := instrprof.ReadFuncs(path, data)
	if err != nil {
		return nil, err
	}
	return &profview.InstrInput{Name: path, Records: f.Funcs, IR: f.Header.Version&instrprof.VariantIRProf != 0}, nil
}

// DiffInstr writes what changed from instrumented profile A to B: as
// text, llvm-profdata overlap's report (A the base, B the test profile;
// its numbers are LLVM 22's) followed by the functions whose share of the
// edge counts changed most; as pprof ("pprof"), B's function counts minus
// A's.
func DiffInstr(w io.Writer, pathA, pathB string, o InstrDiffOptions) error {
	a, err := LoadInstr(pathA)
	if err != nil {
		return err
	}
	b, err := LoadInstr(pathB)
	if err != nil {
		return err
	}
	switch o.Format {
	case "", "text", "hints":
		if ok, err := profview.WriteInstrOverlap(w, a, b, o.Overlap); !ok || err != nil {
			return err
		}
		return profview.WriteInstrChanges(w, a, b, o.Overlap.CS, o.Top)
	case "pprof":
		d, err := profview.DiffProfile(profview.InstrProfile(a, nil), profview.InstrProfile(b, nil))
		if err != nil {
			return err
		}
		return d.Write(w)
	}
	return fmt.Errorf("diff: unknown format %q (text, pprof)", o.Format)
}

// InstrDiffOptions are `merge diff`'s options for instrumented profiles.
type InstrDiffOptions struct {
	Format  string // text or pprof
	Overlap profview.OverlapOptions
	Top     int // functions listed by change (default 20)
}

// InstrViewOptions select a view of an instrumentation profile besides
// the dump.
type InstrViewOptions struct {
	Format string // pprof or html
	// Binary (--profiled-binary, optional) names functions with their
	// source file and first line.
	Binary string
	// Show are the dump's options (its release), whose summary the HTML
	// repeats.
	Show  instrprof.ShowOptions
	Warnf func(format string, args ...any)
}

// ShowInstrView writes the pprof or HTML view of the instrumentation
// profile at path.
func ShowInstrView(w io.Writer, path string, o InstrViewOptions) error {
	in, err := LoadInstr(path)
	if err != nil {
		return err
	}
	syms, err := instrSymbols(in, o.Binary, o.Warnf)
	if err != nil {
		return err
	}
	switch o.Format {
	case "pprof":
		return profview.InstrProfile(in, syms).Write(w)
	case "html":
		var text bytes.Buffer
		so := instrprof.ShowOptions{Release: o.Show.Release, ValueCutoff: o.Show.ValueCutoff}
		if err := ShowInstr(&text, path, so); err != nil {
			return err
		}
		ho := profview.InstrHTMLOptions{Title: filepath.Base(path), Summary: profview.ParseSummary(text.String())}
		if f, err := instrprof.Open(path); err == nil && f.Profile != nil {
			t := profview.DefaultThresholds(o.Show.Release)
			ho.MemProf, ho.Thresholds = profview.Contexts(f.Profile, t), t
		}
		return profview.WriteInstrHTML(w, in, syms, ho)
	}
	return fmt.Errorf("unknown view %q (pprof, html)", o.Format)
}

// instrSymbols names in's functions from the profiled binary (none: the
// Symbols say so), by the GUIDs of their linkage names.
func instrSymbols(in *profview.InstrInput, binary string, warnf func(format string, args ...any)) (*profview.Symbols, error) {
	s := &profview.Symbols{Funcs: map[uint64]profview.Func{}, Binary: binary}
	if binary == "" {
		return s, nil
	}
	want := map[uint64]bool{}
	for i := range in.Records {
		want[profview.InstrGUID(in.Records[i].Name)] = true
	}
	vb := &viewBinary{path: binary, warnf: warnf}
	defer vb.Close()
	funcs, err := binaryFunctions(vb, want)
	if err != nil {
		return nil, err
	}
	s.Funcs = funcs
	return s, nil
}
