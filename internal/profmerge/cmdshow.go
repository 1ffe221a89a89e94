package profmerge

import (
	"bufio"
	"io"
	"os"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profview"
)

// ShowConfig is `merge show` as its command line gives it: tools/merge
// registers its options on these fields and RunShow checks them and
// routes the input to its view.
type ShowConfig struct {
	Input, Binary, Output string              // the input, --profiled-binary, -o
	Release               llvmrelease.Release // --llvm-version
	// Instr, Memory and Sample are --instr, --memory and --sample;
	// InstrOnly records that an option of instrumentation profiles only
	// was given (--counts, --ic-targets, ...).
	Instr, Memory, Sample, InstrOnly bool
	// View is --format (--hints sets hints): text, hints, pprof or html.
	View string
	// Thresholds are clang's -memprof-* options.
	Thresholds []string
	// InstrOptions are the options of instrumentation profiles and
	// ValueCutoff is --value-cutoff (checked here); RunShow sets their
	// release, TopN and Function from Release and SampleOptions.
	InstrOptions instrprof.ShowOptions
	ValueCutoff  int
	// SampleOptions are the options of sample profiles (and --topn,
	// --function of instrumentation ones); RunShow sets their Release. Their
	// Warnf also hears the MemProf views' warnings (a profiled binary's
	// unusable debug section).
	SampleOptions SampleShowOptions
	// Stdout receives the view unless Output names a file.
	Stdout io.Writer
}

// RunShow checks c and writes the view it asks for: an instrumentation
// profile's dump, a MemProf profile's dump, hints, pprof or HTML, or a
// sample profile's dump or pprof. Mistakes on the command line are
// *cli.UsageError.
func RunShow(c ShowConfig) error {
	release, so, iopts := c.Release, c.SampleOptions, c.InstrOptions
	warnf := c.SampleOptions.Warnf // the tool's warnings, for every view
	view, thresholds, sample := c.View, c.Thresholds, c.Sample
	if c.Memory && sample || c.Instr && (c.Memory || sample) {
		return cli.Usagef("--instr, --memory and --sample exclude each other")
	}
	if c.InstrOnly && (c.Memory || sample) {
		return cli.Usagef("--counts, --ic-targets, --memop-sizes, --show-vtables, --binary-ids, --showcs, --profile-version, --temporal-profile-traces and --detailed-summary-cutoffs apply to instrumentation profiles (--instr)")
	}
	instrView := view == "text" || view == "pprof" || view == "html"
	if c.Instr || c.InstrOnly || (!c.Memory && !sample && instrView && len(thresholds) == 0 && IsInstrProfile(c.Input)) {
		if !instrView || len(thresholds) > 0 {
			return cli.Usagef("--hints and the -memprof-* options do not apply to instrumentation profiles")
		}
		if _, ok := llvmrelease.Lookup(release); !ok {
			return cli.Usagef("--llvm-version %d: supported are %s", release, llvmrelease.SupportedText())
		}
		iopts.Release, iopts.TopN = release, so.TopN
		if err := checkInstrShowFormat(so, iopts); err != nil {
			return err
		}
		if iopts.TemporalTraces && !release.HasTemporalProfiles() {
			return cli.Usagef("--temporal-profile-traces: llvm-profdata %d has no temporal profiles (17 and later); use --llvm-version 19 or 22", release)
		}
		if c.ValueCutoff < 0 {
			return cli.Usagef("--value-cutoff=%d: want a count, 0 or more", c.ValueCutoff)
		}
		iopts.ValueCutoff = uint64(c.ValueCutoff)
		iopts.Function = so.Function
		if view != "text" {
			vo := InstrViewOptions{Format: view, Binary: c.Binary, Show: iopts, Warnf: warnf}
			return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return ShowInstrView(w, c.Input, vo) })
		}
		return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return ShowInstr(w, c.Input, iopts) })
	}
	show := func(w io.Writer) error { return Show(w, c.Input, c.Binary, release, warnf) }
	if sample && (view == "pprof" || view == "html") && len(thresholds) == 0 {
		if _, ok := llvmrelease.Lookup(release); !ok {
			return cli.Usagef("--llvm-version %d: supported are %s", release, llvmrelease.SupportedText())
		}
		vo := SampleViewOptions{Release: release, Binary: c.Binary, Warnf: warnf}
		show = func(w io.Writer) error { return ShowSampleView(w, c.Input, vo) }
		if view == "html" {
			show = func(w io.Writer) error { return ShowSampleHTML(w, c.Input, vo) }
		}
	} else if view != "text" || len(thresholds) > 0 {
		if sample {
			return cli.Usagef("--hints, --format=html and the -memprof-* options apply to --memory (--sample takes --format=pprof or html)")
		}
		if view == "text" {
			return cli.Usagef("-memprof-* options need --hints, --format=pprof or --format=html")
		}
		if err := checkThresholds(release, thresholds); err != nil {
			return err
		}
		mo := MemoryShowOptions{Binary: c.Binary, Release: release, Format: view, Thresholds: thresholds, Warnf: warnf}
		show = func(w io.Writer) error { return ShowMemoryView(w, c.Input, mo) }
	}
	if sample && view == "text" {
		if _, ok := llvmrelease.Lookup(release); !ok {
			return cli.Usagef("--llvm-version %d: supported are %s", release, llvmrelease.SupportedText())
		}
		so.Release = release
		show = func(w io.Writer) error { return ShowSample(w, c.Input, so) }
	}
	return writeOutput(c.Output, c.Stdout, show)
}

// DiffConfig is `merge diff` as its command line gives it.
type DiffConfig struct {
	A, B, Output string // the profiles and -o
	MemoryShowOptions
	// Overlap are the options of instrumented profiles (--function,
	// --value-cutoff, --cs), which diff compares as llvm-profdata overlap.
	Overlap profview.OverlapOptions
	// Sample is --sample: A and B are sample profiles (also assumed when
	// A is one by its content); SampleDiff are their options.
	Sample     bool
	SampleDiff SampleDiffOptions
	// Stdout receives the diff unless Output names a file.
	Stdout io.Writer
}

// RunDiff checks c and writes what changed from profile A to B
// (DiffMemory; DiffSample for sample profiles; DiffInstr when both are
// instrumented profiles). Mistakes on the command line are *cli.UsageError.
func RunDiff(c DiffConfig) error {
	if c.Sample || isSampleInput(c.A) {
		return runSampleDiff(c)
	}
	if IsInstrProfile(c.A) && IsInstrProfile(c.B) {
		if len(c.Thresholds) > 0 {
			return cli.Usagef("the -memprof-* options do not apply to instrumentation profiles")
		}
		o := InstrDiffOptions{Format: c.Format, Overlap: c.Overlap}
		return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return DiffInstr(w, c.A, c.B, o) })
	}
	if err := checkThresholds(c.Release, c.Thresholds); err != nil {
		return err
	}
	return writeOutput(c.Output, c.Stdout, func(w io.Writer) error { return DiffMemory(w, c.A, c.B, c.MemoryShowOptions) })
}

// checkThresholds reports a bad threshold option as a usage error.
func checkThresholds(release llvmrelease.Release, opts []string) error {
	if _, ok := llvmrelease.Lookup(release); !ok {
		return cli.Usagef("--llvm-version %d: supported are %s", release, llvmrelease.SupportedText())
	}
	if _, err := profview.ParseThresholds(release, opts); err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// writeOutput runs write on stdout, or on the file output (replaced
// atomically, never left half written).
func writeOutput(output string, stdout io.Writer, write func(w io.Writer) error) error {
	if output == "" || output == atomicfile.Stdout {
		return write(stdout)
	}
	return atomicfile.Create(output, 0o644, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<16)
		if err := write(w); err != nil {
			return err
		}
		return w.Flush()
	})
}
