package profmerge

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleDiffOptions are the options of `merge diff` and `merge overlap`
// for sample profiles.
type SampleDiffOptions struct {
	profview.SampleOverlapOptions
	// Top is how many functions the text diff shows with their lines.
	Top int
	// Binary is --profiled-binary (optional): lines are then shown as
	// its source lines; Warnf hears about its unusable debug sections.
	Binary string
	Warnf  func(format string, args ...any)
}

// SampleViewOptions are the options of `merge show --sample`'s pprof
// and HTML views.
type SampleViewOptions struct {
	Release llvmrelease.Release // the release whose reader is followed
	// Binary is --profiled-binary (optional): functions get their source
	// file and lines are absolute; Warnf hears about its debug sections.
	Binary string
	Warnf  func(format string, args ...any)
}

// LoadSample reads the sample profile at path (any encoding) as
// llvm-profdata of release reads it.
func LoadSample(path string, release llvmrelease.Release) (*sampleprof.Profile, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if sampleprof.Detect(data) == sampleprof.FormatUnknown {
		return nil, errors.New(path + ": unrecognized sample profile encoding format")
	}
	return sampleprof.Read(path, data, sampleprof.ReadOptions{Release: release})
}

// isSampleInput reports whether path looks like a sample profile (and
// like no other kind): how `merge diff` routes inputs without --sample.
// Only the head is read (a text profile's first line within it).
func isSampleInput(path string) bool {
	f, err := infile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if n == len(head) {
		// Cut at the last full line so that a long first line is not
		// mistaken for a bad one.
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
	}
	return Detect(head) == KindUnknown && sampleprof.Detect(head) != sampleprof.FormatUnknown
}

// sampleOverlap loads both profiles and computes their overlap; zero
// is LLVM's message when a profile has no samples (ov nil then).
func sampleOverlap(pathA, pathB string, o profview.SampleOverlapOptions) (ov *profview.SampleOverlap, zero string, err error) {
	if _, ok := llvmrelease.Lookup(o.Release); !ok {
		return nil, "", cli.Usagef("--llvm-version %d: supported are %s", o.Release, llvmrelease.SupportedText())
	}
	a, err := LoadSample(pathA, o.Release)
	if err != nil {
		return nil, "", err
	}
	b, err := LoadSample(pathB, o.Release)
	if err != nil {
		return nil, "", err
	}
	ov, err = profview.ComputeSampleOverlap(a, b, pathA, pathB, o)
	var z *profview.ZeroSampleError
	if errors.As(err, &z) {
		return nil, z.Message, nil
	}
	return ov, "", err
}

// OverlapSample writes what `llvm-profdata overlap --sample A B` prints.
func OverlapSample(w io.Writer, pathA, pathB string, o profview.SampleOverlapOptions) error {
	ov, zero, err := sampleOverlap(pathA, pathB, o)
	if err != nil {
		return err
	}
	if ov == nil {
		_, err := io.WriteString(w, zero)
		return err
	}
	return ov.WriteText(w)
}

// DiffSample writes what changed from sample profile A to B: as text
// (format "text": overlap's numbers, per function, per line) or as a
// pprof profile of B minus A scaled to B's total ("pprof").
func DiffSample(w io.Writer, pathA, pathB, format string, o SampleDiffOptions) error {
	if format == "pprof" {
		a, err := LoadSample(pathA, o.Release)
		if err != nil {
			return err
		}
		b, err := LoadSample(pathB, o.Release)
		if err != nil {
			return err
		}
		syms, err := sampleSymbols(o.Binary, o.Warnf, a, b)
		if err != nil {
			return err
		}
		d, err := profview.SampleDiffProfile(a, b, syms)
		if err != nil {
			return err
		}
		return d.Write(w)
	}
	ov, zero, err := sampleOverlap(pathA, pathB, o.SampleOverlapOptions)
	if err != nil {
		return err
	}
	if ov == nil {
		_, err := io.WriteString(w, zero)
		return err
	}
	var syms *profview.Symbols
	if o.Binary != "" {
		// sampleOverlap read the profiles; their functions are in ov.
		var ps []*sampleprof.Profile
		for _, f := range ov.Funcs {
			p := &sampleprof.Profile{}
			for _, fs := range []*sampleprof.FunctionSamples{f.Base, f.Test} {
				if fs != nil {
					p.Funcs = append(p.Funcs, fs)
				}
			}
			ps = append(ps, p)
		}
		if syms, err = sampleSymbols(o.Binary, o.Warnf, ps...); err != nil {
			return err
		}
	}
	return profview.WriteSampleDiff(w, ov, profview.SampleDiffOptions{Top: o.Top, Symbols: syms, Probe: ov.ProbeBased})
}

// ShowSampleHTML writes the HTML report of the sample profile at path
// (profview.WriteSampleHTML).
func ShowSampleHTML(w io.Writer, path string, o SampleViewOptions) error {
	p, err := LoadSample(path, o.Release)
	if err != nil {
		return err
	}
	syms, err := sampleSymbols(o.Binary, o.Warnf, p)
	if err != nil {
		return err
	}
	return profview.WriteSampleHTML(w, p, profview.SampleHTMLOptions{Title: filepath.Base(path), Release: o.Release, Symbols: syms})
}

// OverlapConfig is `merge overlap` as its command line gives it.
type OverlapConfig struct {
	// Inputs are the positional arguments: the base and test profiles.
	Inputs []string
	Output string
	// Sample is --sample; without it, two instrumentation profiles are
	// compared as llvm-profdata overlap compares them (CS is --cs).
	Sample  bool
	CS      bool
	Options profview.SampleOverlapOptions
	Stdout  io.Writer
}

// RunOverlap checks c and writes llvm-profdata overlap's report.
func RunOverlap(c OverlapConfig) error {
	if len(c.Inputs) != 2 {
		return cli.Usagef("overlap takes exactly two profiles, base and test")
	}
	a, b := c.Inputs[0], c.Inputs[1]
	if !c.Sample && !isSampleInput(a) {
		for _, p := range []string{a, b} {
			if _, err := os.Stat(p); err != nil {
				return err
			}
		}
		if !IsInstrProfile(a) || !IsInstrProfile(b) {
			return cli.Usagef("overlap compares two sample profiles (--sample) or two instrumentation profiles (.profraw or indexed)")
		}
		if c.Options.SimilarityCutoff != 0 {
			return cli.Usagef("--similarity-cutoff applies to sample profiles only")
		}
		o := profview.OverlapOptions{Function: c.Options.Function, ValueCutoff: c.Options.ValueCutoff, CS: c.CS}
		return writeOutput(c.Output, c.Stdout, func(w io.Writer) error {
			pa, err := LoadInstr(a)
			if err != nil {
				return err
			}
			pb, err := LoadInstr(b)
			if err != nil {
				return err
			}
			_, err = profview.WriteInstrOverlap(w, pa, pb, o)
			return err
		})
	}
	if c.CS {
		return cli.Usagef("--cs applies to instrumentation profiles only")
	}
	return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return OverlapSample(w, a, b, c.Options) })
}

// runSampleDiff is RunDiff for sample profiles.
func runSampleDiff(c DiffConfig) error {
	if len(c.Thresholds) > 0 {
		return cli.Usagef("the -memprof-* options do not apply to sample profiles")
	}
	if c.Format != "text" && c.Format != "pprof" {
		return cli.Usagef("--format=%s: sample profiles take text or pprof", c.Format)
	}
	if _, ok := llvmrelease.Lookup(c.Release); !ok {
		return cli.Usagef("--llvm-version %d: supported are %s", c.Release, llvmrelease.SupportedText())
	}
	o := c.SampleDiff
	o.Release = c.Release
	o.Binary, o.Warnf = c.Binary, c.Warnf
	return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return DiffSample(w, c.A, c.B, c.Format, o) })
}
