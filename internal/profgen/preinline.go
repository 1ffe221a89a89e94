package profgen

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/stdheap"
)

// PreInlinerOptions are the switches of llvm-profgen's CSPreInliner. The
// compiler's inliner options it shares (--sample-profile-*) get other
// defaults when the pre-inliner runs and they were not given; those are
// DefaultPreInlinerOptions (the same in LLVM 19 and 22).
type PreInlinerOptions struct {
	// HotCallSiteThreshold (--sample-profile-hot-inline-threshold, 1500)
	// and ColdCallSiteThreshold (--sample-profile-cold-inline-threshold,
	// 0) bound the callee size inlined at hot and cold call sites.
	HotCallSiteThreshold, ColdCallSiteThreshold int
	// InlineGrowthLimit (--sample-profile-inline-growth-limit, 12),
	// InlineLimitMin (--sample-profile-inline-limit-min, 100) and
	// InlineLimitMax (--sample-profile-inline-limit-max, 50000) bound a
	// function's size after inlining: its size × growth limit, clamped.
	InlineGrowthLimit, InlineLimitMin, InlineLimitMax int
	// MultiplierForPrevInlining multiplies the threshold of contexts the
	// profiled binary had inlined
	// (--csspgo-preinliner-multiplier-for-previous-inlining, 100).
	MultiplierForPrevInlining int
	// ReplayPreInline inlines exactly what the profiled binary inlined
	// (--csspgo-replay-preinline).
	ReplayPreInline bool
	// UseContextCost takes sizes from the binary's machine code under each
	// inline context instead of the number of body records
	// (--use-context-cost-for-preinliner, true).
	UseContextCost bool
	// SortProfiledSCC orders the functions of a call-graph cycle by their
	// hottest edges (--sort-profiled-scc-member, true).
	SortProfiledSCC bool
}

// DefaultPreInlinerOptions are llvm-profgen's defaults.
var DefaultPreInlinerOptions = PreInlinerOptions{
	HotCallSiteThreshold: 1500, ColdCallSiteThreshold: 0,
	InlineGrowthLimit: 12, InlineLimitMin: 100, InlineLimitMax: 50000,
	MultiplierForPrevInlining: 100, UseContextCost: true, SortProfiledSCC: true,
}

// Summary cutoffs of the thresholds (--profile-summary-cutoff-cold and
// the 10% cutoff CSPreInliner normalizes hotness with).
const (
	cutoffCold    = 999999
	cutoffHotNorm = 100000
)

// nameHashes caches the MD5 hashes of function names (FunctionId's
// getHashCode in LLVM 19 and 22; LLVM 16 hashed names with
// std::hash<std::string>).
type nameHashes map[string]uint64

// callSite is FunctionSamples::getCallSiteHash: the key of a context-trie
// child, whose order is the order of every walk of the trie (and so the
// order llvm-profgen fills its profile map in).
func (m *nameHashes) callSite(name string, loc sampleprof.LineLocation) uint64 {
	if *m == nil {
		*m = nameHashes{}
	}
	h, ok := (*m)[name]
	if !ok {
		h = llvmname.GUID(name)
		(*m)[name] = h
	}
	id := uint64(loc.Disc)<<32 | uint64(loc.Line)
	return h + id<<5 + id
}

// bfs is SampleContextTracker's iterator: the trie breadth first, root
// included, children in hash order.
func bfs(root *ctxNode, f func(*ctxNode)) {
	queue := []*ctxNode{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		f(n)
		queue = append(queue, n.kids...)
	}
}

// headSamplesEstimate is FunctionSamples::getHeadSamplesEstimate of a
// flat CS profile.
func headSamplesEstimate(fs *sampleprof.FunctionSamples) uint64 {
	if fs.HeadSamples != 0 {
		return fs.HeadSamples
	}
	var n uint64
	if len(fs.Body) > 0 {
		n = fs.Body[0].Samples
	}
	if n == 0 && fs.TotalSamples > 0 {
		n = 1
	}
	return n
}

// callsiteCount is max(call-target count of the callee at the node's
// call site in the caller's profile, the callee's head estimate): the
// weight of a trie edge in ProfiledCallGraph and of a candidate in
// CSPreInliner.
func callsiteCount(caller *sampleprof.FunctionSamples, callee *ctxNode) uint64 {
	var n uint64
	if b := caller.FindBody(callee.callsite); b != nil {
		for _, c := range b.Calls {
			if c.Func == callee.fs.Name {
				n = c.Count
				break
			}
		}
	}
	return max(n, headSamplesEstimate(callee.fs))
}

// sizeTracker is BinarySizeContextTracker: the machine-code bytes of every
// profiled function under each of its inline contexts, in a trie keyed
// from the leaf frame outwards.
type sizeTracker struct {
	root   ctxNode
	hashes *nameHashes
}

// add is addInstructionForContext: stack is the instruction's inline
// frames, outermost first, with raw discriminators.
func (t *sizeTracker) add(stack []frame, size uint32) {
	n := &t.root
	for i := len(stack) - 1; i >= 0; i-- {
		loc := sampleprof.LineLocation{}
		if i < len(stack)-1 {
			loc = sampleprof.LineLocation{Line: stack[i].line, Disc: stack[i].disc}
		}
		h := t.hashes.callSite(stack[i].name, loc)
		c := n.childOf(h)
		if c == nil {
			c = &ctxNode{name: stack[i].name, callsite: loc, hash: h}
			n.insert(c)
		}
		n = c
	}
	n.size += size
	n.hasSize = true
}

// sizeOf is getFuncSizeForContext: the size of the longest match of the
// node's context (leaf first), else of the first descendant (hash order)
// with a size.
func (t *sizeTracker) sizeOf(node *ctxNode) uint32 {
	cur := &t.root
	var prev *ctxNode
	var size uint32
	found := false
	loc := sampleprof.LineLocation{}
	for cur != nil && node.parent != nil {
		prev = cur
		cur = cur.childOf(t.hashes.callSite(node.name, loc))
		if cur != nil && cur.hasSize {
			size, found = cur.size, true
		}
		loc = node.callsite
		node = node.parent
	}
	if !found {
		if cur == nil {
			cur = prev
		}
		for !found && cur != nil && len(cur.kids) > 0 {
			cur = cur.kids[0]
			if cur.hasSize {
				size, found = cur.size, true
			}
		}
	}
	// LLVM asserts that a size is found; a release build reads an empty
	// optional. 0 is what a profile without any sized function gets.
	return size
}

// computeSizes is computeSizeForProfiledFunctions: the functions that the
// counters' range starts and branch ends fall in, every range of each.
func (g *csGenerator) computeSizes(cs *CSCounters) (*sizeTracker, error) {
	t := &sizeTracker{hashes: &g.hashes}
	seen := map[*perfscript.Function]bool{}
	var funcs []*perfscript.Function
	note := func(addr uint64) {
		if fr := g.bin.FuncRangeAt(addr); fr != nil && !seen[fr.Func] {
			seen[fr.Func] = true
			funcs = append(funcs, fr.Func)
		}
	}
	for _, c := range cs.Counters {
		for _, a := range c.Addrs {
			note(a)
		}
		for k := range c.Ranges {
			note(k[0])
		}
		for k := range c.Branches {
			note(k[0])
			note(k[1])
		}
	}
	// The sizes are sums and the trie is ordered by hash: the order of
	// the functions does not matter, but the warnings come sorted.
	slices.SortFunc(funcs, func(a, b *perfscript.Function) int { return cmp.Compare(a.Ranges[0][0], b.Ranges[0][0]) })
	n := g.bin.NumInsts()
	for _, f := range funcs {
		for _, r := range f.Ranges {
			i := g.bin.InstIndex(r[0])
			if i >= n {
				continue
			}
			addr, _ := g.bin.Inst(i)
			if addr != r[0] && g.opts.Warn != nil {
				g.opts.Warn(fmt.Sprintf("Invalid start instruction at %8x", r[0]))
			}
			for ; i < n; i++ {
				addr, size := g.bin.Inst(i)
				if addr >= r[1] {
					break
				}
				s, err := g.sizeStack(addr)
				if err != nil {
					return nil, err
				}
				t.add(s, uint32(size))
			}
		}
		g.trackInlineesOptimizedAway(t, f)
	}
	return t, nil
}

// preInliner is CSPreInliner with the SampleContextTracker state it uses:
// the node of each profile, which profiles were inlined or merged, and
// every profile of a function (FuncToCtxtProfiles).
type preInliner struct {
	g       *csGenerator
	opts    PreInlinerOptions
	sizes   *sizeTracker
	nodeOf  map[*sampleprof.FunctionSamples]*ctxNode
	inlined map[*sampleprof.FunctionSamples]bool
	merged  map[*sampleprof.FunctionSamples]bool
	ofFunc  map[string][]*sampleprof.FunctionSamples
	// cold is the summary's cold count threshold, hotNorm the minimum
	// count of its 10% cutoff.
	cold, hotNorm uint64
}

// preInline runs CSPreInliner on the trie with the thresholds of s, the
// summary of the context-less profile (contextLessSummary).
func (g *csGenerator) preInline(opts PreInlinerOptions, sizes *sizeTracker, s *sampleprof.Summary) error {
	p := &preInliner{g: g, opts: opts, sizes: sizes,
		nodeOf:  map[*sampleprof.FunctionSamples]*ctxNode{},
		inlined: map[*sampleprof.FunctionSamples]bool{},
		merged:  map[*sampleprof.FunctionSamples]bool{},
		ofFunc:  map[string][]*sampleprof.FunctionSamples{}}
	bfs(&g.root, func(n *ctxNode) {
		if n.fs != nil {
			p.nodeOf[n.fs] = n
			p.ofFunc[n.name] = append(p.ofFunc[n.name], n.fs)
		}
	})
	p.cold, p.hotNorm = s.CountThreshold(cutoffCold), s.CountThreshold(cutoffHotNorm)
	for _, name := range p.topDownOrder() {
		p.processFunction(name)
	}
	// Contexts not inlined were merged into their base profiles.
	bfs(&g.root, func(n *ctxNode) {
		if n.fs != nil && n.parent != &g.root && !p.inlined[n.fs] {
			n.fs = nil
		}
	})
	return nil
}

// size is getFuncSize.
func (p *preInliner) size(n *ctxNode) uint32 {
	if p.opts.UseContextCost {
		return p.sizes.sizeOf(n)
	}
	return uint32(len(n.fs.Body))
}

// candidate is ProfiledInlineCandidate.
type candidate struct {
	node  *ctxNode
	count uint64
	size  uint64
	guid  uint64
}

// less is ProfiledCandidateComparer: the queue's top is its greatest
// element (zero size first, then the hottest, the smallest, the greatest
// GUID).
func (a *candidate) less(b *candidate) bool {
	if (a.size == 0 || b.size == 0) && a.size != b.size {
		return b.size == 0
	}
	if a.count != b.count {
		return a.count < b.count
	}
	if a.size != b.size {
		return a.size > b.size
	}
	return a.guid < b.guid
}

// newCandidateQueue is std::priority_queue<candidate> over libstdc++'s
// heap algorithms (internal/stdheap), so that equal candidates come out in
// LLVM's order.
func newCandidateQueue() *stdheap.Queue[candidate] {
	return stdheap.New(func(a, b candidate) bool { return a.less(&b) })
}

// candidates is getInlineCandidates: the caller's trie children with
// profiles.
func (p *preInliner) candidates(q *stdheap.Queue[candidate], caller *sampleprof.FunctionSamples) {
	for _, c := range p.nodeOf[caller].kids {
		if c.fs == nil {
			continue
		}
		q.Push(candidate{node: c, count: callsiteCount(caller, c), size: uint64(p.size(c)), guid: c.fs.Name.MD5()})
	}
}

// shouldInline is CSPreInliner::shouldInline.
func (p *preInliner) shouldInline(c *candidate) bool {
	wasInlined := c.node.fs.Attributes&sampleprof.ContextWasInlined != 0
	if p.opts.ReplayPreInline {
		return wasInlined
	}
	threshold := uint32(p.opts.ColdCallSiteThreshold)
	if c.count > p.cold {
		lo, hi := float64(p.cold), float64(p.hotNorm)
		hotness := (float64(c.count) - lo) / (hi - lo)
		if hotness > 1 {
			hotness = 1
		}
		// int × double × int + int + 1 (hot call sites get a nonzero
		// threshold), converted to unsigned as x86-64 does.
		threshold = uint32(int64(float64(p.opts.HotCallSiteThreshold)*hotness*100 + float64(p.opts.ColdCallSiteThreshold) + 1))
		if wasInlined {
			threshold *= uint32(p.opts.MultiplierForPrevInlining)
		}
	}
	return c.size < uint64(threshold)
}

// processFunction is CSPreInliner::processFunction.
func (p *preInliner) processFunction(name string) {
	fs := p.baseSamples(name)
	if fs == nil {
		return
	}
	size := p.size(p.nodeOf[fs])
	final := size
	limit := size * uint32(p.opts.InlineGrowthLimit)
	limit = min(limit, uint32(p.opts.InlineLimitMax))
	limit = max(limit, uint32(p.opts.InlineLimitMin))
	q := newCandidateQueue()
	p.candidates(q, fs)
	for q.Len() > 0 && final < limit {
		c := q.Pop()
		if p.shouldInline(&c) {
			p.inlined[c.node.fs] = true
			c.node.fs.Attributes |= sampleprof.ContextShouldBeInlined
			final += uint32(c.size)
			p.candidates(q, c.node.fs)
		}
	}
}

// baseSamples is getBaseSamplesFor with MergeContext: every context of
// the function that was neither inlined nor merged yet is promoted to the
// top level and merged there.
func (p *preInliner) baseSamples(name string) *sampleprof.FunctionSamples {
	g := p.g
	node := g.root.childOf(g.hashes.callSite(name, sampleprof.LineLocation{}))
	for _, fs := range p.ofFunc[name] {
		if p.inlined[fs] || p.merged[fs] {
			continue
		}
		from := p.nodeOf[fs]
		if from == node {
			continue
		}
		node = p.promoteMerge(from, &g.root)
	}
	if node == nil {
		return nil
	}
	return node.fs
}

// promoteMerge is promoteMergeContextSamplesTree: from moves under
// toParent (at the top level, or at its own call site below), or is
// merged into the node already there with its subtree.
func (p *preInliner) promoteMerge(from, toParent *ctxNode) *ctxNode {
	g := p.g
	toRoot := toParent == &g.root
	oldLoc, oldParent := from.callsite, from.parent
	loc := sampleprof.LineLocation{}
	if !toRoot {
		loc = oldLoc
	}
	h := g.hashes.callSite(from.name, loc)
	to := toParent.childOf(h)
	if to == nil {
		// moveContextSamples: the subtree moves as it is.
		moved := *from
		moved.callsite, moved.hash = loc, h
		moved.kids = slices.Clone(from.kids)
		to = &moved
		toParent.insert(to)
		bfs(to, func(n *ctxNode) {
			for _, c := range n.kids {
				c.parent = n
			}
			if n.fs != nil {
				p.nodeOf[n.fs] = n
			}
		})
	} else {
		p.mergeNode(from, to)
		for _, c := range from.kids {
			p.promoteMerge(c, to)
		}
		from.kids = nil
	}
	if toRoot {
		oldParent.remove(g.hashes.callSite(to.name, oldLoc))
	}
	return to
}

// mergeNode is mergeContextNode.
func (p *preInliner) mergeNode(from, to *ctxNode) {
	switch {
	case from.fs != nil && to.fs != nil:
		attrs := to.fs.Attributes
		// Counts saturate as LLVM's do; the overflow error is LLVM's to
		// ignore too.
		_ = to.fs.Merge(from.fs, 1)
		to.fs.Attributes = attrs | from.fs.Attributes&sampleprof.ContextShouldBeInlined
		p.merged[from.fs] = true
	case from.fs != nil:
		to.fs = from.fs
		p.nodeOf[from.fs] = to
	}
}

// cgNode is a ProfiledCallGraphNode: a function and its call edges, kept
// in the order of the callee names (a std::set by name).
type cgNode struct {
	name  string
	edges []cgEdge
}

type cgEdge struct {
	src, dst *cgNode
	weight   uint64
}

// edge returns the index of the edge to name, or where it goes.
func (n *cgNode) edge(name string) (int, bool) {
	return slices.BinarySearchFunc(n.edges, name, func(e cgEdge, name string) int { return cmp.Compare(e.dst.name, name) })
}

// callGraph is ProfiledCallGraph built from the context trie: an edge for
// every trie parent and child, weighted by callsiteCount (summed over the
// contexts, as LLVM 22 does), the edges up to the cold threshold removed.
type callGraph struct {
	root  cgNode
	nodes map[string]*cgNode
}

func (p *preInliner) callGraph() *callGraph {
	cg := &callGraph{nodes: map[string]*cgNode{}}
	add := func(name string) *cgNode {
		n := cg.nodes[name]
		if n == nil {
			n = &cgNode{name: name}
			cg.nodes[name] = n
			i, _ := cg.root.edge(name)
			cg.root.edges = slices.Insert(cg.root.edges, i, cgEdge{&cg.root, n, 0})
		}
		return n
	}
	for _, c := range p.g.root.kids {
		add(c.name)
	}
	queue := slices.Clone(p.g.root.kids)
	for len(queue) > 0 {
		caller := queue[0]
		queue = queue[1:]
		for _, callee := range caller.kids {
			add(callee.name)
			queue = append(queue, callee)
			var w uint64
			if callee.fs != nil && caller.fs != nil {
				w = callsiteCount(caller.fs, callee)
			}
			src := cg.nodes[caller.name]
			if i, ok := src.edge(callee.name); ok {
				src.edges[i].weight += w
			} else {
				src.edges = slices.Insert(src.edges, i, cgEdge{src, cg.nodes[callee.name], w})
			}
		}
	}
	if p.cold != 0 {
		for _, n := range cg.nodes {
			n.edges = slices.DeleteFunc(n.edges, func(e cgEdge) bool { return e.weight <= p.cold })
		}
	}
	return cg
}

// topDownOrder is buildTopDownOrder: the SCCs of the call graph in
// reverse (callers first), the members of each ordered by
// sortSCCMembers.
func (p *preInliner) topDownOrder() []string {
	cg := p.callGraph()
	var order []string
	for _, scc := range sccs(&cg.root) {
		if p.opts.SortProfiledSCC {
			scc = sortSCCMembers(scc)
		}
		for _, n := range scc {
			if n != &cg.root {
				order = append(order, n.name)
			}
		}
	}
	slices.Reverse(order)
	return order
}

// sccs is scc_iterator: Tarjan's algorithm as LLVM runs it (iterative
// DFS from the entry node, children in edge order); each SCC lists its
// nodes in the order they leave the stack.
func sccs(entry *cgNode) [][]*cgNode {
	type elem struct {
		node       *cgNode
		next       int
		minVisited uint32
	}
	var (
		visitNum uint32
		num      = map[*cgNode]uint32{}
		nodes    []*cgNode
		stack    []elem
		out      [][]*cgNode
	)
	visit := func(n *cgNode) {
		visitNum++
		num[n] = visitNum
		nodes = append(nodes, n)
		stack = append(stack, elem{n, 0, visitNum})
	}
	visit(entry)
	for len(stack) > 0 {
		for top := &stack[len(stack)-1]; top.next < len(top.node.edges); top = &stack[len(stack)-1] {
			child := top.node.edges[top.next].dst
			top.next++
			v, ok := num[child]
			if !ok {
				visit(child)
				continue
			}
			if top.minVisited > v {
				top.minVisited = v
			}
		}
		n, low := stack[len(stack)-1].node, stack[len(stack)-1].minVisited
		stack = stack[:len(stack)-1]
		if len(stack) > 0 && stack[len(stack)-1].minVisited > low {
			stack[len(stack)-1].minVisited = low
		}
		if low != num[n] {
			continue
		}
		var scc []*cgNode
		for {
			m := nodes[len(nodes)-1]
			nodes = nodes[:len(nodes)-1]
			num[m] = ^uint32(0)
			scc = append(scc, m)
			if m == n {
				break
			}
		}
		out = append(out, scc)
	}
	return out
}

// sortSCCMembers is scc_member_iterator: a maximum spanning forest of the
// SCC's edges (Kruskal, heaviest first, ties in the order of the
// members and their edges; its union-find keeps LLVM's rank quirk), then
// Kahn's walk of it from the roots met along the sorted edges, reversed.
func sortSCCMembers(in []*cgNode) []*cgNode {
	if len(in) <= 1 {
		return in
	}
	type info struct {
		group    int
		rank     uint32
		visited  bool
		incoming map[*cgEdge]bool
	}
	idx := map[*cgNode]int{}
	infos := make([]info, len(in))
	for i, n := range in {
		idx[n] = i
		infos[i] = info{group: i, incoming: map[*cgEdge]bool{}}
	}
	var sorted []*cgEdge
	for _, n := range in {
		for i := range n.edges {
			if _, ok := idx[n.edges[i].dst]; ok {
				sorted = append(sorted, &n.edges[i])
			}
		}
	}
	slices.SortStableFunc(sorted, func(a, b *cgEdge) int { return cmp.Compare(b.weight, a.weight) })
	var find func(i int) int
	find = func(i int) int {
		if infos[i].group != i {
			infos[i].group = find(infos[i].group)
		}
		return infos[i].group
	}
	mst := map[*cgEdge]bool{}
	for _, e := range sorted {
		g1, g2 := find(idx[e.src]), find(idx[e.dst])
		if g1 == g2 {
			continue
		}
		// LLVM compares G1's rank with itself: G2 always joins G1, and a
		// tie raises G2's rank.
		infos[g2].group = g1
		if infos[g1].rank == infos[g2].rank {
			infos[g2].rank++
		}
		mst[e] = true
	}
	for e := range mst {
		infos[idx[e.dst]].incoming[e] = true
	}
	var queue []*cgNode
	for _, e := range sorted {
		s := &infos[idx[e.src]]
		if !s.visited && len(s.incoming) == 0 {
			queue = append(queue, e.src)
			s.visited = true
		}
	}
	var out []*cgNode
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		out = append(out, n)
		for i := range n.edges {
			e := &n.edges[i]
			j, ok := idx[e.dst]
			if !ok {
				continue
			}
			delete(infos[j].incoming, e)
			if mst[e] && len(infos[j].incoming) == 0 {
				queue = append(queue, e.dst)
			}
		}
	}
	slices.Reverse(out)
	return out
}
