package sampleprof

import (
	"maps"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/stdunordered"
)

// What llvm-profdata merge --sample and llvm-profgen do to a whole profile
// before writing it: trim and merge cold contexts (SampleContextTrimmer),
// nest a CS profile's contexts into inlinees and flatten inlinees out
// (ProfileConverter). Each works on LLVM's profile map as LLVM does,
// erasing and inserting in its order, so that the order the writer then
// iterates (the FuncMetadata section) is LLVM's.

// llvmMap is LLVM's SampleProfileMap of one release: top-level profiles
// keyed by their context's hash (contextHash) in a libstdc++
// unordered_map.
type llvmMap struct {
	llvm llvmrelease.Release
	t    *stdunordered.Table
	fs   []*FunctionSamples // by node; nil once erased
	node map[uint64]int32   // key → node
	md5  func(FunctionID) uint64
}

func newLLVMMap(llvm llvmrelease.Release) *llvmMap {
	llvm = llvm.OrDefault()
	return &llvmMap{llvm: llvm, t: stdunordered.New(0), node: map[uint64]int32{}, md5: md5Memo()}
}

// key is the profile's key; the MD5s of the names, which repeat along
// the contexts, are remembered.
func (m *llvmMap) key(fs *FunctionSamples) uint64 { return contextHash(fs, m.llvm, m.md5) }

func (m *llvmMap) find(k uint64) *FunctionSamples {
	if n, ok := m.node[k]; ok {
		return m.fs[n]
	}
	return nil
}

// insert adds fs under k, which must not be in the map.
func (m *llvmMap) insert(k uint64, fs *FunctionSamples) {
	n := m.t.Insert(k)
	m.fs = append(m.fs, fs)
	m.node[k] = n
}

func (m *llvmMap) erase(k uint64) {
	if n, ok := m.node[k]; ok {
		m.t.Erase(n)
		m.fs[n] = nil
		delete(m.node, k)
	}
}

// getOrCreate is operator[]: the profile under the key of a context (or
// of a name, for frames nil), a new empty one if there is none.
func (m *llvmMap) getOrCreate(name FunctionID, frames []Frame) (fs *FunctionSamples, isNew bool) {
	probe := FunctionSamples{Name: name, Context: frames}
	k := m.key(&probe)
	if fs := m.find(k); fs != nil {
		return fs, false
	}
	fs = &FunctionSamples{Name: name, Context: slices.Clone(frames)}
	m.insert(k, fs)
	return fs, true
}

// funcs returns the profiles in iteration order.
func (m *llvmMap) funcs() []*FunctionSamples {
	out := make([]*FunctionSamples, 0, m.t.Len())
	for _, n := range m.t.Order() {
		out = append(out, m.fs[n])
	}
	return out
}

// llvmMap returns p's profile map in release llvm: the one an earlier
// conversion left, or llvm-profdata merge's map filled from p.Funcs.
func (p *Profile) llvmMap(llvm llvmrelease.Release) *llvmMap {
	llvm = llvm.OrDefault()
	if p.lmap != nil && p.lmap.llvm == llvm {
		return p.lmap
	}
	m := newLLVMMap(llvm)
	order := p.Funcs
	if !p.merged && p.lmap == nil {
		// The reader's map, iterated into merge's.
		order = stdMapPass(p.Funcs, m.key)
	}
	for _, fs := range order {
		if k := m.key(fs); m.find(k) == nil {
			m.insert(k, fs)
		}
	}
	return m
}

// SetGenerated marks p as filled by a tool that builds LLVM's profile map
// itself, as llvm-profgen does: Funcs are in the order that map was
// filled, which the converters and the FuncMetadata section follow. (A
// profile read from a file is in its reader's order instead, and
// llvm-profdata copies the reader's map into its own first.)
func (p *Profile) SetGenerated() { p.merged = true }

// DeleteFuncs erases the top-level profiles drop chooses from p's profile
// map of release llvm (0 means llvmrelease.Default), as llvm-profgen's
// filterAmbiguousProfile erases them: the others keep their order.
func (p *Profile) DeleteFuncs(llvm llvmrelease.Release, drop func(*FunctionSamples) bool) {
	m := p.llvmMap(llvm)
	for _, fs := range m.funcs() {
		if drop(fs) {
			m.erase(m.key(fs))
		}
	}
	p.setMap(m)
}

// setMap makes m p's profile map: Funcs in its iteration order.
func (p *Profile) setMap(m *llvmMap) {
	p.lmap = m
	p.Funcs = m.funcs()
	p.byCtx = nil
	p.byName = nil
	for i, fs := range p.Funcs {
		if fs.Context == nil {
			if p.byName == nil {
				p.byName = map[FunctionID]int32{}
			}
			if _, ok := p.byName[fs.Name]; !ok {
				p.byName[fs.Name] = int32(i)
			}
		}
	}
}

// mergeKeep is FunctionSamples::merge of o into fs, which has a context
// already (so its attributes stay): weight 1, a checksum mismatch merges
// nothing, overflows saturate.
func (fs *FunctionSamples) mergeKeep(o *FunctionSamples) {
	a := fs.Attributes
	fs.mergeTop(o, 1, false)
	fs.Attributes = a
}

// The cutoffs of LLVM's profile summary options: a count is hot if it is
// at least the minimum count of the hottest counts making up
// HotCutoff/1e6 of the total (-profile-summary-cutoff-hot), and cold if it
// is below the minimum count of ColdCutoff (-profile-summary-cutoff-cold).
const (
	HotCutoff  = 990000
	ColdCutoff = 999999
)

// CountThreshold is ProfileSummaryBuilder::getEntryForPercentile(...).MinCount:
// the minimum count of the first detailed entry whose cutoff is at least
// cutoff (0 if there is none; LLVM aborts then).
func (s *Summary) CountThreshold(cutoff uint64) uint64 {
	for _, e := range s.Detailed {
		if e.Cutoff >= cutoff {
			return e.MinCount
		}
	}
	return 0
}

// ColdContextOptions say what TrimColdContexts does.
type ColdContextOptions struct {
	// Threshold: profiles of fewer total samples are cold. llvm-profdata
	// uses ComputeSummaryFor(LLVM).CountThreshold(ColdCutoff).
	Threshold uint64
	// Trim drops cold profiles (--sample-trim-cold-context,
	// --csprof-trim-cold-context); Merge merges each into the profile of
	// its last FrameDepth frames (--sample-merge-cold-context,
	// --csprof-merge-cold-context), itself dropped if still cold and Trim.
	Trim, Merge bool
	// FrameDepth is the number of frames a merged cold context keeps
	// (--sample-frame-depth-for-cold-context); 0 means 1, the
	// context-less base profile.
	FrameDepth int
	// BaseOnly limits trimming to base profiles (one frame), as
	// llvm-profgen's pre-inliner asks; ignored with Merge.
	BaseOnly bool
	// Release is the release whose map order to follow (0 means llvmrelease.Default).
	Release llvmrelease.Release
}

// ErrNoContexts is what TrimColdContexts returns when asked to merge cold
// profiles of a profile without contexts (where llvm-profdata crashes).
var ErrNoContexts = errorString("cannot merge cold contexts: the profile is not context-sensitive")

// TrimColdContexts is SampleContextTrimmer::trimAndMergeColdContextProfiles.
// As in llvm-profdata, Trim also drops the cold profiles of a profile
// without contexts; merging them is ErrNoContexts (and changes nothing).
func (p *Profile) TrimColdContexts(o ColdContextOptions) error {
	if !o.Trim && !o.Merge || o.Threshold == 0 {
		return nil
	}
	if !p.CS && o.Merge && slices.ContainsFunc(p.Funcs, func(fs *FunctionSamples) bool { return fs.TotalSamples < o.Threshold }) {
		return ErrNoContexts
	}
	depth := max(o.FrameDepth, 1)
	baseOnly := o.BaseOnly && !o.Merge
	m := p.llvmMap(o.Release)
	var cold []*FunctionSamples
	for _, fs := range m.funcs() {
		if fs.TotalSamples < o.Threshold && (!baseOnly || len(fs.Context) == 1) {
			cold = append(cold, fs)
		}
	}
	merged := newLLVMMap(m.llvm)
	for _, fs := range cold {
		if o.Merge {
			ctx := fs.Context
			if depth < len(ctx) {
				ctx = ctx[len(ctx)-depth:]
			}
			dst, _ := merged.getOrCreate(fs.Name, ctx)
			dst.mergeKeep(fs)
		}
		m.erase(m.key(fs))
	}
	for _, fs := range merged.funcs() {
		k := m.key(fs)
		dst := m.find(k)
		if dst == nil {
			if o.Trim && fs.TotalSamples < o.Threshold {
				continue
			}
			dst, _ = m.getOrCreate(fs.Name, fs.Context)
		}
		dst.mergeKeep(fs)
	}
	p.setMap(m)
	return nil
}

// Flatten is ProfileConverter::flattenProfile (--convert-sample-profile-layout=flat):
// a CS profile becomes one profile per function, its contexts merged; in a
// non-CS profile every inlinee becomes a top-level profile of its own, its
// samples at the callsite turned into body and call-target samples.
func (p *Profile) Flatten(llvm llvmrelease.Release) {
	m := p.llvmMap(llvm)
	out := newLLVMMap(m.llvm)
	for _, fs := range m.funcs() {
		if p.CS {
			dst, _ := out.getOrCreate(fs.Name, nil)
			dst.mergeKeep(fs)
		} else {
			out.flattenNested(fs)
		}
	}
	p.CS = false
	p.setMap(out)
}

// flattenNested is ProfileConverter::flattenNestedProfile.
func (m *llvmMap) flattenNested(fs *FunctionSamples) {
	probe := FunctionSamples{Name: fs.Name}
	k := m.key(&probe)
	dst := m.find(k)
	if dst == nil {
		dst = fs.Clone()
		dst.Context = nil
		dst.Callsites = nil
		dst.TotalSamples = 0
		m.insert(k, dst)
	} else {
		var ovf bool
		for i := range fs.Body {
			b := dst.BodyAt(fs.Body[i].Loc)
			b.Samples, _ = satMulAdd(b.Samples, fs.Body[i].Samples, 1)
			b.addCalls(fs.Body[i].Calls, 1, &ovf)
		}
	}
	total := fs.TotalSamples
	for _, c := range fs.Callsites {
		est := c.Callee.headEstimate(false)
		b := dst.BodyAt(c.Loc)
		b.Samples, _ = satMulAdd(b.Samples, est, 1)
		b.AddCall(c.Callee.Name, est)
		total = total - min(total, c.Callee.TotalSamples)
		total += est
		m.flattenNested(c.Callee)
	}
	dst.TotalSamples, _ = satMulAdd(dst.TotalSamples, total, 1)
	dst.HeadSamples = dst.headEstimate(false)
}

// frameNode is a node of ProfileConverter's context trie: a function
// called at loc of its parent, the profile of that context if there is
// one, and the children in a std::map ordered by callsite hash (the order
// they are nested in).
type frameNode struct {
	fn       FunctionID
	loc      LineLocation
	fs       *FunctionSamples
	children map[uint64]*frameNode
}

// child is FrameNode::getOrCreateChildFrame.
// md5 is FunctionID.MD5 or a cache of it.
func (n *frameNode) child(loc LineLocation, fn FunctionID, llvm llvmrelease.Release, md5 func(FunctionID) uint64) *frameNode {
	k := callsiteHash(fn, loc, llvm, md5)
	if c, ok := n.children[k]; ok {
		return c
	}
	if n.children == nil {
		n.children = map[uint64]*frameNode{}
	}
	c := &frameNode{fn: fn, loc: loc}
	n.children[k] = c
	return c
}

// callsiteHash is FunctionSamples::getCallSiteHash: LLVM 19 and 22 hash
// the callee and location as a context frame; LLVM 16 combines
// std::hash<std::string> of the name with line<<32 | discriminator.
func callsiteHash(fn FunctionID, loc LineLocation, llvm llvmrelease.Release, md5 func(FunctionID) uint64) uint64 {
	if !llvm.SampleMapHashesMD5() {
		var buf [64]byte
		name := stdunordered.HashBytes(fn.appendTo(buf[:0]))
		id := uint64(loc.Line)<<32 | uint64(loc.Disc)
		return name + id<<5 + id
	}
	return frameHash(Frame{Func: fn, Loc: loc}, llvm, md5)
}

// NestOptions say what NestContexts does.
type NestOptions struct {
	// MergedBase also merges every nested context into its function's
	// base profile, marking the inlinee ContextDuplicatedIntoBase
	// (-generate-merged-base-profiles).
	MergedBase bool
	// Release is the release whose map order to follow (0 means llvmrelease.Default).
	Release llvmrelease.Release
}

// NestContexts is ProfileConverter::convertCSProfiles
// (--convert-sample-profile-layout=nest, llvm-profgen's
// --gen-cs-nested-profile): a flat CS profile becomes a nested non-CS one.
// The profile of each context is nested into its caller context's as the
// inlinee at the call (whose call target and body samples there are
// removed); a context without a caller profile becomes the top-level
// profile of its function, merged with the others of that function.
func (p *Profile) NestContexts(o NestOptions) {
	if !p.CS {
		return
	}
	m := p.llvmMap(o.Release)
	var root frameNode
	for _, fs := range m.funcs() {
		n := &root
		var loc LineLocation
		for _, f := range fs.Context {
			n = n.child(loc, f.Func, m.llvm, m.md5)
			loc = f.Loc
		}
		n.fs = fs
	}
	m.nest(&root, o.MergedBase)
	p.CS = false
	p.setMap(m)
}

func (m *llvmMap) nest(n *frameNode, mergedBase bool) {
	parent := n.fs
	for _, k := range slices.Sorted(maps.Keys(n.children)) {
		c := n.children[k]
		m.nest(c, mergedBase)
		child := c.fs
		if child == nil {
			continue
		}
		origKey := m.key(child)
		child.Context = nil
		if parent != nil {
			idx, found := parent.calleeIndex(c.loc, child.Name)
			if !found {
				parent.Callsites = slices.Insert(parent.Callsites, idx, Callsite{Loc: c.loc, Callee: child.Clone()})
			}
			parent.TotalSamples, _ = satMulAdd(parent.TotalSamples, child.TotalSamples, 1)
			n := parent.removeCallAndBody(c.loc, child.Name)
			parent.TotalSamples -= min(parent.TotalSamples, n)
		}
		var newKey uint64
		if parent == nil || mergedBase {
			dst, isNew := m.getOrCreate(child.Name, nil)
			if isNew {
				dst.Attributes = child.Attributes
			}
			dst.mergeKeep(child)
			newKey = m.key(dst)
			if parent != nil {
				parent.CalleeAt(c.loc, child.Name).Attributes |= ContextDuplicatedIntoBase
			}
		}
		if newKey != origKey {
			m.erase(origKey)
		}
	}
}

// removeCallAndBody is removeCalledTargetAndBodySample: it removes the
// call target fn at loc and as many body samples there, dropping the body
// sample if none are left, and returns how many were removed.
func (fs *FunctionSamples) removeCallAndBody(loc LineLocation, fn FunctionID) uint64 {
	i, found := searchLoc(fs.Body, loc, bodyLoc)
	if !found {
		return 0
	}
	b := &fs.Body[i]
	var n uint64
	if j := slices.IndexFunc(b.Calls, func(c CallTarget) bool { return c.Func == fn }); j >= 0 {
		n = b.Calls[j].Count
		b.Calls = slices.Delete(b.Calls, j, j+1)
	}
	n = min(n, b.Samples)
	b.Samples -= n
	if b.Samples == 0 {
		fs.Body = slices.Delete(fs.Body, i, i+1)
	}
	return n
}
