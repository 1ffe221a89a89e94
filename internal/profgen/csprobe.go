package profgen

import (
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/pseudoprobe"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// csProbeGenerator is CSProfileGenerator::generateProbeBasedProfile's
// state.
type csProbeGenerator struct {
	*csGenerator
	p       *probes
	ctxOpts ContextOptions
	// infer fills in tail-call frames (nil with --infer-missing-frames=false).
	infer *missingFrames
}

// GenerateCSProbeBased builds the context-sensitive profile of a probe
// binary's unwound counters (contexts of call addresses): each context's
// probe counts in the context trie under the call probes' inline
// contexts, head samples and the inliner's call-site samples from entry
// probes, zero counts for the other probes of every sampled inline frame,
// call targets at call probes and the functions' checksums; then
// postProcessCS as for DWARF-based profiles.
func GenerateCSProbeBased(bin *perfscript.Binary, u *Unwinder, cs *CSCounters, opts CSOptions) (*sampleprof.Profile, error) {
	opts.setDefaults()
	var ranges, branches [][2]uint64
	var stacks []uint64
	for _, c := range cs.Counters {
		stacks = append(stacks, c.Addrs...)
		for r := range c.Ranges {
			ranges = append(ranges, r)
		}
		for b := range c.Branches {
			branches = append(branches, b)
		}
	}
	p, err := loadProbes(bin.Profiled(), profiledFunctions(bin, ranges, branches, stacks))
	if err != nil {
		return nil, err
	}
	g := &csProbeGenerator{csGenerator: &csGenerator{generator: &generator{symbols: u.sym, bin: bin, opts: opts.GenerateOptions, fs: bin.FSDiscriminator,
		prof: &sampleprof.Profile{FS: bin.FSDiscriminator, CS: true, ProbeBased: true}, names: map[string]sampleprof.FunctionID{}}, probes: p}, p: p, ctxOpts: u.opts}
	if opts.InferMissingFrames {
		g.infer = newMissingFrames(bin, cs)
		if opts.MaxSearchDepth != nil {
			g.infer.maxDepth = *opts.MaxSearchDepth
		}
	}
	for _, c := range cs.Counters {
		g.bodySamples(c)
		g.boundarySamples(c)
	}
	return g.finish(cs, opts)
}

// bodySamples is populateBodySamplesWithProbes.
func (g *csProbeGenerator) bodySamples(c *ContextCounter) {
	counts, _ := probeCounts(g.bin, g.p, disjointRanges(c.Ranges))
	frames := map[*pseudoprobe.InlineTree][]*sampleprof.FunctionSamples{}
	var order []*pseudoprobe.InlineTree
	for _, q := range sortedProbes(counts) {
		n := counts[q]
		if !q.IsBlock() || n == 0 {
			continue
		}
		node := g.leafNode(c.Addrs, q)
		fs := node.fs
		if _, ok := frames[q.Node]; !ok {
			order = append(order, q.Node)
		}
		frames[q.Node] = appendUnique(frames[q.Node], fs)
		addBody(fs, q.Index, q.Discriminator, n)
		fs.TotalSamples = satAdd(fs.TotalSamples, n)
		if !q.IsEntry() {
			continue
		}
		fs.HeadSamples = satAdd(fs.HeadSamples, n)
		inliner := g.p.InlinerDesc(q)
		caller := node.parent
		if inliner == nil || caller == nil || caller == &g.root {
			continue
		}
		cfs := g.functionSamples(caller, false)
		cfs.Checksum = inliner.Hash
		loc := node.callsite
		addBody(cfs, loc.Line, loc.Disc, n)
		cfs.TotalSamples = satAdd(cfs.TotalSamples, n)
		cfs.BodyAt(loc).AddCall(g.id(node.name), n)
	}
	// Zero counts for the probes of each sampled frame that were not hit,
	// telling them from probes optimized away.
	for _, t := range order {
		for _, fs := range frames[t] {
			for _, q := range t.Probes {
				addBody(fs, q.Index, q.Discriminator, 0)
			}
		}
	}
}

func appendUnique(l []*sampleprof.FunctionSamples, fs *sampleprof.FunctionSamples) []*sampleprof.FunctionSamples {
	for _, x := range l {
		if x == fs {
			return l
		}
	}
	return append(l, fs)
}

// addBody is FunctionSamples::addBodySamples.
func addBody(fs *sampleprof.FunctionSamples, index, disc uint32, n uint64) {
	b := fs.BodyAt(sampleprof.LineLocation{Line: index, Disc: disc})
	b.Samples = satAdd(b.Samples, n)
}

// boundarySamples is populateBoundarySamplesWithProbes.
func (g *csProbeGenerator) boundarySamples(c *ContextCounter) {
	for _, k := range sortedPairs(c.Branches) {
		n := c.Branches[k]
		q := g.p.CallProbeAt(k[0])
		if q == nil {
			continue
		}
		fs := g.leafNode(c.Addrs, q).fs
		addBody(fs, q.Index, 0, n)
		fs.TotalSamples = satAdd(fs.TotalSamples, n)
		callee := g.calleeName(k[1])
		if callee == "" {
			continue
		}
		fs.BodyAt(sampleprof.LineLocation{Line: q.Index, Disc: q.Discriminator}).AddCall(g.id(callee), n)
	}
}

// leafNode is getContextNodeForLeafProbe: the context of the call probes
// at the stack's addresses (from the leaf end, up to the first address
// without one), each expanded into its inline frames, then the leaf
// probe's inline frames; the leaf's location cleared, recursion
// compressed and the depth trimmed before it.
func (g *csProbeGenerator) leafNode(addrs []uint64, leaf *pseudoprobe.Probe) *ctxNode {
	if g.infer != nil {
		addrs = g.infer.inferContext(append(slices.Clip(addrs), leaf.Address))
		addrs = addrs[:len(addrs)-1]
	}
	first := len(addrs)
	for first > 0 && g.p.CallProbeAt(addrs[first-1]) != nil {
		first--
	}
	var ctx []frame
	for _, a := range addrs[first:] {
		ctx = g.p.context(ctx, g.p.CallProbeAt(a), true)
	}
	ctx = g.p.context(ctx, leaf, true)
	lf := ctx[len(ctx)-1]
	lf.line, lf.disc = 0, 0
	ctx = compressRecursion(ctx[:len(ctx)-1], g.ctxOpts.MaxCompressionSize)
	ctx = trimContext(ctx, g.ctxOpts.MaxContextDepth)
	ctx = append(ctx, lf)
	node := g.contextNode(ctx, leaf.Node.HasInlineSite())
	if d := g.p.Desc(leaf.GUID()); d != nil {
		node.fs.Checksum = d.Hash
	}
	return node
}

// sizeStack is getFrameLocationStack of the pre-inliner's sizes: with
// probes (UseProbeDiscriminator) each frame's location is the probe index
// its DWARF discriminator encodes.
func (g *csGenerator) sizeStack(addr uint64) ([]frame, error) {
	s, err := g.stack(addr)
	if err != nil || g.probes == nil {
		return s, err
	}
	out := make([]frame, len(s))
	for i, f := range s {
		out[i] = frame{name: f.name, line: probeIndex(f.disc)}
	}
	return out, nil
}

// probeIndex is PseudoProbeDwarfDiscriminator::extractProbeIndex: bits
// [18:3], or [15:3] when bit 28 says [18:16] hold a DWARF base
// discriminator.
func probeIndex(d uint32) uint32 {
	if d&0x10000000 != 0 {
		return d >> 3 & 0x1fff
	}
	return d >> 3 & 0xffff
}

// trackInlineesOptimizedAway gives a known size (0) to every inline
// context of fn's probe tree that kept probes, also of inlinees whose
// code was optimized away (BinarySizeContextTracker).
func (g *csGenerator) trackInlineesOptimizedAway(t *sizeTracker, fn *perfscript.Function) {
	if g.probes == nil {
		return
	}
	var top *pseudoprobe.InlineTree
	for _, c := range g.probes.Root.Children {
		if g.probes.Name(c.GUID) == fn.Name {
			top = c // the last of a name, as TopLevelProbeFrameMap keeps it
		}
	}
	if top == nil {
		return
	}
	var stack []frame
	var walk func(n *pseudoprobe.InlineTree)
	walk = func(n *pseudoprobe.InlineTree) {
		stack = append(stack, frame{name: g.probes.Name(n.GUID)})
		if len(n.Probes) > 0 {
			t.add(stack, 0)
		}
		for _, c := range n.Children {
			stack[len(stack)-1].line = c.ProbeID
			walk(c)
		}
		stack = stack[:len(stack)-1]
	}
	walk(top)
}
