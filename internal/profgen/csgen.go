package profgen

import (
	"cmp"
	"errors"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// CSOptions are llvm-profgen's switches of context-sensitive generation.
//
// llvm-profgen's post-processing switches and their defaults (the same in
// LLVM 19 and 22; all accepted by both, --mark-all-context-preinlined by
// 22 only):
//
//	--csspgo-preinliner            true   (hidden) the global pre-inliner (CSPreInliner)
//	--gen-cs-nested-profile        true   (hidden) flat contexts → nested profile (ProfileConverter)
//	--csprof-merge-cold-context    true   cold contexts merged into their base profile;
//	                                      forced false after the pre-inliner unless given
//	--csprof-max-cold-context-depth 1     frames kept when merging cold contexts
//	--trim-cold-profile            false  drop cold contexts
//	--csprof-max-context-depth     -1     trim contexts to their last K frames
//	--compress-recursion           -1     (hidden) longest repeated sequence compressed
//	--update-total-samples         false  totals = Σ body samples
//	--use-context-cost-for-preinliner true (hidden) pre-inliner sizes from machine code
//
// GenerateCS implements CSProfileGenerator::generateLineNumBasedProfile
// and postProcessProfiles (postProcessCS).
type CSOptions struct {
	GenerateOptions
	// PreInliner runs CSPreInliner (--csspgo-preinliner).
	PreInliner bool
	// GenNestedProfile converts the flat contexts into a nested profile
	// (--gen-cs-nested-profile).
	GenNestedProfile bool
	// MergeColdContext merges cold contexts into their base profile
	// (--csprof-merge-cold-context); MaxColdContextDepth frames are kept.
	MergeColdContext    bool
	MaxColdContextDepth int
	// InferMissingFrames fills in the frames tail calls leave out of the
	// contexts of probe binaries (--infer-missing-frames, default true).
	InferMissingFrames bool
	// MaxSearchDepth, if not nil, bounds the depth of the search for a
	// unique tail-call path (--max-search-depth; llvm-profgen's default,
	// 2^32-2, is no bound in practice).
	MaxSearchDepth *uint32
	// PreInline are the pre-inliner's switches; the zero value means
	// DefaultPreInlinerOptions.
	PreInline PreInlinerOptions
	// Release is the release whose profile-map order the conversions
	// follow (0 means llvmrelease.Default).
	Release llvmrelease.Release
}

// ctxNode is a node of SampleContextTracker's context trie (a
// ContextTrieNode): a function under its caller at a call site, with its
// profile (nil until samples reach it). Its children are kept as LLVM's
// std::map keyed by getCallSiteHash keeps them: in ascending hash order,
// which is the order every walk of the trie follows. The size trie of
// the pre-inliner is made of the same nodes (size, hasSize).
type ctxNode struct {
	name     string
	callsite sampleprof.LineLocation
	hash     uint64 // callSiteHash(name, callsite): the key under parent
	parent   *ctxNode
	kids     []*ctxNode // ascending hash
	fs       *sampleprof.FunctionSamples
	size     uint32
	hasSize  bool
}

// find returns the index of the child with hash h, or where it goes.
func (n *ctxNode) find(h uint64) (int, bool) {
	return slices.BinarySearchFunc(n.kids, h, func(c *ctxNode, h uint64) int { return cmp.Compare(c.hash, h) })
}

// childOf is getChildContext: the child of that hash (LLVM looks children
// up by hash alone), or nil.
func (n *ctxNode) childOf(h uint64) *ctxNode {
	if i, ok := n.find(h); ok {
		return n.kids[i]
	}
	return nil
}

// insert adds c (whose hash is set) as a child, replacing one of the same
// hash.
func (n *ctxNode) insert(c *ctxNode) {
	c.parent = n
	if i, ok := n.find(c.hash); ok {
		n.kids[i] = c
	} else {
		n.kids = slices.Insert(n.kids, i, c)
	}
}

// remove is removeChildContext.
func (n *ctxNode) remove(h uint64) {
	if i, ok := n.find(h); ok {
		n.kids = slices.Delete(n.kids, i, i+1)
	}
}

type csGenerator struct {
	*generator
	root   ctxNode
	hashes nameHashes
	// probes are the pseudo probes of a probe binary (csprobe.go), else nil.
	probes *probes
}

// GenerateCS builds the context-sensitive (CSSPGO) profile of the
// unwound counters, as CSProfileGenerator does for DWARF-based binaries.
// sym should be the symbolizer the unwinder used (its cache is reused
// when it is the same *Unwinder's).
func GenerateCS(bin *perfscript.Binary, u *Unwinder, cs *CSCounters, opts CSOptions) (*sampleprof.Profile, error) {
	if bin.PseudoProbes {
		return nil, errors.New("a pseudo-probe binary: generate with GenerateCSProbeBased")
	}
	opts.setDefaults()
	g := &csGenerator{generator: &generator{symbols: u.sym, bin: bin, opts: opts.GenerateOptions, fs: bin.FSDiscriminator,
		prof: &sampleprof.Profile{FS: bin.FSDiscriminator, CS: true}, names: map[string]sampleprof.FunctionID{}}}
	for _, c := range cs.Counters {
		node := &g.root
		if len(c.Context) > 0 {
			node = g.contextNode(c.Context, c.WasLeafInlined)
			if err := g.csBodySamples(node.fs, c.Ranges); err != nil {
				return nil, err
			}
		}
		if err := g.csBoundarySamples(node, c.Branches); err != nil {
			return nil, err
		}
	}
	g.inferredSamples(&g.root)
	return g.finish(cs, opts)
}

// finish is the end of generateProfile: updateFunctionSamples on every
// context, the pre-inliner's sizes (computeSizeForProfiledFunctions) and
// postProcessProfiles.
func (g *csGenerator) finish(cs *CSCounters, opts CSOptions) (*sampleprof.Profile, error) {
	g.walk(&g.root, func(n *ctxNode) {
		if n.fs != nil {
			if opts.UpdateTotalSamples {
				updateTotalSamples(n.fs)
			}
			updateCallsiteSamples(n.fs)
		}
	})
	if opts.PreInline == (PreInlinerOptions{}) {
		opts.PreInline = DefaultPreInlinerOptions
	}
	var sizes *sizeTracker
	if opts.PreInliner && opts.PreInline.UseContextCost {
		var err error
		if sizes, err = g.computeSizes(cs); err != nil {
			return nil, err
		}
	}
	return g.postProcessCS(opts, sizes)
}

func (g *csGenerator) walk(n *ctxNode, f func(*ctxNode)) {
	f(n)
	for _, c := range n.kids {
		g.walk(c, f)
	}
}

// child is getOrCreateChildContext.
func (g *csGenerator) child(n *ctxNode, loc sampleprof.LineLocation, name string) *ctxNode {
	h := g.hashes.callSite(name, loc)
	if c := n.childOf(h); c != nil {
		return c
	}
	c := &ctxNode{name: name, callsite: loc, hash: h}
	n.insert(c)
	return c
}

// functionSamples is getOrCreateFunctionSamples.
func (g *csGenerator) functionSamples(n *ctxNode, wasLeafInlined bool) *sampleprof.FunctionSamples {
	if n.fs == nil {
		n.fs = &sampleprof.FunctionSamples{Name: g.id(n.name)}
	}
	if wasLeafInlined {
		n.fs.Attributes |= sampleprof.ContextWasInlined
	}
	return n.fs
}

// contextNode is getOrCreateContextNode: the trie path of a context (each
// frame under the previous one at the previous frame's location).
func (g *csGenerator) contextNode(ctx Context, wasLeafInlined bool) *ctxNode {
	n := &g.root
	loc := sampleprof.LineLocation{}
	for _, f := range ctx {
		n = g.child(n, loc, f.name)
		loc = sampleprof.LineLocation{Line: f.line, Disc: f.disc}
	}
	g.functionSamples(n, wasLeafInlined)
	return n
}

// leafLoc is getInlineLeafFrameLoc: the innermost frame of addr (raw
// discriminator), false without debug info.
func (g *csGenerator) leafLoc(addr uint64) (frame, bool, error) {
	s, err := g.stack(addr)
	if err != nil || len(s) == 0 {
		return frame{}, false, err
	}
	return s[len(s)-1], true, nil
}

// csBodySamples is populateBodySamplesForFunction: disjoint ranges of
// the context, zero pieces skipped; per instruction the body record keeps
// the maximum and the total grows by the count (not × size, unlike non-CS).
func (g *csGenerator) csBodySamples(fs *sampleprof.FunctionSamples, counter map[[2]uint64]uint64) error {
	n := g.bin.NumInsts()
	for _, d := range disjointRanges(counter) {
		if d.count == 0 {
			continue
		}
		for i := g.bin.InstIndex(d.begin); i < n; i++ {
			addr, _ := g.bin.Inst(i)
			if addr > d.end {
				break
			}
			leaf, ok, err := g.leafLoc(addr)
			if err != nil {
				return err
			}
			if ok {
				g.updateBody(fs, leaf, d.count)
				fs.TotalSamples = satAdd(fs.TotalSamples, d.count)
			}
		}
	}
	return nil
}

// csBoundarySamples is populateBoundarySamplesForFunction: call targets in
// the caller's context and head samples of the callee's node under it (at
// the call's raw location; under the root for branches from outside).
func (g *csGenerator) csBoundarySamples(node *ctxNode, counter map[[2]uint64]uint64) error {
	for _, k := range sortedPairs(counter) {
		count := counter[k]
		callee := g.calleeName(k[1])
		if callee == "" {
			continue
		}
		site := sampleprof.LineLocation{}
		if node != &g.root {
			leaf, ok, err := g.leafLoc(k[0])
			if err != nil {
				return err
			}
			if ok {
				node.fs.BodyAt(sampleprof.LineLocation{Line: leaf.line, Disc: g.baseDisc(leaf.disc)}).AddCall(g.id(callee), count)
				site = sampleprof.LineLocation{Line: leaf.line, Disc: leaf.disc}
			}
		}
		fs := g.functionSamples(g.child(node, site, callee), false)
		fs.HeadSamples = satAdd(fs.HeadSamples, count)
	}
	return nil
}

// inferredSamples is populateInferredFunctionSamples: post-order, a
// context without head samples under a non-root caller adds its estimated
// call count to the caller's call site as call target, body samples and
// total. The estimate is getHeadSamplesEstimate: the first body record's
// samples, but at least 1 when the total is not 0 (a first record that
// holds only call targets, whose samples updateCallsiteSamples fills in
// later, still counts 1); and 1 for a profile without body records.
func (g *csGenerator) inferredSamples(n *ctxNode) {
	for _, c := range n.kids {
		g.inferredSamples(c)
	}
	callee := n.fs
	if callee == nil || callee.HeadSamples != 0 || n.parent == nil || n.parent == &g.root {
		return
	}
	caller := g.functionSamples(n.parent, false)
	est := headSamplesEstimate(callee)
	if est == 0 && len(callee.Body) == 0 {
		est = 1
	}
	b := caller.BodyAt(n.callsite)
	b.AddCall(g.id(n.name), est)
	b.Samples = satAdd(b.Samples, est)
	caller.TotalSamples = satAdd(caller.TotalSamples, est)
}

// postProcessCS is CSProfileGenerator::postProcessProfiles, the same steps
// in LLVM 19 and 22: the summary of the context-less profile, the
// pre-inliner on the trie, the flat profile map, cold contexts trimmed or
// merged below the summary's hot threshold, the nested conversion, the
// ambiguous-name filter, --mark-all-context-preinlined (22) and the
// density warning. Each step works on the profile map in LLVM's order
// (sampleprof's conversions), which the FuncMetadata section follows.
func (g *csGenerator) postProcessCS(opts CSOptions, sizes *sizeTracker) (*sampleprof.Profile, error) {
	s := g.contextLessSummary(opts.Release)
	if opts.PreInliner {
		if err := g.preInline(opts.PreInline, sizes, s); err != nil {
			return nil, err
		}
	}
	g.convertToProfileMap(&g.root, nil)
	p := g.prof
	p.SetGenerated()
	p.PreInlined = opts.PreInliner
	if opts.TrimColdProfile || opts.MergeColdContext {
		err := p.TrimColdContexts(sampleprof.ColdContextOptions{
			Threshold: s.CountThreshold(sampleprof.HotCutoff),
			Trim:      opts.TrimColdProfile, Merge: opts.MergeColdContext,
			FrameDepth: opts.MaxColdContextDepth, BaseOnly: opts.PreInliner, Release: opts.Release})
		if err != nil {
			return nil, err
		}
	}
	if opts.GenNestedProfile {
		p.NestContexts(sampleprof.NestOptions{Release: opts.Release})
	}
	g.filterAmbiguous(p, opts.Release)
	if opts.MarkAllContextPreinlined {
		markAllPreinlined(p)
	}
	g.showDensity(p)
	return p, nil
}

// contextLessSummary is computeSummaryAndThreshold: the summary of the
// trie's profiles merged per function (createContextLessProfileMap, which
// visits the trie breadth first; a checksum mismatch merges nothing, as
// FunctionSamples::merge).
func (g *csGenerator) contextLessSummary(llvm llvmrelease.Release) *sampleprof.Summary {
	flat := &sampleprof.Profile{}
	bfs(&g.root, func(n *ctxNode) {
		if n.fs != nil {
			flat.Get(n.fs.Name).Merge(n.fs, 1)
		}
	})
	flat.SetGenerated()
	return flat.ComputeSummaryFor(llvm)
}

// convertToProfileMap moves every trie node's profile into the flat map
// under its full context (depth first).
func (g *csGenerator) convertToProfileMap(n *ctxNode, ctx []sampleprof.Frame) {
	if n != &g.root {
		if n.fs != nil {
			frames := append(ctx, sampleprof.Frame{Func: g.id(n.name)})
			fs := g.prof.GetContext(frames)
			c := fs.Context
			*fs = *n.fs
			fs.Context = c
		}
	}
	for _, c := range n.kids {
		next := ctx
		if n != &g.root {
			next = append(ctx[:len(ctx):len(ctx)], sampleprof.Frame{Func: g.id(n.name), Loc: c.callsite})
		}
		g.convertToProfileMap(c, next)
	}
}
