package profgen

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// Options are a profgen run as its command line gives it (tools/profgen
// registers its flags on these fields; the flag of each is named beside
// it), with the reporting hooks. Start from DefaultOptions: the zero
// Options is not llvm-profgen's defaults.
type Options struct {
	// The input: one of Perfscript (--perfscript), Perfdata
	// (--perfdata), Unsymbolized (--unsymbolized-profile) and
	// LLVMSampleProfile (--llvm-sample-profile).
	Perfscript, Perfdata, Unsymbolized, LLVMSampleProfile string
	// PerfdataViaPerfScript reads --perfdata through `perf script`, as
	// llvm-profgen does (--perfdata-via-perf-script), instead of natively.
	PerfdataViaPerfScript bool
	// Binary is --binary, DebugBinary --debug-binary, DWP --dwp.
	Binary, DebugBinary, DWP string
	// Output is -o ('-' is stdout); Format is --format: text, binary or
	// extbinary.
	Output, Format string
	// Release is --llvm-version: the release whose llvm-profgen to follow.
	Release llvmrelease.Release
	// PID is --pid (a process id, checked by Run); TraceBuildID is
	// --trace-build-id.
	PID, TraceBuildID string
	// DataAccessPerftrace is --data-access-perftrace; WriteVTables is
	// --extbinary-write-vtable-type-prof.
	DataAccessPerftrace string
	WriteVTables        bool
	// UseOffset is --use-offset, UseFirstLoadableSegment
	// --use-first-loadable-segment-as-base.
	UseOffset, UseFirstLoadableSegment bool
	ShowDetailedWarning                bool // --show-detailed-warning
	IgnoreStackSamples                 bool // --ignore-stack-samples
	SkipSymbolization                  bool // --skip-symbolization
	ShowMmapEvents                     bool // --show-mmap-events
	ShowDensity                        bool // --show-density
	// ShowDisassemblyOnly is --show-disassembly-only, with
	// ShowSourceLocations (--show-source-locations), ShowCanonicalName
	// (--show-canonical-fname) and DisassembleFunctions
	// (--disassemble-functions).
	ShowDisassemblyOnly, ShowSourceLocations, ShowCanonicalName bool
	DisassembleFunctions                                        []string
	ShowPseudoProbe                                             bool // --show-pseudo-probe
	UseDWARFCorrelation                                         bool // --use-dwarf-correlation
	// LoadFunctionFromSymbol is --load-function-from-symbol;
	// LoadFunctionFromSymbolGiven records that it was given.
	LoadFunctionFromSymbol, LoadFunctionFromSymbolGiven bool
	// Generate, CS and Context are the generator's, the CS generator's
	// and the unwinder's switches (Generate's ShowDensity and Warn, and
	// CS's GenerateOptions, Warn and LLVM are set by Run).
	Generate GenerateOptions
	CS       CSOptions
	Context  ContextOptions
	// MergeColdContextGiven records that --csprof-merge-cold-context was
	// given (llvm-profgen turns it off after the pre-inliner otherwise).
	MergeColdContextGiven bool

	// Stdout receives what llvm-profgen prints on its standard output
	// (--show-mmap-events, --show-density, --show-pseudo-probe,
	// --show-disassembly-only); nil discards it.
	Stdout io.Writer
	// Warn receives llvm-profgen's warnings without "warning: "; nil
	// drops them.
	Warn func(msg string)

	// The warnings of reading the DWARF, held while the binary loads
	// (loadBinary, releaseWarnings), and what filters them.
	heldWarnings []string
	holdWarnings bool
	missingDWO   int
}

// DefaultOptions returns llvm-profgen's defaults for the default LLVM
// release (llvmrelease.Default).
func DefaultOptions() Options {
	o := Options{Format: "extbinary", Release: llvmrelease.Default, Context: DefaultContextOptions, UseOffset: true}
	o.CS.PreInliner, o.CS.GenNestedProfile, o.CS.MergeColdContext, o.CS.MaxColdContextDepth = true, true, true, 1
	o.CS.InferMissingFrames, o.LoadFunctionFromSymbol = true, true
	o.Generate.ProfileDensityThreshold, o.Generate.ProfileDensityCutoffHot, o.Generate.DensityGiven = 50, 990000, true
	o.CS.PreInline = DefaultPreInlinerOptions
	return o
}

// Run checks opts and does what llvm-profgen does with them: generates
// the profile into opts.Output, writes the unsymbolized one, or prints the
// disassembly. Mistakes on the command line are *cli.UsageError.
func Run(opts Options) error {
	c := &opts
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Warn == nil {
		c.Warn = func(string) {}
	}
	switch {
	case !c.Release.HasProfgen():
		return cli.Usagef("--llvm-version %d: profgen follows llvm-profgen %s", c.Release, llvmrelease.ProfgenText())
	case c.ShowDisassemblyOnly && c.Binary != "":
		return showDisassembly(c)
	case c.LoadFunctionFromSymbolGiven && !c.Release.ProfgenLoadsFunctionsFromSymbols():
		return cli.Usagef("--load-function-from-symbol is LLVM 22's (LLVM 19 never reads functions from the symbol table): add --llvm-version 22")
	case c.Context.MaxUnsymbolizedContextDepth != -1 && !c.Release.ProfgenHas22Options():
		return cli.Usagef("--csprof-max-unsymbolized-context-depth is LLVM 22's: add --llvm-version 22")
	case c.Generate.MarkAllContextPreinlined && !c.Release.ProfgenHas22Options():
		return cli.Usagef("--mark-all-context-preinlined is LLVM 22's: add --llvm-version 22")
	case (c.DataAccessPerftrace != "" || c.WriteVTables) && !c.Release.HasVTableTypeProfiles():
		return cli.Usagef("vtable type profiles (--data-access-perftrace, --extbinary-write-vtable-type-prof) are LLVM 22's: add --llvm-version 22")
	case c.LLVMSampleProfile != "" && (c.Perfscript != "" || c.Perfdata != "" || c.Unsymbolized != ""):
		return cli.Usagef("`--llvm-sample-profile` is an input of its own: drop `--perfscript`, `--perfdata` and `--unsymbolized-profile`")
	case c.Unsymbolized != "" && (c.Perfscript != "" || c.Perfdata != ""):
		return cli.Usagef("`--perfscript`, `--perfdata` and `--unsymbolized-profile` cannot be used together.")
	case c.Perfscript != "" && c.Perfdata != "":
		return cli.Usagef("Only one of `--perfscript` and `--perfdata` can be used.")
	case c.Perfscript == "" && c.Perfdata == "" && c.Unsymbolized == "" && c.LLVMSampleProfile == "":
		return cli.Usagef("an input is required: --perfscript=<file>, --perfdata=<file>, --unsymbolized-profile=<file> or --llvm-sample-profile=<file>")
	case c.Unsymbolized != "" && c.SkipSymbolization:
		return cli.Usagef("--skip-symbolization with --unsymbolized-profile: the input is already unsymbolized (llvm-profgen writes nothing)")
	case c.Binary == "":
		return cli.Usagef("--binary is required")
	case c.Output == "":
		return cli.Usagef("--output is required")
	}
	// llvm-profgen's validateCommandLine: the input, then the binary.
	if in := c.Perfscript + c.Perfdata + c.Unsymbolized + c.LLVMSampleProfile; !fileExists(in) {
		return fmt.Errorf("Input perf file(%s) doesn't exist.", in)
	}
	return generate(c)
}

// loadBinary opens --binary (with --debug-binary and --dwp) once
// (profbinary) and loads it as llvm-profgen's ProfiledBinary::load does,
// and passes its load warnings to warn. The warnings of reading the
// DWARF are held until releaseWarnings: llvm-profgen's symbolizer gives
// them after the load warnings.
func loadBinary(c *Options, warn func(string)) (*perfscript.Binary, error) {
	c.heldWarnings, c.holdWarnings = nil, true
	pb, err := perfscript.OpenProfiled(c.Binary, profbinary.Options{DebugBinary: c.DebugBinary, DWP: c.DWP, DWARFOnly: true, Warn: func(msg string) {
		if c.holdWarnings {
			c.heldWarnings = append(c.heldWarnings, msg)
			return
		}
		c.symbolizerWarn(msg)
	}})
	if err != nil {
		return nil, err
	}
	bin, err := perfscript.NewBinary(pb)
	if err != nil {
		pb.Close()
		return nil, err
	}
	c.missingDWO = bin.MissingDWO()
	if c.UseDWARFCorrelation {
		bin.PseudoProbes = false
	}
	if bin.PseudoProbes && c.Release.ProfgenLoadsFunctionsFromSymbols() && c.LoadFunctionFromSymbol {
		// llvm-profgen-22 knows the functions of probe binaries that have
		// no DWARF from the symbol table.
		if err := bin.RecoverSymbolTableFunctions(); err != nil {
			pb.Close()
			return nil, err
		}
	}
	loadWarnings := bin.LoadWarnings
	if c.ShowDetailedWarning {
		loadWarnings = bin.LoadWarningsDetailed
	}
	for _, w := range loadWarnings() {
		warn(w)
	}
	return bin, nil
}

// generate is the run of a profile: the binary loaded, the input read,
// the profile generated and written.
func generate(c *Options) error {
	// The big arrays of a trace's read are outside the Go heap (hugemem):
	// the heap the collector paces is a few MB (goals of 4-6 MB at
	// GOGC=100, 13 collections in a probe CS run of 200,000 samples), each
	// stopping and waking the reading, parsing and unwinding goroutines.
	// At 400: ~6 % less CPU on bench/profgen's probe-cs, ~16 % on big-cs,
	// for +3 and +13 MB of peak RSS (55 and 50 MB, llvm-profgen's 100 and
	// 84).
	defer cli.SetGCPercent(400)()
	warn, stdout := c.Warn, c.Stdout
	bin, err := loadBinary(c, warn)
	if err != nil {
		return err
	}
	defer bin.Profiled().Close()
	if c.LLVMSampleProfile != "" {
		return postProcessProfile(c, warn, stdout)
	}
	releaseWarnings(c)
	sym := bin.Profiled().Symbolizer()
	buildID := bin.Profiled().BuildID()
	popts := perfscript.Options{IgnoreStackSamples: c.IgnoreStackSamples, Warn: warn, BuildID: buildID, ShowDetailedWarning: c.ShowDetailedWarning}
	c.Context.ShowDetailedWarning = c.ShowDetailedWarning
	if c.ShowMmapEvents {
		popts.MmapEvents = stdout
	}
	if c.PID != "" {
		n, err := strconv.ParseInt(c.PID, 10, 32)
		if err != nil {
			return cli.Usagef("--pid: '%s' is not a process id", c.PID)
		}
		popts.PID, popts.HasPID = int32(n), true
	}
	var unwinder *Unwinder
	var prof *perfscript.Profile
	var cs *CSCounters
	if c.Unsymbolized != "" {
		unwinder = NewUnwinder(bin, sym, c.Context)
		if prof, cs, err = readUnsymbolized(c, bin); err != nil {
			return err
		}
	} else if prof, unwinder, err = parseTrace(c, bin, sym, buildID, popts); err != nil {
		return err
	}
	if c.ShowDensity {
		c.Generate.ShowDensity = stdout
	}
	if c.DataAccessPerftrace != "" {
		if prof.CS && cs == nil {
			// llvm-profgen refuses after unwinding (and its warnings).
			if _, err := unwinder.Unwind(warn); err != nil {
				return err
			}
		}
		if c.Generate.DataAccess, err = dataAccess(c, bin, prof, popts); err != nil {
			return err
		}
	}
	if prof.CS {
		if cs == nil {
			if cs, err = unwinder.Unwind(warn); err != nil {
				return err
			}
		}
		// The unwinder dropped its state (Unwind), most of the live heap:
		// collected now, before the generator allocates, the heap does
		// not grow to twice its size at the end of the trace (the
		// collector's goal, GOGC=100) with the generator's objects on top.
		// bench/profgen's big-cs: 50 → 45 MB peak RSS; one collection of
		// what stays (the counters, the binary's DWARF), a few ms.
		runtime.GC()
		if c.SkipSymbolization {
			return atomicfile.Create(c.Output, 0o644, func(f *os.File) error {
				return cs.WriteUnsymbolized(f, offsetBase(c, bin))
			})
		}
		if err := printProbeDescs(c, bin, stdout); err != nil {
			return err
		}
		c.CS.GenerateOptions = c.Generate
		c.CS.Warn = warn
		c.CS.Release = c.Release
		if c.CS.PreInliner && !c.MergeColdContextGiven {
			// llvm-profgen turns the cold-context merger off after its
			// pre-inliner unless it was asked for.
			c.CS.MergeColdContext = false
		}
		var sp *sampleprof.Profile
		if bin.PseudoProbes {
			sp, err = GenerateCSProbeBased(bin, unwinder, cs, c.CS)
		} else {
			sp, err = GenerateCS(bin, unwinder, cs, c.CS)
		}
		if err != nil {
			return err
		}
		return write(c, sp)
	}
	if c.SkipSymbolization {
		return atomicfile.Create(c.Output, 0o644, func(f *os.File) error {
			return prof.WriteUnsymbolized(f, offsetBase(c, bin))
		})
	}
	c.Generate.Warn = warn
	if err := printProbeDescs(c, bin, stdout); err != nil {
		return err
	}
	if bin.PseudoProbes {
		sp, err := GenerateProbeBased(bin, &prof.Counter, c.Generate)
		if err != nil {
			return err
		}
		return write(c, sp)
	}
	sp, err := Generate(bin, sym, &prof.Counter, c.Generate)
	if err != nil {
		return err
	}
	return write(c, sp)
}

// releaseWarnings passes the warnings of reading the DWARF held since
// loadBinary to c.Warn, and those to come at once.
func releaseWarnings(c *Options) {
	held := c.heldWarnings
	c.heldWarnings, c.holdWarnings = nil, false
	for _, msg := range held {
		c.symbolizerWarn(msg)
	}
}

// symbolizerWarn passes on a warning of reading the DWARF. A binary
// without DWARF was reported as llvm-profgen reports it (no binary
// functions); DWARFOnly has no fallback. Split units whose .dwo
// llvm-profgen counted as not loaded (LoadWarnings) give its symbolizer
// no frames, silently.
func (c *Options) symbolizerWarn(msg string) {
	missingDWO := c.missingDWO > 0 && (strings.Contains(msg, ".dwo") || strings.Contains(msg, ".dwp") || strings.Contains(msg, "DWO id"))
	if !strings.HasSuffix(msg, "falling back to the symbol table") && !missingDWO {
		c.Warn(msg)
	}
}

// postProcessProfile is llvm-profgen's --llvm-sample-profile: the
// profile read (by its release's reader) goes through the generator's
// post-processing in the reader's map order, then is written.
func postProcessProfile(c *Options, warn func(string), stdout io.Writer) error {
	data, err := infile.ReadStream(c.LLVMSampleProfile)
	if err != nil {
		return err
	}
	p, err := sampleprof.Read(c.LLVMSampleProfile, data, sampleprof.ReadOptions{Release: c.Release})
	if err != nil {
		return err
	}
	if p.CS {
		return fmt.Errorf("%s: a context-sensitive profile: --llvm-sample-profile post-processes context-insensitive profiles only (not supported yet)", c.LLVMSampleProfile)
	}
	if c.ShowDensity {
		c.Generate.ShowDensity = stdout
	}
	c.Generate.Warn = warn
	return write(c, PostProcess(p, c.Generate))
}

// write writes the profile in the chosen format.
func write(c *Options, sp *sampleprof.Profile) error {
	var out []byte
	var err error
	switch c.Format {
	case "text":
		out = sp.AppendText(nil, sampleprof.TextWriteOptions{Release: c.Release})
	case "binary":
		out, err = sp.AppendBinary(nil)
	default:
		out, err = sp.AppendExtBinary(nil, sampleprof.BinaryOptions{Release: c.Release, VTables: c.WriteVTables})
	}
	if errors.Is(err, sampleprof.ErrUnsupported) {
		// llvm-profgen's words (it leaves an empty file; we write none).
		return fmt.Errorf("%s: Profile encoding format unsupported for writing operations", c.Output)
	}
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(c.Output, out, 0o644)
}

// dataAccess reads --data-access-perftrace as llvm-profgen does, after the
// LBR trace: only for context-insensitive profiles without pseudo probes.
func dataAccess(c *Options, bin *perfscript.Binary, prof *perfscript.Profile, popts perfscript.Options) (map[perfscript.DataAccess]uint64, error) {
	if prof.CS || bin.PseudoProbes {
		return nil, errors.New("Symbolizing vtables from data access profiles is not yet supported for context-sensitive perf traces or when pseudo-probe based mapping is enabled: add --ignore-stack-samples (and --use-dwarf-correlation for a pseudo-probe binary)")
	}
	f, err := infile.OpenStream(c.DataAccessPerftrace)
	if err != nil {
		return nil, fmt.Errorf("Failed to open perf trace file: %s: %w", c.DataAccessPerftrace, err)
	}
	defer f.Close()
	syms, err := bin.DataAccessSymbols()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if head, _ := br.Peek(8); perfdata.Sniff(head) {
		// perf.data itself rather than `perf report -D`'s dump of it.
		return perfDataAccess(c.DataAccessPerftrace, bin, syms, prof.BaseAddress, popts)
	}
	return perfscript.ParseDataAccess(c.DataAccessPerftrace, br, bin, syms, prof.BaseAddress, popts)
}

// parseTrace reads the perf script (--perfscript, or the one perf writes
// of --perfdata); hybrid samples go to the returned unwinder unless
// --ignore-stack-samples.
func parseTrace(c *Options, bin *perfscript.Binary, sym *elfsym.Binary, buildID []byte, popts perfscript.Options) (*perfscript.Profile, *Unwinder, error) {
	if c.Perfdata != "" && !c.PerfdataViaPerfScript {
		return parsePerfData(c, bin, sym, buildID, popts)
	}
	if c.Perfdata != "" {
		script, cleanup, err := perfScript(bin, c.Perfdata, popts.PID, popts.HasPID)
		if err != nil {
			return nil, nil, err
		}
		defer cleanup()
		c.Perfscript = script
	}
	// A file or a pipe (`--perfscript=<(perf script ...)`, as llvm-profgen
	// reads one); a device like /dev/zero, which llvm-profgen reads until
	// memory runs out, or a socket is refused.
	f, err := infile.OpenStream(c.Perfscript)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if err := checkBuildID(c, buildID); err != nil {
		return nil, nil, err
	}
	var unwinder *Unwinder
	if !c.IgnoreStackSamples {
		unwinder = NewUnwinder(bin, sym, c.Context)
		popts.HybridRecord, popts.DeferRepeats = unwinder.AddRecord, !shortTrace(f)
	}
	prof, err := perfscript.Parse(c.Perfscript, f, bin, popts)
	return prof, unwinder, err
}

// ShortTraceBytes is the size below which a trace file is read without
// the parser's repeat cache (perfscript.Options.DeferRepeats): the cache
// is 4 MiB of huge pages or more once touched (its keys cleared whole, its
// samples' slots taken in order), a sixth of the peak RSS of a CS profile
// from a 20 MB trace (bench/profgen's big-cs, 34,000 samples, where it
// found no repeat), while such a trace parses in a tenth of a second
// without it. The 200,000-sample traces of the benches are 250 MB. A
// variable for tests only: tools/profgen's differential tests, whose
// traces are all short, set it to 0 to keep reading through the cache and
// compare what it delivers with llvm-profgen.
var ShortTraceBytes int64 = 32 << 20

// shortTrace reports whether f is a regular file shorter than
// ShortTraceBytes (a pipe is not).
func shortTrace(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular() && st.Size() < ShortTraceBytes
}

// checkBuildID fails when --trace-build-id names a build id other than the
// binary's. Build ids in the trace itself (perf record --buildid-mmap
// prints one in each PERF_RECORD_MMAP2 line) are checked by the parser
// (perfscript.ErrBuildIDMismatch): llvm-profgen matches mappings by file
// name only and turns a trace of another build into a wrong profile;
// profgen refuses it, naming both build ids.
func checkBuildID(c *Options, binID []byte) error {
	have := hex.EncodeToString(binID)
	if c.TraceBuildID == "" {
		return nil
	}
	if want := strings.ToLower(strings.TrimSpace(c.TraceBuildID)); want != have {
		return fmt.Errorf("%s: the trace was recorded from the binary with build id %s (--trace-build-id), but --binary %s has build id %s: pass the binary that ran",
			c.Perfscript, want, c.Binary, orNone(have))
	}
	return nil
}

func orNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}

// offsetBase is what the addresses of unsymbolized profiles are offsets
// from: the preferred base (--use-offset, the default), the first
// loadable segment (--use-first-loadable-segment-as-base), or 0
// (--use-offset=false: virtual addresses).
func offsetBase(c *Options, bin *perfscript.Binary) uint64 {
	switch {
	case !c.UseOffset:
		return 0
	case c.UseFirstLoadableSegment:
		return bin.FirstLoadableAddress
	}
	return bin.PreferredBase()
}

// readUnsymbolized reads --unsymbolized-profile: the profile of a
// context-insensitive one (its counter), or the counters by context of a
// CS one.
func readUnsymbolized(c *Options, bin *perfscript.Binary) (*perfscript.Profile, *CSCounters, error) {
	f, err := infile.OpenStream(c.Unsymbolized)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	base := offsetBase(c, bin)
	u, err := perfscript.ReadUnsymbolized(c.Unsymbolized, f, base)
	if err != nil {
		return nil, nil, err
	}
	prof := &perfscript.Profile{CS: u.CS, BaseAddress: bin.PreferredBase()}
	if !u.CS {
		prof.Counter = u.Counters[0].Counter
		return prof, nil, nil
	}
	cs, err := CSCountersFromUnsymbolized(c.Unsymbolized, bin, u, base)
	return prof, cs, err
}

// fileExists is false only when path does not exist (other errors show
// when it is opened).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, iofs.ErrNotExist)
}
