package profmerge

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/mapfile"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// Show writes the MemProf content of the profile at path to w: for a raw
// profile the text `llvm-profdata show --memory` of the release prints
// (symbolized against binary); for an indexed profile the YAML form LLVM
// 20+ prints; a YAML input is re-printed canonically. warnf (nil: none)
// hears what is wrong with the binary but not fatal (a debug section that
// cannot be used, whose functions then go unnamed).
func Show(w io.Writer, path, binary string, release llvmrelease.Release, warnf func(format string, args ...any)) error {
	mf, err := mapfile.Open(path, nil)
	if err != nil {
		return err
	}
	defer mf.Close()
	data := mf.Data
	switch Detect(data) {
	case KindMemProfRaw:
		raw, err := memprof.ReadRawDone(path, data, mf.Done)
		if err != nil {
			return err
		}
		if binary == "" {
			return missingBinaryError([]*memprof.RawProfile{raw})
		}
		bin, err := openViewBinary(binary, warnf)
		if err != nil {
			return err
		}
		defer bin.Close()
		return memprof.ShowRaw(w, raw, bin.Symbolizer(), memprof.ConvertOptions{Release: release})
	case KindIndexed:
		f, err := instrprof.Read(path, data)
		if err != nil {
			return err
		}
		if f.Profile == nil {
			return fmt.Errorf("%s: indexed profile has no MemProf data", path)
		}
		return memprof.WriteYAML(w, f.Profile, f.Schema, f.MemProfSummary)
	case KindMemProfYAML:
		p, err := memprof.ReadYAML(path, data)
		if err != nil {
			return err
		}
		return memprofidx.WriteYAML(w, p)
	}
	if len(data) == 0 {
		return errors.New(path + ": empty raw profile file") // llvm-profdata show's words
	}
	return errors.New(path + ": unrecognized profile format")
}

// SampleShowOptions are the options of `show --sample`.
type SampleShowOptions struct {
	sampleprof.ShowOptions
	// SectionInfoOnly prints the extbinary section table instead
	// (--show-sec-info-only); other encodings get a warning and nothing.
	SectionInfoOnly bool
	// AllFunctions (--all-functions) prints every profile even with a
	// Function, which it overrides with a warning.
	AllFunctions bool
	// Format is --show-format: "" or text, json (as --json), yaml (an
	// error for sample profiles, as in LLVM).
	Format string
	Warnf  func(format string, args ...any)
}

// ShowSample writes what `llvm-profdata show --sample` of release
// o.Release prints for the sample profile at path.
func ShowSample(w io.Writer, path string, o SampleShowOptions) error {
	data, err := infile.ReadFile(path)
	if err != nil {
		return err
	}
	enc := sampleprof.Detect(data)
	if enc == sampleprof.FormatUnknown {
		return errors.New(path + ": unrecognized sample profile encoding format")
	}
	switch o.Format {
	case "", "text":
	case "json":
		o.JSON = true
	case "yaml":
		return errors.New("YAML output is not supported for sample profiles")
	default:
		return fmt.Errorf("--show-format=%s: want text, json or yaml", o.Format)
	}
	if o.AllFunctions && o.HasFunction {
		o.Warnf("-function argument ignored: showing all functions")
		o.HasFunction = false
	}
	if o.JSON && o.HasFunction {
		return errors.New("the JSON format is supported only when all functions are to be printed (drop --function or give --all-functions)")
	}
	var out []byte
	if o.SectionInfoOnly {
		if enc != sampleprof.FormatExtBinary {
			o.Warnf("--show-sec-info-only is only supported for sample profile in extbinary format and is ignored for other formats")
			return nil
		}
		secs, err := sampleprof.ReadSections(path, data)
		if err != nil {
			return err
		}
		out = sampleprof.AppendSectionInfo(nil, secs, len(data))
	} else {
		p, err := sampleprof.Read(path, data, sampleprof.ReadOptions{Release: o.Release})
		if err != nil {
			return err
		}
		if o.SymbolList && len(p.SymbolList) == 0 {
			return errors.New(path + ": --show-prof-sym-list: the profile has no profile symbol list (llvm-profdata crashes here)")
		}
		out = p.AppendShow(nil, o.ShowOptions)
	}
	_, err = w.Write(out)
	return err
}

// MemoryShowOptions select a view of `show --memory` besides the dump.
type MemoryShowOptions struct {
	Binary  string // profiled binary: required for raw profiles; names functions of indexed ones
	Release llvmrelease.Release
	// Format is "hints" (the hint report), "pprof" (a gzipped pprof
	// profile) or "html" (a self-contained report).
	Format string
	// Thresholds are clang -memprof-* options ("-memprof-x=v").
	Thresholds []string
	// Warnf (nil: none) hears what is wrong with the binary but not fatal.
	Warnf func(format string, args ...any)
}

// binaryName is the profiled binary's base name, for pprof's mapping.
func (o MemoryShowOptions) binaryName() string {
	if o.Binary == "" {
		return ""
	}
	return filepath.Base(o.Binary)
}

// ShowMemoryView writes the hints, pprof or HTML view of the MemProf
// profile at path (raw, indexed or YAML).
func ShowMemoryView(w io.Writer, path string, o MemoryShowOptions) error {
	t, err := profview.ParseThresholds(o.Release, o.Thresholds)
	if err != nil {
		return err
	}
	vb := &viewBinary{path: o.Binary, warnf: o.Warnf}
	defer vb.Close()
	p, err := loadMemProf(path, vb, o.Release)
	if err != nil {
		return err
	}
	syms, err := viewSymbols(vb, p)
	if err != nil {
		return err
	}
	ctxs := profview.Contexts(p, t)
	switch o.Format {
	case "hints":
		return profview.WriteHints(w, ctxs, t, syms)
	case "pprof":
		return profview.Profile(ctxs, t, syms, o.binaryName()).Write(w)
	case "html":
		return profview.WriteHTML(w, ctxs, t, syms, profview.HTMLOptions{Title: filepath.Base(path)})
	}
	return fmt.Errorf("unknown view %q (hints, pprof, html)", o.Format)
}

// LoadMemProf reads the MemProf profile at path as a model: a raw profile
// converted against binary as llvm-profdata of release converts it, an
// indexed profile's MemProf section, or a YAML profile (binary is not
// needed for those; the views name their functions with viewSymbols).
// warnf as for Show.
func LoadMemProf(path, binary string, release llvmrelease.Release, warnf func(format string, args ...any)) (*memprof.Profile, error) {
	vb := &viewBinary{path: binary, warnf: warnf}
	defer vb.Close()
	return loadMemProf(path, vb, release)
}

// loadMemProf is LoadMemProf with the view's binary, opened once for the
// view (vb.path "" without one).
func loadMemProf(path string, vb *viewBinary, release llvmrelease.Release) (*memprof.Profile, error) {
	binary := vb.path
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p *memprof.Profile
	switch Detect(data) {
	case KindMemProfRaw:
		raw, err := memprof.ReadRaw(path, data)
		if err != nil {
			return nil, err
		}
		if binary == "" {
			return nil, missingBinaryError([]*memprof.RawProfile{raw})
		}
		bin, err := vb.open()
		if err != nil {
			return nil, err
		}
		return memprof.Convert([]*memprof.RawProfile{raw}, bin.Symbolizer(), memprof.ConvertOptions{Release: release})
	case KindIndexed:
		f, err := instrprof.Read(path, data)
		if err != nil {
			return nil, err
		}
		if f.Profile == nil {
			return nil, fmt.Errorf("%s: indexed profile has no MemProf data", path)
		}
		p = f.Profile
	case KindMemProfYAML:
		if p, err = memprof.ReadYAML(path, data); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New(path + ": not a MemProf profile (raw, indexed or YAML)")
	}
	return p, nil
}

// ShowSampleView writes the sample profile at path as a (gzipped) pprof
// profile.
func ShowSampleView(w io.Writer, path string, o SampleViewOptions) error {
	data, err := infile.ReadFile(path)
	if err != nil {
		return err
	}
	if sampleprof.Detect(data) == sampleprof.FormatUnknown {
		return errors.New(path + ": unrecognized sample profile encoding format")
	}
	p, err := sampleprof.Read(path, data, sampleprof.ReadOptions{Release: o.Release})
	if err != nil {
		return err
	}
	syms, err := sampleSymbols(o.Binary, o.Warnf, p)
	if err != nil {
		return err
	}
	return profview.SampleProfileLines(p, syms).Write(w)
}

// DiffMemory writes what changed between the MemProf profiles at pathA
// and pathB (raw, indexed or YAML; o.Binary as for ShowMemoryView): as
// text (o.Format "text" or "hints") or as a pprof profile of B minus A
// ("pprof").
func DiffMemory(w io.Writer, pathA, pathB string, o MemoryShowOptions) error {
	t, err := profview.ParseThresholds(o.Release, o.Thresholds)
	if err != nil {
		return err
	}
	vb := &viewBinary{path: o.Binary, warnf: o.Warnf}
	defer vb.Close()
	pa, err := loadMemProf(pathA, vb, o.Release)
	if err != nil {
		return err
	}
	pb, err := loadMemProf(pathB, vb, o.Release)
	if err != nil {
		return err
	}
	a, b := profview.Contexts(pa, t), profview.Contexts(pb, t)
	names, err := viewSymbols(vb, pa, pb)
	if err != nil {
		return err
	}
	switch o.Format {
	case "text", "hints":
		return profview.WriteDiff(w, filepath.Base(pathA), filepath.Base(pathB), a, b, t, names)
	case "pprof":
		d, err := profview.DiffProfile(profview.Profile(a, t, names, o.binaryName()), profview.Profile(b, t, names, o.binaryName()))
		if err != nil {
			return err
		}
		return d.Write(w)
	}
	return fmt.Errorf("diff: unknown format %q (text, pprof)", o.Format)
}

// viewBinary is the profiled binary of a view command (path "" for none),
// opened on first use and once: the conversion of its raw profiles and the
// naming of its functions share it.
type viewBinary struct {
	path  string
	warnf func(format string, args ...any)
	bin   *profbinary.Binary
	err   error
	tried bool
}

// open opens the binary the first time it is called.
func (v *viewBinary) open() (*profbinary.Binary, error) {
	if !v.tried {
		v.tried = true
		v.bin, v.err = openViewBinary(v.path, v.warnf)
	}
	return v.bin, v.err
}

// Close releases the binary if it was opened.
func (v *viewBinary) Close() {
	if v.bin != nil {
		v.bin.Close()
		v.bin = nil
	}
}

// openViewBinary opens the profiled binary of a view as the merge does
// (DWARF only, as llvm-profdata), telling warnf what it cannot use.
func openViewBinary(binary string, warnf func(format string, args ...any)) (*profbinary.Binary, error) {
	o := profbinary.Options{DWARFOnly: true}
	if warnf != nil {
		o.Warn = func(msg string) { warnf("%s", msg) } // msg names the binary
	}
	bin, err := profbinary.Open(binary, o)
	if err != nil {
		return nil, fmt.Errorf("profiled binary: %w", err)
	}
	return bin, nil
}
