// Command merge converts and merges profiles the way `llvm-profdata merge`
// does, writing the format a chosen clang release reads.
//
//	merge -o OUT --profiled-binary BIN [--llvm-version 16|19|22] RAW...
//	merge show --memory [--profiled-binary BIN] FILE
//	merge show --memory --hints|--format=pprof|html [-o OUT] [-memprof-*=V]... FILE
//	merge show --sample [--function NAME] [--topn N] [--json] [--detailed-summary]
//	           [--show-prof-sym-list] [--show-sec-info-only] FILE
//	merge show --sample --format=pprof|html [-o OUT] [--profiled-binary BIN] FILE
//	merge diff [--format=text|pprof] [-o OUT] [--profiled-binary BIN] [-memprof-*=V]... A B
//	merge diff [--sample] [--format=text|pprof] [--topn N] [-o OUT] [--profiled-binary BIN] A B
//	merge overlap --sample [--function F] [--value-cutoff N] [--similarity-cutoff N] [-o OUT] A B
//
//	merge --sample [--text|--binary|--extbinary] -o OUT [-w W,IN]... IN...
//	      [--sample-merge-cold-context] [--sample-trim-cold-context]
//	      [--convert-sample-profile-layout=nest|flat]
//
// Raw instrumentation profiles (.profraw) are merged into the indexed
// function records clang's -fprofile-use reads.
// Raw MemProf profiles (.memprofraw) from the compiler-rt heap profiler are
// symbolized against the profiled binary and written as an indexed
// .profdata for `clang -fmemory-profile-use=`. Indexed and YAML MemProf
// profiles are accepted as inputs too. Sample profiles (told by content,
// or --sample) are merged as llvm-profdata merge --sample merges them. The output is byte-identical to what
// that release's llvm-profdata writes for the same input; several inputs
// have their allocation contexts merged by call stack unless
// --memprof-merge-contexts=false asks for llvm-profdata's bytes (inputs in
// sorted order, one writer context each). The output never depends on
// input order or -j.
package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
)

const tool = "merge"

func main() { cli.Main(tool, run) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "show":
			return runShow(args[1:], stdout, stderr)
		case "diff":
			return runDiff(args[1:], stdout)
		case "overlap":
			return runOverlap(args[1:], stdout)
		case "merge": // `llvm-profdata merge ...` spelling
			args = args[1:]
		}
	}
	return runMerge(args, stdout, stderr)
}

const mergeSummary = `Merges raw instrumentation profiles (.profraw, from -fprofile-generate or
-fprofile-instr-generate) into the indexed .profdata that -fprofile-use reads.
Converts raw MemProf heap profiles (and merges indexed or YAML MemProf
profiles) into the indexed .profdata that clang's -fmemory-profile-use reads
(given with .profraw inputs of the same binary, both go into one file),
and merges sample profiles (AutoFDO, CSSPGO: text, binary, extbinary) for
-fprofile-sample-use, as llvm-profdata merge --sample of the release does.

Inputs are detected by their magic bytes; directories are searched
recursively. Inputs are always processed in sorted path order, so the output
bytes do not depend on the order they are given in or on -j. As with
llvm-profdata, inputs that are not regular files (FIFOs, devices, sockets)
are skipped (with a warning), and so are empty files (but for --sample).
A failed merge leaves the output (and its state and build id files) as it
was.

Examples:
  merge -o app.profdata prof/*.profraw
  merge --llvm-version 16 -o app.profdata --weighted-input 2,a.profraw b.profraw
  merge -o app.profdata --profiled-binary app app.profraw app.memprofraw.123
  merge -o app.profdata --profiled-binary app prof/*.memprofraw
  merge --llvm-version 16 -o app.profdata --profiled-binary app app.memprofraw.123
  merge --llvm-version 19 --memprof-version 3 -o out.profdata --profiled-binary app RAW...
  merge show --memory --profiled-binary app app.memprofraw.123
  merge show --memory --hints --profiled-binary app app.memprofraw.123
  merge diff old.profdata new.profdata
  merge --sample --extbinary -o app.prof perf1.prof --weighted-input 2,perf2.prof
  merge --sample --text --llvm-version 16 -o app.txt --weighted-input 3,a.prof b.prof
  merge --sample --extbinary --sample-merge-cold-context --convert-sample-profile-layout=nest -o nested.prof cs.prof`

var mergeFooter = llvmrelease.VersionsHelp() + `

Allocation contexts (--memprof-merge-contexts, on by default): contexts with
the same call stack, from every input, become one MIB merged as the heap
profiler itself merges them (counts and totals add, minima and maxima
combine, histograms add), and call sites are listed once, so the profile
and the memory of the merge grow with the unique contexts, not with the
number of runs (5,000 runs: 1 profile's size, ~1.3x the peak memory of 50).
One input gives llvm-profdata's bytes (unless two of its stacks symbolize
to one call stack: those are merged). For several, llvm-profdata appends
every run's contexts, and clang sees a context that was cold in some runs
and not in others several times: clang-19 then marks it notcold even when
99% of its allocations were cold; clang-22 reached the merged profile's
verdict in our tests; runs that agree give the same IR either way
(tools/merge TestMergeContextsIR). --memprof-merge-contexts=false
appends as llvm-profdata does (its bytes with --num-threads=<inputs>).

Sharded merges (merged contexts only): merge contiguous runs of the sorted
inputs into partial profiles, each with --memprof-partial-state-output
STATE, then merge the partials in order, each as
--memprof-partial-input PROFILE,STATE: the result has the bytes of one
merge of every input. The state holds, per allocation context, what its
first block brings to the overlap and same-CPU counters, which a partial
profile alone loses (Bazel's shard_size does this).

Failure modes for bad inputs (each bad input is always named on stderr):
  any   fail if any input is bad (default, as llvm-profdata)
  all   fail only if every input is bad; merge the good ones
  warn  never fail because of a bad input (fails only if nothing is left)

Exit status: 0 success, 1 failure, 2 usage error.`

func runMerge(args []string, stdout, stderr io.Writer) error {
	c := profmerge.Config{Release: llvmrelease.Default, MemProfVersion: -1, FailureMode: "any", MergeContexts: true}
	var fatalWarnings bool
	fs := cli.NewFlagSet(tool, "merge [options] <filename...>")
	fs.Summary, fs.Footer = mergeSummary, mergeFooter
	fs.StringValue(&c.Output, "<file>", "Output file (a regular file is replaced atomically; '-' is stdout)", "--output", "-o")
	fs.StringValue(&c.ProfiledBinary, "<file>", "Path to the profiled binary (needed for raw MemProf inputs)", "--profiled-binary")
	fs.IntValue((*int)(&c.Release), "<N>", "LLVM release whose clang reads the output: "+llvmrelease.SupportedText()+fmt.Sprintf(" (default %d; see below)", llvmrelease.Default), "--llvm-version")
	fs.IntValue(&c.MemProfVersion, "<N>", "MemProf version to write (default: what the release writes)", "--memprof-version")
	fs.BoolFlag(&c.FullSchema, true, "Write every MemInfoBlock field (MemProf V2+)", "--memprof-full-schema")
	fs.Add(&cli.Option{Names: []string{"--memprof-merge-contexts", "--memprof-merge-contexts=true", "--memprof-merge-contexts=false"},
		Kind: cli.Flag, Help: "Merge allocation contexts with the same call stack into one MIB (default: on; =false: llvm-profdata's bytes; see below)",
		Set: func(name, _ string) error {
			c.MergeContexts = name != "--memprof-merge-contexts=false"
			return nil
		}})
	fs.BoolFlag(&c.Sparse, true, "Leave out functions whose counters are all zero (instrumentation profiles)", "--sparse")
	fs.IntValue(&c.TraceReservoirSize, "<N>", "Temporal profiling traces kept (default 100); beyond it a deterministic sample, llvm-profdata-N's with --num-threads=1 and the inputs in sorted order", "--temporal-profile-trace-reservoir-size")
	fs.IntValue(&c.MaxTraceLength, "<N>", "Functions kept of each temporal profiling trace (default 10000)", "--temporal-profile-max-trace-length")
	fs.StringValue(&c.InputFiles, "<file>", "File listing inputs, one [weight,]path per line; '#' comments", "--input-files", "-f")
	fs.ListValue(&c.Weighted, "<W,file>", "Input with a weight (weights do not apply to MemProf data)", "--weighted-input", "-w")
	fs.ListValue(&c.Partial, "<profile,state>", "Partial MemProf profile (indexed) with the state file a merge wrote beside it (split at the last comma); sharded merges, see below", "--memprof-partial-input")
	fs.StringValue(&c.PartialStateOutput, "<file>", "Also write the output's partial state: merged later with --memprof-partial-input, it gives the one-merge bytes", "--memprof-partial-state-output")
	fs.StringValue(&c.FailureMode, "<any|all|warn>", "What bad inputs do (default any)", "--failure-mode")
	fs.IntValue(&c.Jobs, "<N>", "Parallel jobs (default: all cores); never changes the output", "--num-threads", "-j")
	fs.ListValue(&c.DebugFileDirectories, "<dir>", "Directory to search for separate debug files", "--debug-file-directory")
	fs.BoolFlag(&fatalWarnings, true, "Treat warnings as errors", "--fatal-warnings")
	fs.StringValue(&c.BuildIDOutput, "<file>", "Also write the profiled binary's GNU build id (hex) to this file", "--build-id-output")
	fs.BoolFlag(&c.Sample.Force, true, "Inputs are sample profiles (detected by content otherwise)", "--sample")
	fs.Add(&cli.Option{Names: []string{"--instr"}, Kind: cli.Flag, Help: "Inputs are not sample profiles (the default)",
		Set: func(string, string) error { return nil }})
	fs.Add(&cli.Option{Names: []string{"--text", "--binary", "--extbinary"}, Kind: cli.Flag,
		Help: "Sample output encoding (default: binary for --llvm-version 16, extbinary since 17)",
		Set: func(name, _ string) error {
			c.Sample.Format = name[2:]
			return nil
		}})
	fs.BoolFlag(&c.Sample.UseMD5, true, "Sample: name table of MD5 hashes (extbinary)", "--use-md5")
	fs.BoolFlag(&c.Sample.CompressAll, true, "Sample: compress every section (extbinary)", "--compress-all-sections")
	fs.BoolFlag(&c.Sample.Partial, true, "Sample: mark the profile partial (extbinary)", "--gen-partial-profile")
	fs.BoolFlag(&c.Sample.SplitLayout, true, "Sample: split the profile into inlined and not-inlined parts (LLVM 22)", "--split-layout")
	fs.BoolFlag(&c.Sample.VTables, true, "Sample: write vtable type profiles (extbinary, LLVM 22)", "--extbinary-write-vtable-type-prof")
	fs.StringValue(&c.Sample.SymbolListFile, "<file>", "Sample: add the names in file (one a line) to the profile symbol list", "--prof-sym-list")
	fs.BoolFlag(&c.Sample.DropSymbolList, true, "Sample: drop the inputs' profile symbol lists", "--drop-profile-symbol-list")
	fs.BoolFlag(&c.Sample.MergeColdContext, true, "Sample, CS: merge contexts below the cold threshold into their last frames' context", "--sample-merge-cold-context")
	fs.BoolFlag(&c.Sample.TrimColdContext, true, "Sample, CS: drop contexts (merged or not) below the cold threshold", "--sample-trim-cold-context")
	fs.Add(&cli.Option{Names: []string{"--sample-frame-depth-for-cold-context"}, Kind: cli.Value, MetaVar: "<N>",
		Help: "Sample, CS: frames a merged cold context keeps (default 1: the base profile)",
		Set: func(name, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				// 0 makes llvm-profdata merge into an empty context.
				return fmt.Errorf("want a number of frames, at least 1, but got %q", v)
			}
			c.Sample.ColdContextFrameDepth = n
			return nil
		}})
	fs.Add(&cli.Option{Names: []string{"--convert-sample-profile-layout"}, Kind: cli.Value, MetaVar: "<nest|flat>",
		Help: "Sample: nest a CS profile's contexts into inlinees, or flatten contexts and inlinees (flat: LLVM 19+)",
		Set: func(_, v string) error {
			c.Sample.Layout = v
			return nil
		}})
	fs.Add(&cli.Option{Names: []string{"--gen-cs-nested-profile"}, Kind: cli.Flag,
		Help: "Sample: LLVM 16's spelling of --convert-sample-profile-layout=nest",
		Set: func(string, string) error {
			c.Sample.Layout = "nest"
			return nil
		}})
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	c.Paths = pos
	opts, err := c.Options()
	if err != nil {
		return err
	}
	rep := cli.NewReporter(tool, stderr)
	rep.FatalWarnings = fatalWarnings
	opts.Warnf, opts.Progress, opts.Fatal = rep.Warnf, rep.Progress, rep.Err
	err = profmerge.Run(opts)
	rep.DoneProgress()
	return err
}

func runShow(args []string, stdout, stderr io.Writer) error {
	c := profmerge.ShowConfig{Release: llvmrelease.Default, View: "text", Stdout: stdout}
	fs := cli.NewFlagSet(tool, "merge show [--instr]|--memory|--sample [options] <file>")
	fs.Summary = `Prints a profile as text:
  --instr (a .profraw, or an indexed profile; the default for a .profraw and
          for an indexed profile without MemProf data): what llvm-profdata
          show prints, with --all-functions, --function, --counts,
          --ic-targets, --memop-sizes, --show-vtables, --detailed-summary,
          --detailed-summary-cutoffs, --binary-ids, --topn, --showcs,
          --profile-version, --temporal-profile-traces
  --memory, a raw profile (with --profiled-binary): like llvm-profdata show --memory
  --memory, an indexed profile: the YAML MemProf form LLVM 20+ reads and writes
  --sample (text, binary or extbinary): what llvm-profdata show --sample prints

Views of a MemProf profile (raw with --profiled-binary, indexed or YAML):
  --hints          the allocation type (cold, notcold, hot) clang --llvm-version
                   derives for every allocation context, why, and a summary;
                   clang's threshold options are accepted as clang spells them
  --format=pprof   a pprof profile (gzipped; go tool pprof -top OUT.pb.gz);
                   with --sample: a sample profile's samples and head samples
  --format=html    a self-contained HTML report with a flame graph; with
                   --sample: hot functions (LLVM's cutoffs), function bodies,
                   a flame graph of the contexts (CS) or inline trees;
                   with --profiled-binary, each function's file and first
                   line (DW_AT_decl_line) and source lines instead of the
                   profile's offsets (probe-based profiles keep probe ids)
Frames show demangled names and source lines (file:line:column) from
--profiled-binary's DWARF; without it, what the profile holds (and a note).

Views of an instrumentation profile (names and first lines from
--profiled-binary when given):
  --format=pprof   one sample per function (counter sum and largest counter)
  --format=html    a self-contained report: summary, hottest functions with
                   block counts and value profiles, the MemProf part if any

Examples:
  merge show --all-functions --counts --ic-targets app.profdata
  merge show --memory --hints --profiled-binary app app.memprofraw.123
  merge show --memory --hints --llvm-version 22 -memprof-ave-lifetime-cold-threshold=0 app.profdata
  merge show --memory --format=pprof -o app.pb.gz --profiled-binary app app.memprofraw.123
  merge show --memory --format=html -o app.html app.profdata
  merge show --sample --format=html -o app.html app.prof`
	fs.BoolFlag(&c.Instr, true, "Show an instrumentation profile (.profraw or indexed)", "--instr")
	fs.BoolFlag(&c.Memory, true, "Show MemProf data", "--memory")
	fs.BoolFlag(&c.Sample, true, "Show a sample profile", "--sample")
	fs.StringValue(&c.Binary, "<file>", "Profiled binary (for raw profiles)", "--profiled-binary")
	fs.StringValue(&c.Output, "<file>", "Output file (default stdout; a regular file is replaced atomically)", "--output", "-o")
	fs.IntValue((*int)(&c.Release), "<N>", fmt.Sprintf("LLVM release whose llvm-profdata to emulate (default %d)", llvmrelease.Default), "--llvm-version")
	instrFlag := func(dst *bool, help, name string) {
		fs.Add(&cli.Option{Names: []string{name}, Kind: cli.Flag, Help: help,
			Set: func(string, string) error {
				*dst, c.InstrOnly = true, true
				return nil
			}})
	}
	// Flags that mean the same for instrumentation and sample profiles.
	bothFlag := func(instrDst, sampleDst *bool, help, name string) {
		fs.Add(&cli.Option{Names: []string{name}, Kind: cli.Flag, Help: help,
			Set: func(string, string) error {
				*instrDst, *sampleDst = true, true
				return nil
			}})
	}
	bothFlag(&c.InstrOptions.AllFunctions, &c.SampleOptions.AllFunctions, "Details for every function (sample: overrides --function)", "--all-functions")
	bothFlag(&c.InstrOptions.DetailedSummary, &c.SampleOptions.DetailedSummary, "The detailed profile summary", "--detailed-summary")
	instrFlag(&c.InstrOptions.Counts, "Instr: the counter values of the functions shown", "--counts")
	instrFlag(&c.InstrOptions.ICTargets, "Instr: the indirect-call targets of the functions shown", "--ic-targets")
	instrFlag(&c.InstrOptions.MemOPSizes, "Instr: the memory intrinsic sizes of the functions shown", "--memop-sizes")
	instrFlag(&c.InstrOptions.VTables, "Instr: the vtables profiled at the virtual calls of the functions shown (LLVM 19+)", "--show-vtables")
	instrFlag(&c.InstrOptions.BinaryIDs, "Instr: the binary ids", "--binary-ids")
	instrFlag(&c.InstrOptions.ShowCS, "Instr: the context-sensitive records of an IR profile", "--showcs")
	instrFlag(&c.InstrOptions.Text, "Instr: the functions shown (--all-functions, --function) in llvm-profdata's text format, nothing else", "--text")
	instrFlag(&c.InstrOptions.Covered, "Instr: the names of the functions with a nonzero counter, nothing else", "--covered")
	instrFlag(&c.InstrOptions.OnlyListBelow, "Instr: list only the functions whose largest counter is below --value-cutoff", "--list-below-cutoff")
	instrFlag(&c.InstrOptions.ProfileVersion, "Instr: the profile's version (a .profraw's whole version field, an indexed profile's index version)", "--profile-version")
	instrFlag(&c.InstrOptions.TemporalTraces, "Instr: the temporal profiling traces (LLVM 17+; -mllvm -pgo-temporal-instrumentation)", "--temporal-profile-traces")
	fs.Add(&cli.Option{Names: []string{"--detailed-summary-cutoffs"}, Kind: cli.Value, MetaVar: "<N,...>",
		Help: "Instr: the cutoffs of --detailed-summary, in parts per million of the total count (e.g. 990000,999999)",
		Set: func(_, v string) error {
			for f := range strings.SplitSeq(v, ",") {
				n, err := strconv.ParseUint(f, 10, 32)
				if err != nil {
					return fmt.Errorf("%q is not a count from 0 to 4294967295 (parts per million, comma-separated)", f)
				}
				c.InstrOptions.Cutoffs = append(c.InstrOptions.Cutoffs, n)
			}
			c.InstrOnly = true
			return nil
		}})
	fs.IntValue(&c.ValueCutoff, "<N>", "Instr: leave out (and count) the functions whose largest counter is below N", "--value-cutoff")
	fs.Add(&cli.Option{Names: []string{"--function"}, Kind: cli.Value, MetaVar: "<name>", Help: "Sample: show only this function; instr: functions whose name contains it",
		Set: func(_, v string) error {
			c.SampleOptions.Function, c.SampleOptions.HasFunction = v, true
			return nil
		}})
	fs.Add(&cli.Option{Names: []string{"--format"}, Kind: cli.Value, MetaVar: "<text|hints|pprof|html>",
		Help: "text (the dump, default); memory: hints, pprof or html; sample: pprof or html",
		Set: func(_, v string) error {
			switch v {
			case "text", "hints", "pprof", "html":
				c.View = v
				return nil
			}
			return fmt.Errorf("unknown format %q (text, hints, pprof, html)", v)
		}})
	fs.Add(&cli.Option{Names: []string{"--hints"}, Kind: cli.Flag, Help: "Memory: the hints clang derives (--format=hints)",
		Set: func(string, string) error {
			c.View = "hints"
			return nil
		}})
	addThresholdFlags(fs, &c.Thresholds)
	fs.IntValue(&c.SampleOptions.TopN, "<N>", "Sample: also list the N hottest functions; instr: the N with the largest counts", "--topn")
	fs.BoolFlag(&c.SampleOptions.HotList, true, "Sample: also list every hot function", "--hot-func-list")
	fs.BoolFlag(&c.SampleOptions.SectionInfoOnly, true, "Sample: print only the extbinary section table", "--show-sec-info-only")
	fs.BoolFlag(&c.SampleOptions.JSON, true, "Sample: print the profiles as JSON", "--json")
	fs.StringValue(&c.SampleOptions.Format, "<text|json|yaml>", "Sample: output format (json as --json; yaml is not supported for samples)", "--show-format")
	fs.BoolFlag(&c.SampleOptions.SymbolList, true, "Sample: also print the profile symbol list (extbinary)", "--show-prof-sym-list")
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("show takes exactly one input file")
	}
	c.Input, c.SampleOptions.Warnf = pos[0], cli.NewReporter(tool, stderr).Warnf
	return profmerge.RunShow(c)
}

// addThresholdFlags registers clang's -memprof-* threshold options (also
// after -mllvm), collecting them in *dst for profview.Thresholds.Set.
func addThresholdFlags(fs *cli.FlagSet, thresholds *[]string) {
	for _, name := range profview.FlagNames() {
		o := &cli.Option{Names: []string{"-" + name, "--" + name}, Kind: cli.Value, MetaVar: "<N>", Hidden: true,
			Set: func(n, v string) error {
				*thresholds = append(*thresholds, n+"="+v)
				return nil
			}}
		if name == "memprof-use-hot-hints" {
			o.Kind = cli.Flag
			o.Set = func(n, _ string) error {
				*thresholds = append(*thresholds, n)
				return nil
			}
			o.Names = append(o.Names, "-"+name+"=true", "-"+name+"=false", "--"+name+"=true", "--"+name+"=false")
		}
		fs.Add(o)
	}
	fs.Add(&cli.Option{Names: []string{"-mllvm"}, Kind: cli.Value, MetaVar: "<-memprof-option=value>",
		Help: "Memory: a clang -memprof-* threshold option for the hints (also accepted without -mllvm): " +
			strings.Join(profview.FlagNames(), ", "),
		Set: func(_, v string) error {
			*thresholds = append(*thresholds, v)
			return nil
		}})
}

func runDiff(args []string, stdout io.Writer) error {
	o := profmerge.DiffConfig{MemoryShowOptions: profmerge.MemoryShowOptions{Release: llvmrelease.Default, Format: "text"}, Stdout: stdout,
		SampleDiff: profmerge.SampleDiffOptions{SampleOverlapOptions: profview.SampleOverlapOptions{ValueCutoff: profview.NoValueCutoff}}}
	fs := cli.NewFlagSet(tool, "merge diff [options] <A> <B>")
	fs.Summary = `Prints what changed from MemProf profile A to B (raw with --profiled-binary,
indexed or YAML): the hint summaries side by side, and the allocation contexts
added, removed, with another hint (as clang --llvm-version derives it), or
with other sizes. --format=pprof writes B minus A as a pprof profile (the
profiles of show --format=pprof also work with go tool pprof -diff_base).

For two instrumentation profiles (.profraw or indexed): what llvm-profdata
overlap A B prints (LLVM 22's numbers; --function, --value-cutoff, --cs),
then the functions whose share of the counts changed most; --format=pprof
writes B minus A per function.

Sample profiles (--sample, or told by content): llvm-profdata overlap
--sample's numbers, then every function's share of each profile's samples
(largest change first) and the lines of the --topn functions that changed
most; --format=pprof writes B minus A scaled to B's total samples. With
--profiled-binary, lines are its source lines (offsets from each function's
first line without it; probe ids stay probe ids).

Examples:
  merge diff old.profdata new.profdata
  merge diff --profiled-binary app a.memprofraw b.memprofraw
  merge diff --format=pprof -o delta.pb.gz old.profdata new.profdata
  merge diff last-week.profdata today.profdata
  merge diff --sample last-week.prof today.prof
  merge diff --sample --profiled-binary app last-week.prof today.prof`
	fs.BoolFlag(&o.Sample, true, "The profiles are sample profiles (also told by content)", "--sample")
	fs.IntValue(&o.SampleDiff.Top, "<N>", "Sample: functions shown with their lines (default 10)", "--topn")
	fs.StringValue(&o.Binary, "<file>", "Profiled binary (for raw profiles; names functions of indexed ones; source lines of sample profiles)", "--profiled-binary")
	fs.StringValue(&o.Output, "<file>", "Output file (default stdout; a regular file is replaced atomically)", "--output", "-o")
	fs.IntValue((*int)(&o.Release), "<N>", fmt.Sprintf("LLVM release whose clang's hints to show (default %d)", llvmrelease.Default), "--llvm-version")
	fs.BoolFlag(new(bool), true, "The profiles are MemProf profiles (the default unless both are instrumentation or sample profiles)", "--memory")
	fs.Add(&cli.Option{Names: []string{"--format"}, Kind: cli.Value, MetaVar: "<text|pprof>", Help: "text (default) or pprof (B minus A)",
		Set: func(_, v string) error {
			if v != "text" && v != "pprof" {
				return fmt.Errorf("unknown format %q (text, pprof)", v)
			}
			o.Format = v
			return nil
		}})
	addThresholdFlags(fs, &o.Thresholds)
	o.Overlap.ValueCutoff = profview.NoValueCutoff
	fs.StringValue(&o.Overlap.Function, "<name>", "Instr: the function-level overlap of the functions whose name contains it", "--function")
	fs.Add(&cli.Option{Names: []string{"--value-cutoff"}, Kind: cli.Value, MetaVar: "<N>", Help: "Instr: the function-level overlap of the functions whose largest counter in B reaches N",
		Set: func(_, v string) (err error) { o.Overlap.ValueCutoff, err = strconv.ParseUint(v, 10, 64); return err }})
	fs.BoolFlag(&o.Overlap.CS, true, "Instr: compare the context-sensitive counts", "--cs")
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) != 2 {
		return cli.Usagef("diff takes exactly two profiles, A and B")
	}
	o.A, o.B = pos[0], pos[1]
	return profmerge.RunDiff(o)
}

func runOverlap(args []string, stdout io.Writer) error {
	c := profmerge.OverlapConfig{Options: profview.SampleOverlapOptions{Release: llvmrelease.Default, ValueCutoff: profview.NoValueCutoff}, Stdout: stdout}
	fs := cli.NewFlagSet(tool, "merge overlap [--sample] [options] <base profile> <test profile>")
	fs.Summary = `Prints how similar two profiles are, as llvm-profdata overlap prints it (the
same text and numbers). Sample profiles (--sample): program-level similarity
and sample overlap, function, hot-function and hot-block overlap, and
function-level details of the functions --function, --value-cutoff or
--similarity-cutoff choose. Instrumentation profiles (.profraw or indexed):
edge and value-profile overlap of the whole program and of the functions
--function or --value-cutoff choose; --cs compares the context-sensitive
records.

Examples:
  merge overlap --sample base.prof test.prof
  merge overlap base.profdata test.profdata`
	fs.BoolFlag(&c.Sample, true, "The profiles are sample profiles (also told by content)", "--sample")
	fs.BoolFlag(&c.CS, true, "Instrumentation: compare the context-sensitive records", "--cs")
	fs.StringValue(&c.Output, "<file>", "Output file (default stdout)", "--output", "-o")
	fs.IntValue((*int)(&c.Options.Release), "<N>", fmt.Sprintf("LLVM release whose llvm-profdata to follow (default %d)", llvmrelease.Default), "--llvm-version")
	fs.StringValue(&c.Options.Function, "<name>", "Details of the functions whose name contains this", "--function")
	fs.Uint64Value(&c.Options.ValueCutoff, "<N>", "Details of the functions with a count of at least N", "--value-cutoff")
	fs.Uint64Value(&c.Options.SimilarityCutoff, "<N>", "Details of the functions less similar than N parts per million", "--similarity-cutoff")
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	c.Inputs = pos
	return profmerge.RunOverlap(c)
}
