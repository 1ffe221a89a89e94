package profmerge

import (
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// Config is a merge as its command line gives it: tools/merge registers
// its options on these fields, and Options checks them and builds the
// Options of Run. Integers arrive parsed (cli.IntValue); everything else is
// checked by Options, in the order the errors are reported.
type Config struct {
	Output         string
	ProfiledBinary string
	// Release is --llvm-version; the caller sets the default.
	Release llvmrelease.Release
	// MemProfVersion is --memprof-version; -1 (the zero Config is not
	// valid) writes what the release's llvm-profdata writes.
	MemProfVersion int
	FullSchema     bool
	// MergeContexts is --memprof-merge-contexts (Options.MergeContexts).
	MergeContexts bool
	Sparse        bool // --sparse (instrumentation profiles)
	// TraceReservoirSize and MaxTraceLength are
	// --temporal-profile-trace-reservoir-size and
	// --temporal-profile-max-trace-length (0: LLVM's defaults, 100 and
	// 10000).
	TraceReservoirSize, MaxTraceLength int
	// Paths are the positional inputs (weight 1), Weighted the
	// --weighted-input values ("W,FILE") and InputFiles the --input-files
	// list.
	Paths      []string
	Weighted   []string
	InputFiles string
	// Partial are the --memprof-partial-input values (PROFILE,STATE) and
	// PartialStateOutput is --memprof-partial-state-output.
	Partial            []string
	PartialStateOutput string
	// FailureMode is --failure-mode: any, all or warn.
	FailureMode          string
	Jobs                 int
	DebugFileDirectories []string
	BuildIDOutput        string
	// Sample are the sample-profile options; Sample.Format is the last of
	// --text, --binary and --extbinary given.
	Sample SampleOptions
}

// Options checks c and returns the Options it asks for, without the
// reporting hooks (Warnf, Progress, Fatal). Mistakes on the command line
// are *cli.UsageError; an unreadable --input-files list is a plain error.
func (c *Config) Options() (Options, error) {
	if c.Output == "" {
		return Options{}, cli.Usagef("no output file: give -o FILE")
	}
	wo, err := instrprof.Defaults(c.Release)
	if err != nil {
		return Options{}, cli.Usagef("--llvm-version=%d: want %s", c.Release, llvmrelease.SupportedText())
	}
	if c.MemProfVersion >= 0 {
		wo.MemProfVersion = c.MemProfVersion
	}
	wo.FullSchema = c.FullSchema
	if err := wo.Validate(); err != nil {
		return Options{}, cli.Usagef("%v", err)
	}
	for _, f := range []struct {
		on, has bool
		name    string
	}{{c.Sample.SplitLayout, c.Release.HasSampleSplitLayout(), "--split-layout"}, {c.Sample.VTables, c.Release.HasVTableTypeProfiles(), "--extbinary-write-vtable-type-prof"}} {
		if f.on && !f.has {
			return Options{}, cli.Usagef("%s: llvm-profdata-%d has no such option (LLVM 22 and later)", f.name, c.Release)
		}
	}
	if err := c.Sample.validate(c.Release); err != nil {
		return Options{}, err
	}
	fm, err := ParseFailureMode(c.FailureMode)
	if err != nil {
		return Options{}, cli.Usagef("%v", err)
	}
	var inputs []Input
	for _, p := range c.Paths {
		inputs = append(inputs, Input{Path: p, Weight: 1})
	}
	for _, w := range c.Weighted {
		in, err := ParseWeighted(w)
		if err != nil {
			return Options{}, cli.Usagef("%v", err)
		}
		inputs = append(inputs, in)
	}
	for _, p := range c.Partial {
		in, err := ParsePartial(p)
		if err != nil {
			return Options{}, cli.Usagef("%v", err)
		}
		inputs = append(inputs, in)
	}
	if (len(c.Partial) > 0 || c.PartialStateOutput != "") && !c.MergeContexts {
		return Options{}, cli.Usagef("--memprof-partial-input and --memprof-partial-state-output need --memprof-merge-contexts: appended contexts cannot be merged in shards")
	}
	if c.PartialStateOutput != "" && c.Output == "-" {
		return Options{}, cli.Usagef("--memprof-partial-state-output needs an output file, not stdout")
	}
	if c.InputFiles != "" {
		list, err := ReadInputFiles(c.InputFiles)
		if err != nil {
			return Options{}, err
		}
		inputs = append(inputs, list...)
	}
	if len(inputs) == 0 {
		return Options{}, cli.Usagef("no input files")
	}
	if c.BuildIDOutput != "" && c.ProfiledBinary == "" {
		return Options{}, cli.Usagef("--build-id-output needs --profiled-binary")
	}
	if c.TraceReservoirSize < 0 || c.MaxTraceLength < 0 {
		return Options{}, cli.Usagef("--temporal-profile-trace-reservoir-size and --temporal-profile-max-trace-length take a positive number")
	}
	return Options{
		TraceReservoirSize:   uint64(c.TraceReservoirSize),
		MaxTraceLength:       uint64(c.MaxTraceLength),
		Inputs:               inputs,
		Output:               c.Output,
		ProfiledBinary:       c.ProfiledBinary,
		DebugFileDirectories: c.DebugFileDirectories,
		BuildIDOutput:        c.BuildIDOutput,
		Write:                wo,
		Jobs:                 c.Jobs,
		Failure:              fm,
		Sparse:               c.Sparse,
		Sample:               c.Sample,
		MergeContexts:        c.MergeContexts,
		PartialStateOutput:   c.PartialStateOutput,
	}, nil
}
