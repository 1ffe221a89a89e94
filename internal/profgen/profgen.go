// Package profgen turns the aggregated counters of a perf trace
// (internal/perfscript) into a sample profile (internal/sampleprof) the way
// llvm-profgen does.
//
// Done: the context-insensitive line-number profile (AutoFDO) of
// ProfileGenerator.cpp for LBR traces and hybrid traces read with
// --ignore-stack-samples: zero-filled disjoint ranges, count × instruction
// size added to the totals of every frame of each instruction's inline
// stack, the body record of the leaf as the maximum of count × duplication
// factor, call targets and head samples from branches to function entries,
// updateCallsiteSamples on top-level profiles, --update-total-samples,
// --trim-cold-profile, --fill-zero-for-all-funcs, the
// __cxx_global_var_init/__tls_init filter and the profile-density warning. LLVM 19 and 22 generate the same
// non-CS profile with the same defaults.
//
// Context-sensitive (CSSPGO, DWARF-based) generation (unwind.go, csgen.go,
// preinline.go): the virtual unwinder of hybrid samples with its warnings
// and the unsymbolized CS counters of --skip-symbolization, identical to
// LLVM 19 and 22; CSProfileGenerator's flat context profile (body,
// call-target, head and inferred call-site samples per context,
// ContextWasInlined) and CSPreInliner (its top-down order over
// ProfiledCallGraph, the machine-code size of each inline context, the
// thresholds from the context-less summary, the contexts it keeps marked
// ContextShouldBeInlined and the others promoted and merged into their
// base profiles as SampleContextTracker does), and postProcessProfiles'
// cold-context trimming and merging, nested conversion and
// --mark-all-context-preinlined (LLVM 22) through internal/sampleprof's
// conversions on LLVM's profile map: text and extbinary identical to LLVM
// 19 and 22 with their defaults and with the switches flipped.
//
// Pseudo-probe binaries (probegen.go, csprobe.go, missingframes.go,
// probeunwind.go, with internal/pseudoprobe): the non-CS probe-based
// profile (generateProbeBasedProfile) and the CS one (call-address
// contexts, MissingFrameInferrer, probe inline contexts, checksums, the
// pre-inliner's sizes per probe context), identical to LLVM 19 and 22.
//
// Vtable type profiles (vtable.go, LLVM 22's
// populateTypeSamplesForAllFunctions): the loads of GenerateOptions.DataAccess
// become type counts at each load's location in the leaf profile of its
// inline stack, identical to llvm-profgen-22 on traces of real runs.
//
// Run (run.go) is llvm-profgen's driver, what tools/profgen calls with
// its parsed flags: the checks of the command line, the binary loaded,
// the input read (perf script, perf.data through perf, an unsymbolized
// profile or a sample profile), the profile generated and written, or
// the disassembly printed (rundisasm.go).
package profgen

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// GenerateOptions are llvm-profgen's switches of non-CS generation.
type GenerateOptions struct {
	// UpdateTotalSamples recomputes every total as the sum of its body
	// samples and inlinee totals (--update-total-samples).
	UpdateTotalSamples bool
	// TrimColdProfile drops top-level profiles whose total is below the
	// summary's cold threshold (--trim-cold-profile).
	TrimColdProfile bool
	// FillZeroForAllFuncs zero-fills every function's ranges, not only
	// those of sampled functions (--fill-zero-for-all-funcs).
	FillZeroForAllFuncs bool
	// ProfileDensityThreshold (default 50) and ProfileDensityCutoffHot
	// (default 990000) are the density warning's parameters
	// (--profile-density-threshold, --profile-density-cutoff-hot); a zero
	// stands for the default unless DensityGiven.
	ProfileDensityThreshold float64
	ProfileDensityCutoffHot int
	DensityGiven            bool
	// ShowDensity, if not nil, receives the hot functions' density line
	// (--show-density, printed on stdout by llvm-profgen).
	ShowDensity io.Writer
	// Warn receives llvm-profgen's warnings without "warning: ".
	Warn func(msg string)
	// DataAccess holds the vtable loads of a data-access trace
	// (perfscript.ParseDataAccess, --data-access-perftrace): they become
	// vtable type counts (LLVM 22).
	DataAccess map[perfscript.DataAccess]uint64
	// MarkAllContextPreinlined marks every profile ContextShouldBeInlined
	// and the profile pre-inlined (--mark-all-context-preinlined, LLVM 22).
	MarkAllContextPreinlined bool
}

// setDefaults fills in the density warning's defaults.
func (o *GenerateOptions) setDefaults() {
	if o.DensityGiven {
		return
	}
	if o.ProfileDensityThreshold == 0 {
		o.ProfileDensityThreshold = 50
	}
	if o.ProfileDensityCutoffHot == 0 {
		o.ProfileDensityCutoffHot = 990000
	}
}

// Symbolizer returns an address's inline frames, innermost first, with
// elfsym.ErrUnknownPC for addresses without DWARF (as *elfsym.Binary
// opened with DWARFOnly).
type Symbolizer interface {
	Symbolize(addr uint64) ([]elfsym.Frame, error)
}

// frame is one SampleContextFrame: the function's linkage name and the
// location (line offset, raw discriminator) in it.
type frame struct {
	name       string
	line, disc uint32
}

type generator struct {
	*symbols
	bin   *perfscript.Binary
	opts  GenerateOptions
	fs    bool // FS discriminators
	prof  *sampleprof.Profile
	names map[string]sampleprof.FunctionID
}

// symbols is llvm-profgen's per-address symbolization cache
// (getCachedFrameLocationStack).
type symbols struct {
	sym Symbolizer
	// cache numbers each address's stack in stacks, where stacks[0] is
	// the empty one and an address whose stack equals the last one cached
	// (the next instruction of the same line) shares it: a map of 4-byte
	// values instead of slices, and fewer copies of the frames (the cache
	// was 4 of the 10 MB live after unwinding bench/profgen's big-cs trace).
	cache  map[uint64]int32
	stacks [][]frame
	// into is sym's SymbolizeInto when it has one (elfsym.Binary), which
	// decodes into buf: the frames are copied out at once.
	into func([]elfsym.Frame, uint64) ([]elfsym.Frame, error)
	buf  []elfsym.Frame
	// slab is where the cached stacks are cut from: one allocation for
	// many addresses (a stack is cached for the whole run anyway).
	slab []frame
}

func newSymbols(sym Symbolizer) *symbols {
	g := &symbols{sym: sym, cache: map[uint64]int32{}, stacks: [][]frame{nil}}
	if si, ok := sym.(interface {
		SymbolizeInto([]elfsym.Frame, uint64) ([]elfsym.Frame, error)
	}); ok {
		g.into = si.SymbolizeInto
	}
	return g
}

// Generate builds the non-CS line-number profile of a trace's counters.
func Generate(bin *perfscript.Binary, sym Symbolizer, c *perfscript.Counter, opts GenerateOptions) (*sampleprof.Profile, error) {
	if bin.PseudoProbes {
		return nil, errors.New("a pseudo-probe binary: generate with GenerateProbeBased")
	}
	opts.setDefaults()
	g := &generator{symbols: newSymbols(sym), bin: bin, opts: opts, fs: bin.FSDiscriminator,
		prof: &sampleprof.Profile{FS: bin.FSDiscriminator}, names: map[string]sampleprof.FunctionID{}}
	if err := g.bodySamples(c.Ranges); err != nil {
		return nil, err
	}
	if err := g.boundarySamples(c.Branches); err != nil {
		return nil, err
	}
	if err := g.typeSamples(opts.DataAccess); err != nil {
		return nil, err
	}
	for _, fs := range g.prof.Funcs {
		updateCallsiteSamples(fs)
		if opts.UpdateTotalSamples {
			updateTotalSamples(fs)
		}
	}
	return g.postProcess(), nil
}

func (g *generator) id(name string) sampleprof.FunctionID {
	f, ok := g.names[name]
	if !ok {
		f = sampleprof.Name(name)
		g.names[name] = f
	}
	return f
}

// stack is getFrameLocationStack: the inline frames of addr, outermost
// first, up to the first frame without a name.
func (g *symbols) stack(addr uint64) ([]frame, error) {
	if i, ok := g.cache[addr]; ok {
		return g.stacks[i], nil
	}
	var frames []elfsym.Frame
	var err error
	if g.into != nil {
		frames, err = g.into(g.buf, addr)
		if frames != nil {
			g.buf = frames[:0]
		}
	} else {
		frames, err = g.sym.Symbolize(addr)
	}
	if err != nil && !errors.Is(err, elfsym.ErrUnknownPC) {
		return nil, err
	}
	n := 0
	for i := len(frames) - 1; i >= 0; i-- {
		if f := &frames[i]; f.LinkageName == "" || f.LinkageName == "<invalid>" {
			break
		}
		n++
	}
	if n > 0 && !sameStack(g.stacks[len(g.stacks)-1], frames, n) {
		if len(g.slab) < n {
			g.slab = make([]frame, max(n, 1024))
		}
		// Capacity n: a caller appending to a stack copies it.
		s, slab := g.slab[:0:n], g.slab[n:]
		for j := len(frames) - 1; len(s) < n; j-- {
			s = append(s, stackFrame(&frames[j]))
		}
		g.slab = slab
		g.stacks = append(g.stacks, s)
	}
	i := int32(0)
	if n > 0 {
		i = int32(len(g.stacks) - 1)
	}
	g.cache[addr] = i
	return g.stacks[i], nil
}

// stackFrame is the frame of an inline frame from the symbolizer.
func stackFrame(f *elfsym.Frame) frame {
	return frame{name: f.LinkageName, line: (f.Line - f.StartLine) & 0xffff, disc: f.Discriminator}
}

// sameStack reports whether s is the stack of the n outermost of frames
// (innermost first).
func sameStack(s []frame, frames []elfsym.Frame, n int) bool {
	if len(s) != n {
		return false
	}
	for k := range s {
		if s[k] != stackFrame(&frames[len(frames)-1-k]) {
			return false
		}
	}
	return true
}

// leafProfile is getLeafProfileAndAddTotalSamples.
func (g *generator) leafProfile(s []frame, count uint64) *sampleprof.FunctionSamples {
	fs := g.prof.Get(g.id(s[0].name))
	fs.TotalSamples = satAdd(fs.TotalSamples, count)
	for i := 1; i < len(s); i++ {
		loc := sampleprof.LineLocation{Line: s[i-1].line, Disc: g.baseDisc(s[i-1].disc)}
		fs = fs.CalleeAt(loc, g.id(s[i].name))
		fs.TotalSamples = satAdd(fs.TotalSamples, count)
	}
	return fs
}

// bodySamples is populateBodySamplesForAllFunctions.
func (g *generator) bodySamples(counter map[perfscript.Branch]uint64) error {
	n := g.bin.NumInsts()
	for _, d := range g.preprocessRanges(counter) {
		for i := g.bin.InstIndex(d.begin); i < n; i++ {
			addr, size := g.bin.Inst(i)
			if addr > d.end {
				break
			}
			s, err := g.stack(addr)
			if err != nil {
				return err
			}
			if len(s) == 0 {
				continue
			}
			hi, lo := bits.Mul64(d.count, uint64(size))
			if hi != 0 {
				lo = ^uint64(0)
			}
			fs := g.leafProfile(s, lo)
			g.updateBody(fs, s[len(s)-1], d.count)
		}
	}
	return nil
}

// preprocessRanges is preprocessRangeCounter: the ranges zero-filled over
// their functions (or all functions) and made disjoint.
func (g *generator) preprocessRanges(counter map[perfscript.Branch]uint64) []disjoint {
	ranges := make(map[[2]uint64]uint64, len(counter))
	for r, n := range counter {
		ranges[[2]uint64{r.Source, r.Target}] += n
	}
	if g.opts.FillZeroForAllFuncs {
		for _, fn := range g.bin.Functions() {
			for _, r := range fn.Ranges {
				ranges[[2]uint64{r[0], r[1] - 1}] += 0
			}
		}
	} else {
		for r := range counter {
			if fr := g.bin.FuncRangeAt(r.Source); fr != nil {
				for _, rr := range fr.Func.Ranges {
					ranges[[2]uint64{rr[0], rr[1] - 1}] += 0
				}
			}
		}
	}
	return disjointRanges(ranges)
}

// updateBody is updateBodySamplesforFunctionProfile: the body record
// keeps the maximum count × duplication factor.
func (g *generator) updateBody(fs *sampleprof.FunctionSamples, leaf frame, count uint64) {
	loc := sampleprof.LineLocation{Line: leaf.line, Disc: g.baseDisc(leaf.disc)}
	hi, lo := bits.Mul64(count, uint64(g.dupFactor(leaf.disc)))
	if hi != 0 {
		lo = ^uint64(0)
	}
	count = lo
	var prev uint64
	if b := fs.FindBody(loc); b != nil {
		prev = b.Samples
	}
	if prev <= count {
		b := fs.BodyAt(loc)
		b.Samples = satAdd(b.Samples, count-prev)
	}
}

// calleeName is getCalleeNameForAddress: the canonical name of the
// function whose entry range starts at addr, or "".
func (g *generator) calleeName(addr uint64) string {
	fr := g.bin.FuncRangeStartingAt(addr)
	if fr == nil || !fr.Entry {
		return ""
	}
	return llvmname.Canonical(fr.Name)
}

// boundarySamples is populateBoundarySamplesForAllFunctions, the branches
// in address order.
func (g *generator) boundarySamples(counter map[perfscript.Branch]uint64) error {
	for _, k := range sortedBranches(counter) {
		count := counter[k]
		callee := g.calleeName(k.Target)
		if callee == "" {
			continue
		}
		s, err := g.stack(k.Source)
		if err != nil {
			return err
		}
		if len(s) > 0 {
			fs := g.leafProfile(s, 0)
			leaf := s[len(s)-1]
			fs.BodyAt(sampleprof.LineLocation{Line: leaf.line, Disc: g.baseDisc(leaf.disc)}).AddCall(g.id(callee), count)
		}
		top := g.prof.Get(g.id(callee))
		top.HeadSamples = satAdd(top.HeadSamples, count)
	}
	return nil
}

// updateCallsiteSamples raises each body record of fs (not of its
// inlinees) to the sum of its call targets.
func updateCallsiteSamples(fs *sampleprof.FunctionSamples) {
	for i := range fs.Body {
		b := &fs.Body[i]
		var sum uint64
		for _, c := range b.Calls {
			sum += c.Count
		}
		if sum > b.Samples {
			b.Samples = sum
		}
	}
}

// updateTotalSamples is FunctionSamples::updateTotalSamples.
func updateTotalSamples(fs *sampleprof.FunctionSamples) {
	fs.TotalSamples = 0
	for _, b := range fs.Body {
		fs.TotalSamples = satAdd(fs.TotalSamples, b.Samples)
	}
	for _, c := range fs.Callsites {
		updateTotalSamples(c.Callee)
		fs.TotalSamples = satAdd(fs.TotalSamples, c.Callee.TotalSamples)
	}
}

// filterPrefixes are FuncPrefixsToFilter.
var filterPrefixes = []string{"__cxx_global_var_init", "__tls_init"}

func filtered(name string) bool {
	for _, p := range filterPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// filterInlinees drops the inlinees of fs, at any depth, whose name is
// filtered.
func filterInlinees(fs *sampleprof.FunctionSamples) {
	fs.Callsites = slices.DeleteFunc(fs.Callsites, func(c sampleprof.Callsite) bool {
		if filtered(c.Callee.Name.String()) {
			return true
		}
		filterInlinees(c.Callee)
		return false
	})
}

// postProcess is ProfileGenerator::postProcessProfiles: the summary's cold
// threshold, --trim-cold-profile, the ambiguous-name filter,
// --mark-all-context-preinlined (LLVM 22) and the density warning. The
// profiles were created in the order llvm-profgen fills its profile map,
// from which the cold and ambiguous ones are erased.
func (g *generator) postProcess() *sampleprof.Profile {
	p := g.prof
	p.SetGenerated()
	cold := p.ComputeSummary().CountThreshold(sampleprof.ColdCutoff)
	p.DeleteFuncs(0, func(fs *sampleprof.FunctionSamples) bool {
		if g.opts.TrimColdProfile && fs.TotalSamples < cold || filtered(fs.Name.String()) {
			return true
		}
		filterInlinees(fs)
		return false
	})
	if g.opts.MarkAllContextPreinlined {
		markAllPreinlined(p)
	}
	g.showDensity(p)
	return p
}

// PostProcess is ProfileGenerator::generateProfile of a context-insensitive
// profile read from a file (llvm-profgen --llvm-sample-profile): the
// post-processing of postProcess on the reader's profile map, which
// llvm-profgen copies (p's Funcs in the order its reader filled them).
func PostProcess(p *sampleprof.Profile, opts GenerateOptions) *sampleprof.Profile {
	opts.setDefaults()
	g := &generator{opts: opts, prof: p}
	return g.postProcess()
}

// filterAmbiguous is filterAmbiguousProfile on the profile map of release
// llvm: profiles of global and TLS initializers are erased, and so are
// such inlinees.
func (g *generator) filterAmbiguous(p *sampleprof.Profile, llvm llvmrelease.Release) {
	p.DeleteFuncs(llvm, func(fs *sampleprof.FunctionSamples) bool {
		if filtered(fs.Name.String()) {
			return true
		}
		filterInlinees(fs)
		return false
	})
}

// markAllPreinlined is markAllContextPreinlined: every profile and inlinee
// is marked ContextShouldBeInlined and the profile pre-inlined.
func markAllPreinlined(p *sampleprof.Profile) {
	var mark func(fs *sampleprof.FunctionSamples)
	mark = func(fs *sampleprof.FunctionSamples) {
		fs.Attributes |= sampleprof.ContextShouldBeInlined
		for _, c := range fs.Callsites {
			mark(c.Callee)
		}
	}
	for _, fs := range p.Funcs {
		mark(fs)
	}
	p.PreInlined = true
}

// bodySamplesAndSize is calculateBodySamplesAndSize.
func bodySamplesAndSize(fs *sampleprof.FunctionSamples, total, size *uint64) {
	*size += uint64(len(fs.Body))
	for _, b := range fs.Body {
		*total += b.Samples
	}
	for _, c := range fs.Callsites {
		bodySamplesAndSize(c.Callee, total, size)
	}
}

// showDensity is calculateAndShowDensity's warning.
func (g *generator) showDensity(p *sampleprof.Profile) {
	type fd struct {
		density float64
		samples uint64
	}
	var list []fd
	var total uint64
	for _, fs := range p.Funcs {
		var body, size uint64
		bodySamplesAndSize(fs, &body, &size)
		if size == 0 {
			continue
		}
		total += body
		list = append(list, fd{float64(body) / float64(size), body})
	}
	slices.SortStableFunc(list, func(a, b fd) int {
		if a.density != b.density {
			if a.density > b.density {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.samples, b.samples)
	})
	// TotalProfileSamples * static_cast<float>(cutoff) / 1000000: float
	// arithmetic, as in llvm-profgen.
	limit := float32(total) * float32(g.opts.ProfileDensityCutoffHot) / float32(1000000)
	var acc uint64
	density := 0.0
	for i := 0; i < len(list) && float32(acc) < limit; i++ {
		acc += list[i].samples
		density = list[i].density
	}
	if g.opts.ShowDensity != nil {
		fmt.Fprintf(g.opts.ShowDensity, "Functions with density >= %.1f account for %.2f%% total sample counts.\n",
			density, float64(g.opts.ProfileDensityCutoffHot)/10000)
	}
	if g.opts.Warn == nil {
		return
	}
	switch {
	case density == 0:
		g.opts.Warn("The output profile is empty or the --profile-density-cutoff-hot option is set too low. Please check your command.")
	case density < g.opts.ProfileDensityThreshold:
		g.opts.Warn(fmt.Sprintf("Sample PGO is estimated to optimize better with %.1fx more samples. Please consider increasing sampling rate or profiling for longer duration to get more samples.", g.opts.ProfileDensityThreshold/density))
	}
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return ^uint64(0)
	}
	return s
}
