// Command profgen turns a perf script of LBR samples into a sample profile
// for clang's -fprofile-sample-use, writing what llvm-profgen of the chosen
// LLVM release writes:
//
//	profgen --perfscript=TRACE --binary=BIN [--format=text|binary|extbinary] -o OUT
//
// Done: LBR traces and hybrid traces read with --ignore-stack-samples
// (the context-insensitive AutoFDO profile), --skip-symbolization (also of
// hybrid traces: the unwound CS counters), the flat CSSPGO context profile
// of hybrid traces, pre-inlined and nested (llvm-profgen's defaults) or
// not, cold contexts trimmed or merged; binaries with pseudo probes
// (-fpseudo-probe-for-profiling): probe-based profiles with !CFGChecksum,
// non-CS and CS (tail-call frames inferred, pre-inlined or not),
// --show-pseudo-probe with --show-disassembly-only; --perfdata read
// natively (perf.data in file, pipe or -z form; no perf needed), or with
// --perfdata-via-perf-script through perf script as llvm-profgen runs it;
// vtable type profiles from
// --data-access-perftrace (LLVM 22); --unsymbolized-profile (the text of
// --skip-symbolization read back); --show-detailed-warning;
// --show-source-locations; split DWARF (.dwo files, --dwp); the DWARF of
// another file (--debug-binary: a stripped binary's unstripped twin or
// --only-keep-debug file); --show-density and the density parameters;
// --max-search-depth; --disassemble-functions, --show-canonical-fname;
// --llvm-sample-profile (context-insensitive and nested profiles); LLVM
// 22's --csprof-max-unsymbolized-context-depth and
// --load-function-from-symbol.
//
// Not done: --kernel (traces of the Linux kernel image),
// --llvm-sample-profile of flat CS profiles.
package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profgen"
)

const tool = "profgen"

func main() { cli.Main(tool, run) }

const summary = `Generates a sample profile (AutoFDO) from the perf script of an LBR trace
(perf script -F ip,brstack --show-mmap-events) and the profiled binary, as
llvm-profgen of the chosen release does: same flags, same output bytes.

Hybrid traces (call stacks with the LBR) give a context-sensitive (CSSPGO)
profile, or a context-insensitive one with --ignore-stack-samples. CSSPGO
profiles are pre-inlined (--csspgo-preinliner) and nested
(--gen-cs-nested-profile) as llvm-profgen does by default; turn either off
for the flat context profile, whose cold contexts are then merged into
their base profiles (--csprof-merge-cold-context).
Binaries built with -fpseudo-probe-for-profiling give probe-based profiles
(counts per probe, function checksums), unless --use-dwarf-correlation.

Vtable type profiles (LLVM 22): --data-access-perftrace=DUMP with the
'perf report -D' dump of a load-sampling event recorded with data
addresses (Intel MEM_INST_RETIRED.ALL_LOADS, perf record -d): the
loads of vtables (_ZTV symbols) become 'vtables' lines at the load's
location (text output, or extbinary with --extbinary-write-vtable-type-prof).

Examples:
  profgen --perfscript=app.script --binary=app -o app.prof
  profgen --perfdata=perf.data --binary=app -o app.prof
  profgen --perfscript=app.script --data-access-perftrace=loads.txt --binary=app \
      --format=text -o app.txt --llvm-version 22
  profgen --perfscript=app.script --binary=app --format=text -o app.txt --llvm-version 22
  profgen --perfscript=app.script --binary=app --skip-symbolization -o app.unsym
  profgen --unsymbolized-profile=app.unsym --binary=app -o app.prof`

func run(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := profgen.DefaultOptions()
	fs := cli.NewFlagSet(tool, "profgen [options] --perfscript=<file> --binary=<file> -o <file>")
	fs.Summary, fs.Footer = summary, "Exit status: 0 success, 1 failure, 2 usage error."
	fs.StringValue(&c.Perfscript, "<file>", "Perf script of the trace (perf script -F ip,brstack --show-mmap-events)", "--perfscript", "--ps")
	fs.StringValue(&c.Binary, "<file>", "The profiled executable", "--binary")
	fs.StringValue(&c.Output, "<file>", "Output profile (a regular file is replaced atomically; '-' is stdout)", "--output", "-o")
	fs.Add(&cli.Option{Names: []string{"--format"}, Kind: cli.Value, MetaVar: "<text|binary|extbinary>",
		Help: "Output encoding (default extbinary)", Set: func(_, v string) error {
			switch v {
			case "text", "binary", "extbinary":
				c.Format = v
				return nil
			case "gcc":
				return cli.Usagef("--format=gcc: not supported yet")
			}
			return cli.Usagef("--format: unknown value '%s' (text, binary or extbinary)", v)
		}})
	fs.IntValue((*int)(&c.Release), "<N>", fmt.Sprintf("LLVM release whose llvm-profgen to follow: %s (default %d)", llvmrelease.ProfgenText(), llvmrelease.Default), "--llvm-version")
	fs.StringValue(&c.PID, "<pid>", "Only the mmap events of this process", "--pid")
	fs.StringValue(&c.TraceBuildID, "<hex>", "Build id of the binary the trace was recorded from (perf buildid-list); fail if --binary's differs. Traces recorded with perf record --buildid-mmap are checked without it", "--trace-build-id")
	fs.BoolFlag(&c.IgnoreStackSamples, true, "Read hybrid samples without their call stacks (context-insensitive profile)", "--ignore-stack-samples")
	fs.BoolFlag(&c.SkipSymbolization, true, "Write the unsymbolized profile (ranges and branches) instead", "--skip-symbolization")
	fs.BoolFlag(&c.ShowDetailedWarning, true, "Warn about each item a warning's summary counts: each invalid range, truncated stack, truncated context, function without an entry", "--show-detailed-warning")
	fs.BoolFlag(&c.ShowMmapEvents, true, "Print the binary's load events", "--show-mmap-events")
	fs.BoolFlag(&c.ShowDisassemblyOnly, true, "Print the disassembled code and stop (no input or output needed)", "--show-disassembly-only")
	fs.BoolFlag(&c.ShowSourceLocations, true, "With --show-disassembly-only, print each instruction's inline frames (innermost first, line offsets; probe indexes with --show-pseudo-probe)", "--show-source-locations")
	fs.BoolFlag(&c.ShowCanonicalName, true, "With --show-disassembly-only, print function names without their .llvm. and .part. suffixes", "--show-canonical-fname")
	fs.Add(&cli.Option{Names: []string{"--disassemble-functions"}, Kind: cli.Value, MetaVar: "<name,...>",
		Help: "With --show-disassembly-only, print only these functions (symbol names, canonical with --show-canonical-fname; the option adds up)", Set: func(_, v string) error {
			c.DisassembleFunctions = append(c.DisassembleFunctions, strings.Split(v, ",")...)
			return nil
		}})
	fs.BoolFlag(&c.ShowPseudoProbe, true, "Print the pseudo-probe descriptors, and with --show-disassembly-only each instruction's probes", "--show-pseudo-probe")
	fs.BoolFlag(&c.UseDWARFCorrelation, true, "Correlate with DWARF lines even when the binary has pseudo probes", "--use-dwarf-correlation")
	fs.BoolFlag(&c.Generate.UpdateTotalSamples, true, "Recompute totals as the sum of body samples and inlinee totals", "--update-total-samples")
	fs.BoolFlag(&c.Generate.TrimColdProfile, true, "Drop profiles whose total is below the cold threshold", "--trim-cold-profile")
	llvmBool(fs, &c.CS.PreInliner, nil, true, "Run the CSSPGO pre-inliner: keep the contexts it would inline, merge the others into their base profiles (default true)", "--csspgo-preinliner")
	preInlinerFlags(fs, &c.CS.PreInline)
	llvmBool(fs, &c.CS.InferMissingFrames, nil, false, "Infer the call frames that tail calls leave out of probe-based contexts (default true)", "--infer-missing-frames")
	fs.Add(&cli.Option{Names: []string{"--max-search-depth"}, Kind: cli.Value, MetaVar: "<N>",
		Help: "Deepest search for the unique tail-call path that --infer-missing-frames fills in (default 4294967294)", Set: func(_, v string) error {
			n, err := strconv.ParseUint(v, 0, 32)
			if err != nil {
				return cli.Usagef("--max-search-depth: '%s' is not a number from 0 to 4294967295", v)
			}
			d := uint32(n)
			c.CS.MaxSearchDepth = &d
			return nil
		}})
	llvmBool(fs, &c.CS.GenNestedProfile, nil, true, "Write CS profiles nested: each context as an inlinee of its caller's profile (default true)", "--gen-cs-nested-profile")
	llvmBool(fs, &c.CS.MergeColdContext, &c.MergeColdContextGiven, false, "Merge contexts below the hot threshold into the profile of their last --csprof-max-cold-context-depth frames (default true, off after the pre-inliner unless given)", "--csprof-merge-cold-context")
	fs.IntValue(&c.CS.MaxColdContextDepth, "<N>", "Frames kept when merging cold contexts (default 1)", "--csprof-max-cold-context-depth")
	fs.IntValue(&c.Context.MaxContextDepth, "<N>", "Keep the last N frames of each context (default -1: all)", "--csprof-max-context-depth")
	fs.IntValue(&c.Context.MaxUnsymbolizedContextDepth, "<N>", "Keep the last N call addresses of each context of a pseudo-probe binary, which are unsymbolized when unwound (default -1: all; with --csprof-max-context-depth the smaller applies; no effect on DWARF contexts)", "--csprof-max-unsymbolized-context-depth")
	fs.Add(&cli.Option{Names: []string{"--compress-recursion"}, Kind: cli.Value, Hidden: true, Set: func(_, v string) error {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return cli.Usagef("'%s' is not an integer", v)
		}
		c.Context.MaxCompressionSize = int(n)
		return nil
	}})
	fs.Add(&cli.Option{Names: []string{"--fill-zero-for-all-funcs"}, Kind: cli.Flag, Hidden: true,
		Set: func(string, string) error { c.Generate.FillZeroForAllFuncs = true; return nil }})
	fs.Add(&cli.Option{Names: []string{"--mark-all-context-preinlined"}, Kind: cli.Flag,
		Help: "Mark every profile and inlinee ContextShouldBeInlined, the profile pre-inlined (LLVM 22)",
		Set:  func(string, string) error { c.Generate.MarkAllContextPreinlined = true; return nil }})
	fs.BoolFlag(&c.ShowDensity, true, "Print the density of the hot functions (on stdout): the least density among the functions that hold --profile-density-cutoff-hot of the samples", "--show-density")
	fs.Add(&cli.Option{Names: []string{"--profile-density-threshold"}, Kind: cli.Value, MetaVar: "<number>",
		Help: "Suggest more samples when the hot functions' density is below this (default 50)", Set: func(_, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return cli.Usagef("--profile-density-threshold: '%s' is not a number", v)
			}
			c.Generate.ProfileDensityThreshold = f
			return nil
		}})
	fs.IntValue(&c.Generate.ProfileDensityCutoffHot, "<N>", "Share of the samples, in millionths, whose functions' density is computed (default 990000: 99%)", "--profile-density-cutoff-hot")
	fs.StringValue(&c.DataAccessPerftrace, "<file>", "`perf report -D` dump of a load-sampling event (MEM_INST_RETIRED.ALL_LOADS with data addresses), or that perf.data itself (read natively): vtable type counts for the loads of _ZTV symbols (LLVM 22; text output, or extbinary with --extbinary-write-vtable-type-prof)", "--data-access-perftrace")
	llvmBool(fs, &c.WriteVTables, nil, true, "Write vtable type counts into extbinary profiles (LLVM 22)", "--extbinary-write-vtable-type-prof")
	fs.StringValue(&c.Perfdata, "<file>", "perf.data of an LBR recording (perf record -b [-g]), read natively (no perf needed; -z and pipe-mode files too)", "--perfdata", "--pd")
	fs.BoolFlag(&c.PerfdataViaPerfScript, true, "Read --perfdata by running `perf script` as llvm-profgen does (perf must be on PATH), for comparison", "--perfdata-via-perf-script")
	fs.StringValue(&c.Unsymbolized, "<file>", "Unsymbolized profile written with --skip-symbolization (ranges and branches, by context for CS): generate the profile from it instead of a trace", "--unsymbolized-profile", "--up")
	llvmBool(fs, &c.UseOffset, nil, false, "Addresses of unsymbolized profiles (--skip-symbolization, --unsymbolized-profile) are offsets from the binary's base, not virtual addresses (default true)", "--use-offset")
	fs.BoolFlag(&c.UseFirstLoadableSegment, true, "Offsets of unsymbolized profiles are from the first loadable segment, not the first executable one", "--use-first-loadable-segment-as-base")
	llvmBool(fs, &c.LoadFunctionFromSymbol, &c.LoadFunctionFromSymbolGiven, false, "Functions of pseudo-probe binaries that have no DWARF come from the symbol table (default true; LLVM 22)", "--load-function-from-symbol")
	fs.StringValue(&c.DWP, "<file>", "DWARF package of a binary built with -gsplit-dwarf (default: <binary>.dwp, else each unit's .dwo file)", "--dwp")
	fs.StringValue(&c.DebugBinary, "<file>", "Read the DWARF (functions, inline frames, lines) from this file instead of --binary: the unstripped twin of a stripped --binary, or its `objcopy --only-keep-debug` file. Addresses, code, symbols and pseudo probes still come from --binary; the default --dwp is then <file>.dwp", "--debug-binary")
	fs.StringValue(&c.LLVMSampleProfile, "<file>", "A sample profile (any format) to post-process as llvm-profgen does a generated one instead of a trace: cold profiles trimmed (--trim-cold-profile), initializers dropped, the density checked; written in --format. Not yet for flat CS profiles (nested ones are read as context-insensitive, as LLVM reads them)", "--llvm-sample-profile")
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("unexpected argument '%s'", pos[0])
	}
	rep := cli.NewReporter(tool, stderr)
	c.Stdout, c.Warn = stdout, func(msg string) { rep.Warnf("%s", msg) }
	return profgen.Run(c)
}

// llvmBool registers an LLVM boolean option: "--name" sets true,
// "--name=true|false|1|0" sets the value; given, if not nil, records that
// it was on the command line.
func llvmBool(fs *cli.FlagSet, p, given *bool, hidden bool, help, name string) {
	set := func(v bool) {
		*p = v
		if given != nil {
			*given = true
		}
	}
	fs.Add(&cli.Option{Names: []string{name}, Kind: cli.Flag, Hidden: hidden, Help: help, Set: func(string, string) error {
		set(true)
		return nil
	}})
	fs.Add(&cli.Option{Names: []string{name + "="}, Kind: cli.JoinedValue, Hidden: true, Set: func(_, v string) error {
		switch v {
		case "true", "TRUE", "True", "1":
			set(true)
		case "false", "FALSE", "False", "0":
			set(false)
		default:
			return cli.Usagef("'%s' is not true or false", v)
		}
		return nil
	}})
}

// preInlinerFlags registers the pre-inliner's options, with the defaults
// llvm-profgen gives them (hidden, as in llvm-profgen).
func preInlinerFlags(fs *cli.FlagSet, o *profgen.PreInlinerOptions) {
	for _, f := range []struct {
		p    *int
		name string
	}{
		{&o.HotCallSiteThreshold, "--sample-profile-hot-inline-threshold"},
		{&o.ColdCallSiteThreshold, "--sample-profile-cold-inline-threshold"},
		{&o.InlineGrowthLimit, "--sample-profile-inline-growth-limit"},
		{&o.InlineLimitMin, "--sample-profile-inline-limit-min"},
		{&o.InlineLimitMax, "--sample-profile-inline-limit-max"},
		{&o.MultiplierForPrevInlining, "--csspgo-preinliner-multiplier-for-previous-inlining"},
	} {
		p := f.p
		fs.Add(&cli.Option{Names: []string{f.name}, Kind: cli.Value, Hidden: true, Set: func(_, v string) error {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return cli.Usagef("'%s' is not an integer", v)
			}
			*p = int(n)
			return nil
		}})
	}
	llvmBool(fs, &o.ReplayPreInline, nil, true, "Pre-inline what the profiled binary inlined", "--csspgo-replay-preinline")
	llvmBool(fs, &o.UseContextCost, nil, true, "Pre-inliner sizes from the machine code under each context (default true)", "--use-context-cost-for-preinliner")
	llvmBool(fs, &o.SortProfiledSCC, nil, true, "Order call-graph cycles by their hottest edges (default true)", "--sort-profiled-scc-member")
}
