package profgen

import (
	"cmp"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/pseudoprobe"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/stdunordered"
)

// probes is what probe-based generation knows of the binary beyond
// perfscript.Binary: the decoded probes of the profiled functions.
type probes struct {
	*pseudoprobe.Probes
}

// profiledFunctions is collectFunctionsFromRawProfile: the functions of
// the ranges' starts, the branches' ends and the context addresses.
func profiledFunctions(bin *perfscript.Binary, ranges, branches [][2]uint64, stacks []uint64) map[*perfscript.Function]bool {
	m := map[*perfscript.Function]bool{}
	add := func(a uint64) {
		if fr := bin.FuncRangeAt(a); fr != nil {
			m[fr.Func] = true
		}
	}
	for _, a := range stacks {
		add(a)
	}
	for _, r := range ranges {
		add(r[0])
	}
	for _, b := range branches {
		add(b[0])
		add(b[1])
	}
	return m
}

// loadProbes is decodePseudoProbe for generation: only the profiled
// functions' records are kept, their first probes based on the symbols at
// the starts of their ranges.
func loadProbes(pb *profbinary.Binary, profiled map[*perfscript.Function]bool) (*probes, error) {
	at := pb.SymbolsAt()
	file := pb.Path()
	opts := pseudoprobe.Options{FuncStartAddrs: map[uint64]uint64{}}
	if len(profiled) > 0 {
		opts.GUIDFilter = map[uint64]bool{}
	}
	for fn := range profiled {
		opts.GUIDFilter[llvmname.GUID(fn.Name)] = true
		for _, r := range fn.Ranges {
			for _, g := range at[r[0]] {
				opts.FuncStartAddrs[g] = r[0]
			}
		}
	}
	p, err := pb.Probes(opts)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &pseudoprobe.Probes{}
	}
	if err := p.Check(file); err != nil {
		return nil, err
	}
	return &probes{p}, nil
}

// context is ProfiledBinary::getInlineContextForProbe: the probe's inline
// frames as context frames (index, discriminator 0), restarted after a
// frame of unknown call site (probe id 0).
func (p *probes) context(ctx []frame, q *pseudoprobe.Probe, includeLeaf bool) []frame {
	fr := p.InlineContext(nil, q, includeLeaf)
	for i, f := range fr {
		if f.Index == 0 && i != len(fr)-1 {
			ctx = ctx[:0]
			continue
		}
		ctx = append(ctx, frame{name: f.Name, line: f.Index})
	}
	return ctx
}

// checksum is the CFG hash of a function's descriptor (0 without one).
func (p *probes) checksum(name string) uint64 {
	if d := p.Desc(llvmname.GUID(name)); d != nil {
		return d.Hash
	}
	return 0
}

// probeCounts is extractProbesFromRange over disjoint ranges: each probe
// at an instruction of a range gets the range's count. It also returns
// the probes in the order they were first counted.
func probeCounts(bin *perfscript.Binary, p *probes, ranges []disjoint) (map[*pseudoprobe.Probe]uint64, []*pseudoprobe.Probe) {
	counts := map[*pseudoprobe.Probe]uint64{}
	var inserted []*pseudoprobe.Probe
	n := bin.NumInsts()
	for _, d := range ranges {
		for i := bin.InstIndex(d.begin); i < n; i++ {
			addr, _ := bin.Inst(i)
			if addr > d.end {
				break
			}
			for _, q := range p.At(addr) {
				n, ok := counts[q]
				if !ok {
					inserted = append(inserted, q)
				}
				counts[q] = satAdd(n, d.count)
			}
		}
	}
	return counts, inserted
}

// probeCounterOrder returns the probes of counts in the order
// llvm-profgen's ProbeCounter (a std::unordered_map keyed by pointers into
// one vector of decoded probes) iterates them after extractProbesFromRange
// inserted them: libstdc++'s order depends only on the insertion order and
// on which keys share a bucket, which for pointers 32 bytes apart
// (sizeof(MCDecodedPseudoProbe)) does not depend on where the vector is.
// It decides which function profile llvm-profgen creates first, hence the
// order of the FuncMetadata section.
func probeCounterOrder(inserted []*pseudoprobe.Probe) []*pseudoprobe.Probe {
	const probeSize = 32
	keys := make([]uint64, len(inserted))
	for i, q := range inserted {
		keys[i] = uint64(q.Seq) * probeSize
	}
	out := make([]*pseudoprobe.Probe, len(inserted))
	for i, j := range stdunordered.Order(keys) {
		out[i] = inserted[j]
	}
	return out
}

// sortedProbes returns the probes of counts in address order (their order
// does not change the profile; sorting keeps runs alike).
func sortedProbes(counts map[*pseudoprobe.Probe]uint64) []*pseudoprobe.Probe {
	qs := make([]*pseudoprobe.Probe, 0, len(counts))
	for q := range counts {
		qs = append(qs, q)
	}
	slices.SortStableFunc(qs, func(a, b *pseudoprobe.Probe) int {
		if c := cmp.Compare(a.Address, b.Address); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return qs
}

// GenerateProbeBased builds the non-CS profile of a trace's counters on a
// binary with pseudo probes (ProfileGenerator::generateProbeBasedProfile):
// body samples per probe (index, discriminator) with the function's
// checksum, head samples from entry probes, call targets at call probes.
func GenerateProbeBased(bin *perfscript.Binary, c *perfscript.Counter, opts GenerateOptions) (*sampleprof.Profile, error) {
	opts.setDefaults()
	var ranges, branches [][2]uint64
	for r := range c.Ranges {
		ranges = append(ranges, [2]uint64{r.Source, r.Target})
	}
	for b := range c.Branches {
		branches = append(branches, [2]uint64{b.Source, b.Target})
	}
	p, err := loadProbes(bin.Profiled(), profiledFunctions(bin, ranges, branches, nil))
	if err != nil {
		return nil, err
	}
	g := &generator{bin: bin, opts: opts, fs: bin.FSDiscriminator,
		prof: &sampleprof.Profile{FS: bin.FSDiscriminator, ProbeBased: true}, names: map[string]sampleprof.FunctionID{}}
	counts, inserted := probeCounts(bin, p, g.preprocessRanges(c.Ranges))
	var ctx []frame
	for _, q := range probeCounterOrder(inserted) {
		n := counts[q]
		ctx = p.context(ctx[:0], q, true)
		fs := g.probeLeafProfile(p, ctx, n)
		b := fs.BodyAt(sampleprof.LineLocation{Line: q.Index, Disc: q.Discriminator})
		b.Samples = satAdd(b.Samples, n)
		if q.IsEntry() {
			fs.HeadSamples = satAdd(fs.HeadSamples, n)
		}
	}
	for _, k := range sortedBranches(c.Branches) {
		callee := g.calleeName(k.Target)
		if callee == "" {
			continue
		}
		q := p.CallProbeAt(k.Source)
		if q == nil {
			continue
		}
		ctx = p.context(ctx[:0], q, true)
		if len(ctx) > 0 {
			leaf := ctx[len(ctx)-1]
			g.probeLeafProfile(p, ctx, 0).BodyAt(sampleprof.LineLocation{Line: leaf.line}).AddCall(g.id(callee), c.Branches[k])
		}
	}
	for _, fs := range g.prof.Funcs {
		updateCallsiteSamples(fs)
		if opts.UpdateTotalSamples {
			updateTotalSamples(fs)
		}
	}
	out := g.postProcess()
	out.ProbeBased = true
	out.InMapOrder()
	return out, nil
}

// probeLeafProfile is getLeafProfileAndAddTotalSamples with probes: every
// profile on the path gets its function's checksum.
func (g *generator) probeLeafProfile(p *probes, s []frame, count uint64) *sampleprof.FunctionSamples {
	fs := g.prof.Get(g.id(s[0].name))
	fs.TotalSamples = satAdd(fs.TotalSamples, count)
	fs.Checksum = p.checksum(s[0].name)
	for i := 1; i < len(s); i++ {
		fs = fs.CalleeAt(sampleprof.LineLocation{Line: s[i-1].line}, g.id(s[i].name))
		fs.TotalSamples = satAdd(fs.TotalSamples, count)
		fs.Checksum = p.checksum(s[i].name)
	}
	return fs
}

// sortedBranches returns the keys of a branch counter in address order.
func sortedBranches(m map[perfscript.Branch]uint64) []perfscript.Branch {
	keys := make([]perfscript.Branch, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b perfscript.Branch) int {
		if a.Source != b.Source {
			return cmp.Compare(a.Source, b.Source)
		}
		return cmp.Compare(a.Target, b.Target)
	})
	return keys
}
