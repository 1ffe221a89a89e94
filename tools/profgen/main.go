// Command profgen turns a perf script of LBR samples into a sample profile
// for clang's -fprofile-sample-use, writing what llvm-profgen of the chosen
// LLVM release writes:
//
//	profgen --perfscript=TRACE --binary=BIN [--format=text|binary|extbinary] -o OUT
//
// Done: LBR traces and hybrid traces read with --ignore-stack-samples
// (the context-insensitive AutoFDO profile), --skip-symbolization. Not yet:
// context-sensitive (CSSPGO) profiles from hybrid traces, --perfdata,
// --unsymbolized-profile, pseudo probes, data-access (vtable) traces.
package main

import (
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

Hybrid traces (call stacks with the LBR) are read context-insensitively with
--ignore-stack-samples; context-sensitive (CSSPGO) generation is not supported
yet.

Examples:
  profgen --perfscript=app.script --binary=app -o app.prof
  profgen --perfscript=app.script --binary=app --format=text -o app.txt --llvm-version 22`

// config is the command line.
type config struct {
	perfscript, binary, output, format string
	pid                                string
	release                            int
	ignoreStack, skipSymbolization     bool
	showMmap                           bool
	gen                                profgen.Options
	unsupported                        []string
}

func run(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := config{format: "extbinary", release: llvmrelease.Default}
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
	fs.BoolFlag(&c.ignoreStack, true, "Read hybrid samples without their call stacks (context-insensitive profile)", "--ignore-stack-samples")
	fs.BoolFlag(&c.skipSymbolization, true, "Write the unsymbolized profile (ranges and branches) instead", "--skip-symbolization")
	fs.BoolFlag(&c.showMmap, true, "Print the binary's load events", "--show-mmap-events")
	fs.BoolFlag(&c.gen.UpdateTotalSamples, true, "Recompute totals as the sum of body samples and inlinee totals", "--update-total-samples")
	fs.BoolFlag(&c.gen.TrimColdProfile, true, "Drop profiles whose total is below the cold threshold", "--trim-cold-profile")
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
	var unwinder *profgen.Unwinder
	if !c.ignoreStack {
		unwinder = profgen.NewUnwinder(bin, sym, profgen.DefaultContextOptions)
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
		return fmt.Errorf("%s: context-sensitive (CSSPGO) profile generation from hybrid samples is not supported yet; use --skip-symbolization for the unwound counters or --ignore-stack-samples for a context-insensitive profile", c.perfscript)
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
	var out []byte
	switch c.format {
	case "text":
		out = sp.AppendText(nil, sampleprof.TextWriteOptions{LLVM: c.release})
	case "binary":
		out, err = sp.AppendBinary(nil)
	default:
		out, err = sp.AppendExtBinary(nil, sampleprof.BinaryOptions{LLVM: c.release})
	}
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(c.output, out, 0o644)
}
