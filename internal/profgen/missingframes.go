package profgen

import (
	"cmp"
	"math"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/perfscript"
)

// missingFrames is llvm-profgen's MissingFrameInferrer: the call and
// tail-call edges the trace took, from the binary's call and tail-call
// sites, and the unique tail-call paths that fill in the frames tail calls
// leave out of a context.
type missingFrames struct {
	bin *perfscript.Binary
	// calls and tailCalls map a call (tail-call) site to the functions its
	// sampled branches went to, in the order of their first address.
	calls, tailCalls map[uint64][]*perfscript.Function
	tailTargets      map[*perfscript.Function]bool
	// funcTailCalls are each function's tail-call sites, ascending.
	funcTailCalls map[*perfscript.Function][]uint64
	unique        map[[2]*perfscript.Function][]uint64
	nonUnique     map[[2]*perfscript.Function]uint64
	visiting      map[*perfscript.Function]bool
	// depth is the search's current depth, maxDepth its bound
	// (CurSearchingDepth, --max-search-depth).
	depth, maxDepth uint32
}

// newMissingFrames is MissingFrameInferrer::initialize with the branches
// of every context.
func newMissingFrames(bin *perfscript.Binary, cs *CSCounters) *missingFrames {
	staticCalls, staticTails := bin.CallSites()
	m := &missingFrames{bin: bin, calls: map[uint64][]*perfscript.Function{}, tailCalls: map[uint64][]*perfscript.Function{},
		tailTargets: map[*perfscript.Function]bool{}, funcTailCalls: map[*perfscript.Function][]uint64{},
		unique: map[[2]*perfscript.Function][]uint64{}, nonUnique: map[[2]*perfscript.Function]uint64{},
		maxDepth: math.MaxUint32 - 1}
	seenCall, seenTail := map[[2]uint64]bool{}, map[[2]uint64]bool{}
	var callKeys, tailKeys [][2]uint64
	for _, c := range cs.Counters {
		for k := range c.Branches {
			if staticCalls[k[0]] && !seenCall[k] {
				seenCall[k] = true
				callKeys = append(callKeys, k)
			}
			if staticTails[k[0]] && !seenTail[k] && bin.FuncRangeAt(k[0]) != bin.FuncRangeAt(k[1]) {
				seenTail[k] = true
				tailKeys = append(tailKeys, k)
			}
		}
	}
	sortPairs := func(s [][2]uint64) {
		slices.SortFunc(s, func(a, b [2]uint64) int {
			if c := cmp.Compare(a[0], b[0]); c != 0 {
				return c
			}
			return cmp.Compare(a[1], b[1])
		})
	}
	sortPairs(callKeys)
	sortPairs(tailKeys)
	add := func(m map[uint64][]*perfscript.Function, from uint64, fn *perfscript.Function) {
		if !slices.Contains(m[from], fn) {
			m[from] = append(m[from], fn)
		}
	}
	for _, k := range callKeys {
		if to := bin.FuncRangeAt(k[1]); to != nil {
			add(m.calls, k[0], to.Func)
		}
	}
	for _, k := range tailKeys {
		if to := bin.FuncRangeAt(k[1]); to != nil {
			add(m.tailCalls, k[0], to.Func)
			m.tailTargets[to.Func] = true
		}
		if from := bin.FuncRangeAt(k[0]); from != nil {
			l := m.funcTailCalls[from.Func]
			if len(l) == 0 || l[len(l)-1] != k[0] {
				m.funcTailCalls[from.Func] = append(l, k[0])
			}
		}
	}
	return m
}

// pathFromFunc is computeUniqueTailCallPath from a function: the number of
// tail-call paths to `to` (0, 1, or more), the unique one appended to path.
func (m *missingFrames) pathFromFunc(from, to *perfscript.Function, path []uint64) (uint64, []uint64) {
	if from == to {
		return 1, path
	}
	if m.visiting[from] {
		return 0, path
	}
	key := [2]*perfscript.Function{from, to}
	if p, ok := m.unique[key]; ok {
		return 1, append(path, p...)
	}
	if n, ok := m.nonUnique[key]; ok {
		return n, path
	}
	pos := len(path)
	if m.depth == m.maxDepth {
		// At the bound: no path, and nothing cached.
		return 0, path
	}
	sites := m.funcTailCalls[from]
	if len(sites) == 0 {
		return 0, path
	}
	m.visiting[from] = true
	m.depth++
	n, path := countPaths(sites, path, func(site uint64, path []uint64) (uint64, []uint64) { return m.pathFromSite(site, to, path) })
	m.depth--
	delete(m.visiting, from)
	if n != 1 {
		path = path[:pos]
		m.nonUnique[key] = n
	} else {
		m.unique[key] = slices.Clone(path[pos:])
	}
	return n, path
}

// pathFromSite is computeUniqueTailCallPath from a tail-call site.
func (m *missingFrames) pathFromSite(from uint64, to *perfscript.Function, path []uint64) (uint64, []uint64) {
	targets, ok := m.tailCalls[from]
	if !ok {
		return 0, path
	}
	path = append(path, from)
	pos := len(path)
	n, path := countPaths(targets, path, func(t *perfscript.Function, path []uint64) (uint64, []uint64) { return m.pathFromFunc(t, to, path) })
	if n != 1 {
		path = path[:pos-1]
	}
	return n, path
}

// infer is inferMissingFrames for one pair of frames: from, then the
// tail-call sites of the unique path from its callee to to's function.
func (m *missingFrames) infer(from, to uint64, path []uint64) []uint64 {
	path = append(path, from)
	pos := len(path)
	toRange := m.bin.FuncRangeAt(to)
	if toRange == nil {
		return path
	}
	callees, ok := m.calls[from]
	if !ok || slices.Contains(callees, toRange.Func) || !m.tailTargets[toRange.Func] {
		return path
	}
	m.visiting, m.depth = map[*perfscript.Function]bool{}, 0
	n, path := countPaths(callees, path, func(c *perfscript.Function, path []uint64) (uint64, []uint64) {
		return m.pathFromFunc(c, toRange.Func, path)
	})
	if n != 1 {
		path = path[:pos]
	}
	return path
}

// inferContext is inferMissingFrames of a whole context (call sites root
// first, then the leaf address).
func (m *missingFrames) inferContext(ctx []uint64) []uint64 {
	if len(ctx) == 1 {
		return slices.Clone(ctx)
	}
	var out []uint64
	for i := 1; i < len(ctx); i++ {
		out = m.infer(ctx[i-1], ctx[i], out)
	}
	return append(out, ctx[len(ctx)-1])
}

// countPaths sums the paths found from each item, stopping once there is
// more than one (a unique path is all the inferrer wants).
func countPaths[T any](items []T, path []uint64, from func(T, []uint64) (uint64, []uint64)) (uint64, []uint64) {
	var n uint64
	for _, it := range items {
		var k uint64
		k, path = from(it, path)
		if n += k; n > 1 {
			break
		}
	}
	return n, path
}
