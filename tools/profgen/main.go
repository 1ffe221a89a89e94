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
// --show-pseudo-probe with --show-disassembly-only; --perfdata (perf
// script run as llvm-profgen runs it); vtable type profiles from
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
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/infile"
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

// config is the command line.
type config struct {
	perfscript, perfdata, binary, output, format string
	unsymbolized, dwp, debugBinary               string
	useOffset, useFirstLoadable                  bool
	detailedWarning, showSourceLocations         bool
	dataAccess                                   string
	writeVTables                                 bool
	pid                                          string
	traceBuildID                                 string
	release                                      int
	ignoreStack, skipSymbolization               bool
	showMmap, showDensity, showCanonicalName     bool
	disasmFuncs                                  []string
	loadFuncFromSymbol, loadFuncFromSymbolGiven  bool
	showDisassembly, showPseudoProbe             bool
	useDWARFCorrelation                          bool
	gen                                          profgen.GenerateOptions
	cs                                           profgen.CSOptions
	ctx                                          profgen.ContextOptions
	mergeColdGiven                               bool
	llvmProfile                                  string
}

func run(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	c := config{format: "extbinary", release: llvmrelease.Default, ctx: profgen.DefaultContextOptions, useOffset: true}
	c.cs.PreInliner, c.cs.GenNestedProfile, c.cs.MergeColdContext, c.cs.MaxColdContextDepth = true, true, true, 1
	c.cs.InferMissingFrames, c.loadFuncFromSymbol = true, true
	c.gen.ProfileDensityThreshold, c.gen.ProfileDensityCutoffHot, c.gen.DensityGiven = 50, 990000, true
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
	fs.BoolFlag(&c.detailedWarning, true, "Warn about each item a warning's summary counts: each invalid range, truncated stack, truncated context, function without an entry", "--show-detailed-warning")
	fs.BoolFlag(&c.showMmap, true, "Print the binary's load events", "--show-mmap-events")
	fs.BoolFlag(&c.showDisassembly, true, "Print the disassembled code and stop (no input or output needed)", "--show-disassembly-only")
	fs.BoolFlag(&c.showSourceLocations, true, "With --show-disassembly-only, print each instruction's inline frames (innermost first, line offsets; probe indexes with --show-pseudo-probe)", "--show-source-locations")
	fs.BoolFlag(&c.showCanonicalName, true, "With --show-disassembly-only, print function names without their .llvm. and .part. suffixes", "--show-canonical-fname")
	fs.Add(&cli.Option{Names: []string{"--disassemble-functions"}, Kind: cli.Value, MetaVar: "<name,...>",
		Help: "With --show-disassembly-only, print only these functions (symbol names, canonical with --show-canonical-fname; the option adds up)", Set: func(_, v string) error {
			c.disasmFuncs = append(c.disasmFuncs, strings.Split(v, ",")...)
			return nil
		}})
	fs.BoolFlag(&c.showPseudoProbe, true, "Print the pseudo-probe descriptors, and with --show-disassembly-only each instruction's probes", "--show-pseudo-probe")
	fs.BoolFlag(&c.useDWARFCorrelation, true, "Correlate with DWARF lines even when the binary has pseudo probes", "--use-dwarf-correlation")
	fs.BoolFlag(&c.gen.UpdateTotalSamples, true, "Recompute totals as the sum of body samples and inlinee totals", "--update-total-samples")
	fs.BoolFlag(&c.gen.TrimColdProfile, true, "Drop profiles whose total is below the cold threshold", "--trim-cold-profile")
	llvmBool(fs, &c.cs.PreInliner, nil, true, "Run the CSSPGO pre-inliner: keep the contexts it would inline, merge the others into their base profiles (default true)", "--csspgo-preinliner")
	preInlinerFlags(fs, &c.cs.PreInline)
	llvmBool(fs, &c.cs.InferMissingFrames, nil, false, "Infer the call frames that tail calls leave out of probe-based contexts (default true)", "--infer-missing-frames")
	fs.Add(&cli.Option{Names: []string{"--max-search-depth"}, Kind: cli.Value, MetaVar: "<N>",
		Help: "Deepest search for the unique tail-call path that --infer-missing-frames fills in (default 4294967294)", Set: func(_, v string) error {
			n, err := strconv.ParseUint(v, 0, 32)
			if err != nil {
				return cli.Usagef("--max-search-depth: '%s' is not a number from 0 to 4294967295", v)
			}
			d := uint32(n)
			c.cs.MaxSearchDepth = &d
			return nil
		}})
	llvmBool(fs, &c.cs.GenNestedProfile, nil, true, "Write CS profiles nested: each context as an inlinee of its caller's profile (default true)", "--gen-cs-nested-profile")
	llvmBool(fs, &c.cs.MergeColdContext, &c.mergeColdGiven, false, "Merge contexts below the hot threshold into the profile of their last --csprof-max-cold-context-depth frames (default true, off after the pre-inliner unless given)", "--csprof-merge-cold-context")
	fs.IntValue(&c.cs.MaxColdContextDepth, "<N>", "Frames kept when merging cold contexts (default 1)", "--csprof-max-cold-context-depth")
	fs.IntValue(&c.ctx.MaxContextDepth, "<N>", "Keep the last N frames of each context (default -1: all)", "--csprof-max-context-depth")
	fs.IntValue(&c.ctx.MaxUnsymbolizedContextDepth, "<N>", "Keep the last N call addresses of each context of a pseudo-probe binary, which are unsymbolized when unwound (default -1: all; with --csprof-max-context-depth the smaller applies; no effect on DWARF contexts)", "--csprof-max-unsymbolized-context-depth")
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
	fs.Add(&cli.Option{Names: []string{"--mark-all-context-preinlined"}, Kind: cli.Flag,
		Help: "Mark every profile and inlinee ContextShouldBeInlined, the profile pre-inlined (LLVM 22)",
		Set:  func(string, string) error { c.gen.MarkAllContextPreinlined = true; return nil }})
	fs.BoolFlag(&c.showDensity, true, "Print the density of the hot functions (on stdout): the least density among the functions that hold --profile-density-cutoff-hot of the samples", "--show-density")
	fs.Add(&cli.Option{Names: []string{"--profile-density-threshold"}, Kind: cli.Value, MetaVar: "<number>",
		Help: "Suggest more samples when the hot functions' density is below this (default 50)", Set: func(_, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return cli.Usagef("--profile-density-threshold: '%s' is not a number", v)
			}
			c.gen.ProfileDensityThreshold = f
			return nil
		}})
	fs.IntValue(&c.gen.ProfileDensityCutoffHot, "<N>", "Share of the samples, in millionths, whose functions' density is computed (default 990000: 99%)", "--profile-density-cutoff-hot")
	fs.StringValue(&c.dataAccess, "<file>", "`perf report -D` dump of a load-sampling event (MEM_INST_RETIRED.ALL_LOADS with data addresses): vtable type counts for the loads of _ZTV symbols (LLVM 22; text output, or extbinary with --extbinary-write-vtable-type-prof)", "--data-access-perftrace")
	llvmBool(fs, &c.writeVTables, nil, true, "Write vtable type counts into extbinary profiles (LLVM 22)", "--extbinary-write-vtable-type-prof")
	fs.StringValue(&c.perfdata, "<file>", "perf.data of an LBR recording (perf record -b [-g]): runs `perf script` as llvm-profgen does (perf must be on PATH)", "--perfdata", "--pd")
	fs.StringValue(&c.unsymbolized, "<file>", "Unsymbolized profile written with --skip-symbolization (ranges and branches, by context for CS): generate the profile from it instead of a trace", "--unsymbolized-profile", "--up")
	llvmBool(fs, &c.useOffset, nil, false, "Addresses of unsymbolized profiles (--skip-symbolization, --unsymbolized-profile) are offsets from the binary's base, not virtual addresses (default true)", "--use-offset")
	fs.BoolFlag(&c.useFirstLoadable, true, "Offsets of unsymbolized profiles are from the first loadable segment, not the first executable one", "--use-first-loadable-segment-as-base")
	llvmBool(fs, &c.loadFuncFromSymbol, &c.loadFuncFromSymbolGiven, false, "Functions of pseudo-probe binaries that have no DWARF come from the symbol table (default true; LLVM 22)", "--load-function-from-symbol")
	fs.StringValue(&c.dwp, "<file>", "DWARF package of a binary built with -gsplit-dwarf (default: <binary>.dwp, else each unit's .dwo file)", "--dwp")
	fs.StringValue(&c.debugBinary, "<file>", "Read the DWARF (functions, inline frames, lines) from this file instead of --binary: the unstripped twin of a stripped --binary, or its `objcopy --only-keep-debug` file. Addresses, code, symbols and pseudo probes still come from --binary; the default --dwp is then <file>.dwp", "--debug-binary")
	fs.StringValue(&c.llvmProfile, "<file>", "A sample profile (any format) to post-process as llvm-profgen does a generated one instead of a trace: cold profiles trimmed (--trim-cold-profile), initializers dropped, the density checked; written in --format. Not yet for flat CS profiles (nested ones are read as context-insensitive, as LLVM reads them)", "--llvm-sample-profile")
	pos, help, err := fs.ParseOrHelp(args, stdout)
	if err != nil || help {
		return err
	}
	switch {
	case len(pos) > 0:
		return cli.Usagef("unexpected argument '%s'", pos[0])
	case c.release != 19 && c.release != 22:
		return cli.Usagef("--llvm-version %d: profgen follows llvm-profgen 19 or 22", c.release)
	case c.showDisassembly && c.binary != "":
		return showDisassembly(&c, stdout, cli.NewReporter(tool, stderr))
	case c.loadFuncFromSymbolGiven && c.release < 22:
		return cli.Usagef("--load-function-from-symbol is LLVM 22's (LLVM 19 never reads functions from the symbol table): add --llvm-version 22")
	case c.ctx.MaxUnsymbolizedContextDepth != -1 && c.release < 22:
		return cli.Usagef("--csprof-max-unsymbolized-context-depth is LLVM 22's: add --llvm-version 22")
	case c.gen.MarkAllContextPreinlined && c.release < 22:
		return cli.Usagef("--mark-all-context-preinlined is LLVM 22's: add --llvm-version 22")
	case (c.dataAccess != "" || c.writeVTables) && c.release < 22:
		return cli.Usagef("vtable type profiles (--data-access-perftrace, --extbinary-write-vtable-type-prof) are LLVM 22's: add --llvm-version 22")
	case c.llvmProfile != "" && (c.perfscript != "" || c.perfdata != "" || c.unsymbolized != ""):
		return cli.Usagef("`--llvm-sample-profile` is an input of its own: drop `--perfscript`, `--perfdata` and `--unsymbolized-profile`")
	case c.unsymbolized != "" && (c.perfscript != "" || c.perfdata != ""):
		return cli.Usagef("`--perfscript`, `--perfdata` and `--unsymbolized-profile` cannot be used together.")
	case c.perfscript != "" && c.perfdata != "":
		return cli.Usagef("Only one of `--perfscript` and `--perfdata` can be used.")
	case c.perfscript == "" && c.perfdata == "" && c.unsymbolized == "" && c.llvmProfile == "":
		return cli.Usagef("an input is required: --perfscript=<file>, --perfdata=<file>, --unsymbolized-profile=<file> or --llvm-sample-profile=<file>")
	case c.unsymbolized != "" && c.skipSymbolization:
		return cli.Usagef("--skip-symbolization with --unsymbolized-profile: the input is already unsymbolized (llvm-profgen writes nothing)")
	case c.binary == "":
		return cli.Usagef("--binary is required")
	case c.output == "":
		return cli.Usagef("--output is required")
	}
	// llvm-profgen's validateCommandLine: the input, then the binary.
	if in := c.perfscript + c.perfdata + c.unsymbolized + c.llvmProfile; !fileExists(in) {
		return fmt.Errorf("Input perf file(%s) doesn't exist.", in)
	}
	rep := cli.NewReporter(tool, stderr)
	return generate(&c, stdout, rep)
}

// loadBinary opens --binary (with --debug-binary and --dwp) as
// llvm-profgen's ProfiledBinary::load does, and passes its load warnings
// to warn.
func loadBinary(c *config, warn func(string)) (*perfscript.Binary, error) {
	bin, err := perfscript.OpenBinaryDebug(c.binary, c.debugBinary, c.dwp)
	if err != nil {
		return nil, err
	}
	if c.useDWARFCorrelation {
		bin.PseudoProbes = false
	}
	if bin.PseudoProbes && c.release >= 22 && c.loadFuncFromSymbol {
		// llvm-profgen-22 knows the functions of probe binaries that have
		// no DWARF from the symbol table.
		if err := bin.RecoverSymbolTableFunctions(c.binary); err != nil {
			return nil, err
		}
	}
	loadWarnings := bin.LoadWarnings
	if c.detailedWarning {
		loadWarnings = bin.LoadWarningsDetailed
	}
	for _, w := range loadWarnings() {
		warn(w)
	}
	return bin, nil
}

func generate(c *config, stdout io.Writer, rep *cli.Reporter) error {
	warn := func(msg string) { rep.Warnf("%s", msg) }
	bin, err := loadBinary(c, warn)
	if err != nil {
		return err
	}
	if c.llvmProfile != "" {
		return postProcessProfile(c, warn, stdout)
	}
	sym, err := elfsym.Open(symbolizerPath(c), &elfsym.Options{DWARFOnly: true, DWPFile: c.dwp, Warn: func(msg string) {
		// A binary without DWARF was reported above as llvm-profgen
		// reports it (no binary functions); DWARFOnly has no fallback.
		// Split units whose .dwo llvm-profgen counted as not loaded
		// (LoadWarnings) give its symbolizer no frames, silently.
		missingDWO := bin.MissingDWO() > 0 && (strings.Contains(msg, ".dwo") || strings.Contains(msg, ".dwp") || strings.Contains(msg, "DWO id"))
		if !strings.HasSuffix(msg, "falling back to the symbol table") && !missingDWO {
			warn(msg)
		}
	}})
	if err != nil {
		return err
	}
	defer sym.Close()
	buildID := sym.BuildID()
	if c.debugBinary != "" {
		if buildID, err = elfsym.ReadBuildID(c.binary); err != nil {
			return err
		}
	}
	popts := perfscript.Options{IgnoreStackSamples: c.ignoreStack, Warn: warn, BuildID: buildID, ShowDetailedWarning: c.detailedWarning}
	c.ctx.ShowDetailedWarning = c.detailedWarning
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
	var unwinder *profgen.Unwinder
	var prof *perfscript.Profile
	var cs *profgen.CSCounters
	if c.unsymbolized != "" {
		unwinder = profgen.NewUnwinder(bin, sym, c.ctx)
		if prof, cs, err = readUnsymbolized(c, bin); err != nil {
			return err
		}
	} else if prof, unwinder, err = parseTrace(c, bin, sym, buildID, popts); err != nil {
		return err
	}
	if c.showDensity {
		c.gen.ShowDensity = stdout
	}
	if c.dataAccess != "" {
		if prof.CS && cs == nil {
			// llvm-profgen refuses after unwinding (and its warnings).
			if _, err := unwinder.Unwind(warn); err != nil {
				return err
			}
		}
		if c.gen.DataAccess, err = dataAccess(c, bin, prof, popts); err != nil {
			return err
		}
	}
	if prof.CS {
		if cs == nil {
			if cs, err = unwinder.Unwind(warn); err != nil {
				return err
			}
		}
		if c.skipSymbolization {
			return atomicfile.Create(c.output, 0o644, func(f *os.File) error {
				return cs.WriteUnsymbolized(f, offsetBase(c, bin))
			})
		}
		if err := printProbeDescs(c, bin, stdout); err != nil {
			return err
		}
		c.cs.GenerateOptions = c.gen
		c.cs.Warn = warn
		c.cs.LLVM = c.release
		if c.cs.PreInliner && !c.mergeColdGiven {
			// llvm-profgen turns the cold-context merger off after its
			// pre-inliner unless it was asked for.
			c.cs.MergeColdContext = false
		}
		var sp *sampleprof.Profile
		if bin.PseudoProbes {
			ef, err := elf.Open(c.binary)
			if err != nil {
				return err
			}
			defer ef.Close()
			sp, err = profgen.GenerateCSProbeBased(bin, ef, c.binary, unwinder, cs, c.cs)
		} else {
			sp, err = profgen.GenerateCS(bin, unwinder, cs, c.cs)
		}
		if err != nil {
			return err
		}
		return write(c, sp)
	}
	if c.skipSymbolization {
		return atomicfile.Create(c.output, 0o644, func(f *os.File) error {
			return prof.WriteUnsymbolized(f, offsetBase(c, bin))
		})
	}
	c.gen.Warn = warn
	if err := printProbeDescs(c, bin, stdout); err != nil {
		return err
	}
	if bin.PseudoProbes {
		ef, err := elf.Open(c.binary)
		if err != nil {
			return err
		}
		defer ef.Close()
		sp, err := profgen.GenerateProbeBased(bin, ef, c.binary, &prof.Counter, c.gen)
		if err != nil {
			return err
		}
		return write(c, sp)
	}
	sp, err := profgen.Generate(bin, sym, &prof.Counter, c.gen)
	if err != nil {
		return err
	}
	return write(c, sp)
}

// symbolizerPath is the file whose DWARF llvm-profgen's symbolizer reads:
// --debug-binary if given, else --binary.
func symbolizerPath(c *config) string {
	if c.debugBinary != "" {
		return c.debugBinary
	}
	return c.binary
}

// postProcessProfile is llvm-profgen's --llvm-sample-profile: the
// profile read (by its release's reader) goes through the generator's
// post-processing in the reader's map order, then is written.
func postProcessProfile(c *config, warn func(string), stdout io.Writer) error {
	data, err := infile.ReadStream(c.llvmProfile)
	if err != nil {
		return err
	}
	p, err := sampleprof.Read(c.llvmProfile, data, sampleprof.ReadOptions{LLVM: c.release})
	if err != nil {
		return err
	}
	if p.CS {
		return fmt.Errorf("%s: a context-sensitive profile: --llvm-sample-profile post-processes context-insensitive profiles only (not supported yet)", c.llvmProfile)
	}
	if c.showDensity {
		c.gen.ShowDensity = stdout
	}
	c.gen.Warn = warn
	return write(c, profgen.PostProcess(p, c.gen))
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
		out, err = sp.AppendExtBinary(nil, sampleprof.BinaryOptions{LLVM: c.release, VTables: c.writeVTables})
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

// dataAccess reads --data-access-perftrace as llvm-profgen does, after the
// LBR trace: only for context-insensitive profiles without pseudo probes.
func dataAccess(c *config, bin *perfscript.Binary, prof *perfscript.Profile, popts perfscript.Options) (map[perfscript.DataAccess]uint64, error) {
	if prof.CS || bin.PseudoProbes {
		return nil, errors.New("Symbolizing vtables from data access profiles is not yet supported for context-sensitive perf traces or when pseudo-probe based mapping is enabled: add --ignore-stack-samples (and --use-dwarf-correlation for a pseudo-probe binary)")
	}
	f, err := infile.OpenStream(c.dataAccess)
	if err != nil {
		return nil, fmt.Errorf("Failed to open perf trace file: %s: %w", c.dataAccess, err)
	}
	defer f.Close()
	syms, err := perfscript.OpenDataAccessSymbols(c.binary)
	if err != nil {
		return nil, err
	}
	return perfscript.ParseDataAccess(c.dataAccess, f, bin, syms, prof.BaseAddress, popts)
}

// parseTrace reads the perf script (--perfscript, or the one perf writes
// of --perfdata); hybrid samples go to the returned unwinder unless
// --ignore-stack-samples.
func parseTrace(c *config, bin *perfscript.Binary, sym *elfsym.Binary, buildID []byte, popts perfscript.Options) (*perfscript.Profile, *profgen.Unwinder, error) {
	if c.perfdata != "" {
		script, cleanup, err := perfScript(bin, c.perfdata, popts.PID, popts.HasPID)
		if err != nil {
			return nil, nil, err
		}
		defer cleanup()
		c.perfscript = script
	}
	// A file or a pipe (`--perfscript=<(perf script ...)`, as llvm-profgen
	// reads one); a device like /dev/zero, which llvm-profgen reads until
	// memory runs out, or a socket is refused.
	f, err := infile.OpenStream(c.perfscript)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := checkBuildID(c, buildID); err != nil {
		return nil, nil, err
	}
	var unwinder *profgen.Unwinder
	if !c.ignoreStack {
		unwinder = profgen.NewUnwinder(bin, sym, c.ctx)
		popts.HybridRecord = unwinder.AddRecord
	}
	prof, err := perfscript.Parse(c.perfscript, f, bin, popts)
	return prof, unwinder, err
}
