// Command profgen turns a perf script of LBR samples into a sample profile
// for clang's -fprofile-sample-use, writing what llvm-profgen of the chosen
// LLVM release writes:
//
//	profgen --perfscript=TRACE --binary=BIN [--format=text|binary|extbinary] -o OUT
//
// Done: LBR traces and hybrid traces read with --ignore-stack-samples
// (the context-insensitive AutoFDO profile), --skip-symbolization (also of
// hybrid traces: the unwound CS counters), the flat CSSPGO context profile
// of hybrid traces, pre-inlined (llvm-profgen's default) or not, with
// --gen-cs-nested-profile=false. Not yet: nested CS profiles (llvm-
// profgen's default), cold-context merging without the pre-inliner,
// --perfdata, --unsymbolized-profile, pseudo probes, data-access (vtable)
// traces.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/profgen"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

const tool = "profgen"

func main() { cli.Main(tool, run) }

const summary = `Generates a sample profile (AutoFDO) from the perf script of an LBR trace
(perf script -F ip,brstack --show-mmap-events) and the profiled binary, as
llvm-profgen of the chosen release does: same flags, same output bytes.

Hybrid traces (call stacks with the LBR) give a context-sensitive (CSSPGO)
profile, or a context-insensitive one with --ignore-stack-samples. CSSPGO
profiles are pre-inlined as llvm-profgen does (--csspgo-preinliner, on by
default); the nested form llvm-profgen writes by default is not supported
yet: add --gen-cs-nested-profile=false for the flat context profile.

Examples:
  profgen --perfscript=app.script --binary=app -o app.prof
  profgen --perfscript=app.script --binary=app --format=text -o app.txt --llvm-version 22`

// config is the command line.
type config struct {
	perfscript, binary, output, format string
	pid                                string
	traceBuildID                       string
	release                            int
	ignoreStack, skipSymbolization     bool
	showMmap                           bool
	gen                                profgen.Options
	cs                                 profgen.CSOptions
	ctx                                profgen.ContextOptions
	mergeColdGiven                     bool
	unsupported                        []string
}

func run(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := config{format: "extbinary", release: llvmrelease.Default, ctx: profgen.DefaultContextOptions}
	c.cs.PreInliner, c.cs.GenNestedProfile, c.cs.MergeColdContext, c.cs.MaxColdContextDepth = true, true, true, 1
	c.cs.PreInline = profgen.DefaultPreInlinerOptions
	fs := cli.NewFlagSet(tool, "profgen [options] --perfscript=<file> --binary=<file> -o <file>")
	fs.Summary, fs.Footer = summary, "Exit status: 0 success, 1 failure, 2 usage error."
	fs.StringValue(&c.perfscript, "<file>", "Perf script of the trace (perf script -F ip,brstack --show-mmap-events)", "--perfscript", "--ps")
	fs.StringValue(&c.binary, "<file>", "The profiled executable", "--binary")
	fs.StringValue(&c.output, "<file>", "Output profile (a regular file is replaced atomically; '-' is stdout)", "--output", "-o")
	fs.Add(&cli.Option{Names: []string{"--format"}, Kind: cli.Value, MetaVar: "<text|binary|extbinary>",
		Help: "Output encoding (default extbinary)", Set: func(_, v string) error {
			switch v {
			case "text", "binary", "extbinary":
				c.format = v
				return nil
			case "gcc":
				return cli.Usagef("--format=gcc: not supported yet")
			}
			return cli.Usagef("--format: unknown value '%s' (text, binary or extbinary)", v)
		}})
	fs.IntValue(&c.release, "<N>", fmt.Sprintf("LLVM release whose llvm-profgen to follow: 19 or 22 (default %d)", llvmrelease.Default), "--llvm-version")
	fs.StringValue(&c.pid, "<pid>", "Only the mmap events of this process", "--pid")
	fs.StringValue(&c.traceBuildID, "<hex>", "Build id of the binary the trace was recorded from (perf buildid-list); fail if --binary's differs. Traces recorded with perf record --buildid-mmap are checked without it", "--trace-build-id")
	fs.BoolFlag(&c.ignoreStack, true, "Read hybrid samples without their call stacks (context-insensitive profile)", "--ignore-stack-samples")
	fs.BoolFlag(&c.skipSymbolization, true, "Write the unsymbolized profile (ranges and branches) instead", "--skip-symbolization")
	fs.BoolFlag(&c.showMmap, true, "Print the binary's load events", "--show-mmap-events")
	fs.BoolFlag(&c.gen.UpdateTotalSamples, true, "Recompute totals as the sum of body samples and inlinee totals", "--update-total-samples")
	fs.BoolFlag(&c.gen.TrimColdProfile, true, "Drop profiles whose total is below the cold threshold", "--trim-cold-profile")
	llvmBool(fs, &c.cs.PreInliner, nil, true, "Run the CSSPGO pre-inliner: keep the contexts it would inline, merge the others into their base profiles (default true)", "--csspgo-preinliner")
	preInlinerFlags(fs, &c.cs.PreInline)
	llvmBool(fs, &c.cs.GenNestedProfile, nil, true, "Write CS profiles nested (default true; not supported yet: use --gen-cs-nested-profile=false)", "--gen-cs-nested-profile")
	llvmBool(fs, &c.cs.MergeColdContext, &c.mergeColdGiven, false, "Merge cold contexts into their base profile (default true, off after the pre-inliner; not supported yet: use --csprof-merge-cold-context=false)", "--csprof-merge-cold-context")
	fs.IntValue(&c.cs.MaxColdContextDepth, "<N>", "Frames kept when merging cold contexts (default 1)", "--csprof-max-cold-context-depth")
	fs.IntValue(&c.ctx.MaxContextDepth, "<N>", "Keep the last N frames of each context (default -1: all)", "--csprof-max-context-depth")
	fs.Add(&cli.Option{Names: []string{"--compress-recursion"}, Kind: cli.Value, Hidden: true, Set: func(_, v string) error {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return cli.Usagef("'%s' is not an integer", v)
		}
		c.ctx.MaxCompressionSize = int(n)
		return nil
	}})
	fs.Add(&cli.Option{Names: []string{"--fill-zero-for-all-funcs"}, Kind: cli.Flag, Hidden: true,
		Set: func(string, string) error { c.gen.FillZeroForAllFuncs = true; return nil }})
	fs.Add(&cli.Option{Names: []string{"--mark-all-context-preinlined"}, Kind: cli.Flag, Hidden: true,
		Set: func(n, _ string) error { c.unsupported = append(c.unsupported, n); return nil }})
	for _, name := range []string{"--perfdata", "--pd", "--unsymbolized-profile", "--up", "--llvm-sample-profile", "--data-access-perftrace", "--debug-binary", "--dwp"} {
		fs.Add(&cli.Option{Names: []string{name}, Kind: cli.Value, Hidden: true, Set: func(n, _ string) error {
			c.unsupported = append(c.unsupported, n)
			return nil
		}})
	}
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	switch {
	case len(pos) > 0:
		return cli.Usagef("unexpected argument '%s'", pos[0])
	case len(c.unsupported) > 0:
		return cli.Usagef("%s: not supported yet", c.unsupported[0])
	case c.release != 19 && c.release != 22:
		return cli.Usagef("--llvm-version %d: profgen follows llvm-profgen 19 or 22", c.release)
	case c.perfscript == "":
		return cli.Usagef("an input is required: --perfscript=<file>")
	case c.binary == "":
		return cli.Usagef("--binary is required")
	case c.output == "":
		return cli.Usagef("--output is required")
	}
	rep := cli.NewReporter(tool, stderr)
	return generate(&c, stdout, rep)
}

func generate(c *config, stdout io.Writer, rep *cli.Reporter) error {
	warn := func(msg string) { rep.Warnf("%s", msg) }
	bin, err := perfscript.OpenBinary(c.binary)
	if err != nil {
		return err
	}
	if bin.InvalidInstructions > 0 {
		warn(fmt.Sprintf("Found %d invalid instructions", bin.InvalidInstructions))
	}
	popts := perfscript.Options{IgnoreStackSamples: c.ignoreStack, Warn: warn}
	if c.showMmap {
		popts.MmapEvents = stdout
	}
	if c.pid != "" {
		n, err := strconv.ParseInt(c.pid, 10, 32)
		if err != nil {
			return cli.Usagef("--pid: '%s' is not a process id", c.pid)
		}
		popts.PID, popts.HasPID = int32(n), true
	}
	f, err := os.Open(c.perfscript)
	if err != nil {
		return err
	}
	defer f.Close()
	sym, err := elfsym.Open(c.binary, &elfsym.Options{DWARFOnly: true, Warn: warn})
	if err != nil {
		return err
	}
	defer sym.Close()
	if err := checkBuildID(c, sym.BuildID()); err != nil {
		return err
	}
	var unwinder *profgen.Unwinder
	if !c.ignoreStack {
		unwinder = profgen.NewUnwinder(bin, sym, c.ctx)
		popts.HybridSample = unwinder.Add
	}
	prof, err := perfscript.Parse(c.perfscript, f, bin, popts)
	if err != nil {
		return err
	}
	if prof.CS {
		cs, err := unwinder.Unwind(warn)
		if err != nil {
			return err
		}
		if c.skipSymbolization {
			return atomicfile.Create(c.output, 0o644, func(f *os.File) error {
				return cs.WriteUnsymbolized(f, bin.PreferredBase())
			})
		}
		c.cs.Options = c.gen
		c.cs.Warn = warn
		if c.cs.PreInliner && !c.mergeColdGiven {
			// llvm-profgen turns the cold-context merger off after its
			// pre-inliner unless it was asked for.
			c.cs.MergeColdContext = false
		}
		sp, err := profgen.GenerateCS(bin, unwinder, cs, c.cs)
		if err != nil {
			return err
		}
		return write(c, sp)
	}
	if c.skipSymbolization {
		return atomicfile.Create(c.output, 0o644, func(f *os.File) error {
			return prof.WriteUnsymbolized(f, bin.PreferredBase())
		})
	}
	c.gen.Warn = warn
	sp, err := profgen.Generate(bin, sym, &prof.Counter, c.gen)
	if err != nil {
		return err
	}
	return write(c, sp)
}

// write writes the profile in the chosen format.
func write(c *config, sp *sampleprof.Profile) error {
	var out []byte
	var err error
	switch c.format {
	case "text":
		out = sp.AppendText(nil, sampleprof.TextWriteOptions{LLVM: c.release})
	case "binary":
		out, err = sp.AppendBinary(nil)
	default:
		out, err = sp.AppendExtBinary(nil, sampleprof.BinaryOptions{LLVM: c.release})
	}
	if errors.Is(err, sampleprof.ErrUnsupported) {
		// llvm-profgen's words (it leaves an empty file; we write none).
		return fmt.Errorf("%s: Profile encoding format unsupported for writing operations", c.output)
	}
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(c.output, out, 0o644)
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
