package profgen

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/perfscript"
)

// Unwinder is llvm-profgen's VirtualUnwinder for DWARF-based CSSPGO: it
// collects the hybrid samples of a trace (Add is a
// perfscript.Options.HybridSample), aggregated by (call stack, LBR stack)
// as HybridPerfReader does, and Unwind replays each distinct sample's LBR
// entries against its call stack into range and branch counters keyed by
// the symbolized calling context.
type Unwinder struct {
	bin *perfscript.Binary
	sym *symbols
	// samples maps the encoding of a distinct sample (stack length, stack,
	// then LBR source/target pairs, little-endian u64s) to its count.
	samples map[string]uint64
	buf     []byte
	// Options of the context keys.
	opts ContextOptions
	// probes: the binary has pseudo probes, contexts are call addresses
	// (probeunwind.go).
	probes bool
}

// ContextOptions are the switches that shape calling contexts.
type ContextOptions struct {
	// MaxContextDepth keeps the last K frames of a context's non-leaf part
	// (--csprof-max-context-depth; negative: no limit).
	MaxContextDepth int
	// MaxCompressionSize is the longest repeated frame sequence that
	// recursion compression removes (--compress-recursion; negative: no
	// limit, 0: none).
	MaxCompressionSize int
}

// DefaultContextOptions are llvm-profgen's defaults (both unlimited).
var DefaultContextOptions = ContextOptions{MaxContextDepth: -1, MaxCompressionSize: -1}

// NewUnwinder returns an unwinder for the binary and its symbolizer.
func NewUnwinder(bin *perfscript.Binary, sym Symbolizer, opts ContextOptions) *Unwinder {
	return &Unwinder{bin: bin, sym: newSymbols(sym), samples: map[string]uint64{}, opts: opts, probes: bin.PseudoProbes}
}

// Add aggregates one hybrid sample (the signature of
// perfscript.Options.HybridSample).
func (u *Unwinder) Add(stack []uint64, lbr []perfscript.Branch, count uint64) {
	b := u.buf[:0]
	b = binary.LittleEndian.AppendUint64(b, uint64(len(stack)))
	for _, a := range stack {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	for _, e := range lbr {
		b = binary.LittleEndian.AppendUint64(b, e.Source)
		b = binary.LittleEndian.AppendUint64(b, e.Target)
	}
	u.buf = b
	u.samples[string(b)] += count
}

// Context is one calling context of a CS counter: frames root first,
// discriminators already base discriminators, the leaf's location (0, 0).
type Context []frame

// String is SampleContext::getContextString: "main:3 @ foo:2.1 @ bar".
func (c Context) String() string {
	var sb strings.Builder
	for i, f := range c {
		if i > 0 {
			sb.WriteString(" @ ")
		}
		sb.WriteString(f.name)
		if i < len(c)-1 {
			sb.WriteByte(':')
			sb.WriteString(strconv.FormatUint(uint64(f.line), 10))
			if f.disc != 0 {
				sb.WriteByte('.')
				sb.WriteString(strconv.FormatUint(uint64(f.disc), 10))
			}
		}
	}
	return sb.String()
}

// ContextCounter is the range and branch counter of one context.
type ContextCounter struct {
	Context Context
	// WasLeafInlined: the leaf address of the first stack that produced the
	// context had inline frames.
	WasLeafInlined bool
	Ranges         map[[2]uint64]uint64
	Branches       map[[2]uint64]uint64
	// Addrs is the context of a probe binary (Context is then empty): the
	// call instructions' addresses, root first, recursion compressed and
	// trimmed (AddrBasedCtxKey).
	Addrs []uint64
}

// CSCounters are the context-sensitive counters of a hybrid trace
// (llvm-profgen's ContextSampleCounterMap for DWARF-based CS profiles).
type CSCounters struct {
	// Counters in ascending order of their context strings.
	Counters []*ContextCounter
	// Probes: the contexts are call addresses (ContextCounter.Addrs).
	Probes bool
}

// trieFrame is UnwindState::ProfiledFrame: a node of the call-stack trie
// of one sample, with the ranges and branches recorded on it.
type trieFrame struct {
	addr     uint64
	parent   *trieFrame
	children map[uint64]*trieFrame
	order    []uint64 // children in creation order (deterministic walks)
	ranges   [][3]uint64
	branches [][3]uint64
}

func (f *trieFrame) child(addr uint64) *trieFrame {
	if c, ok := f.children[addr]; ok {
		return c
	}
	if f.children == nil {
		f.children = map[uint64]*trieFrame{}
	}
	c := &trieFrame{addr: addr, parent: f}
	f.children[addr] = c
	f.order = append(f.order, addr)
	return c
}

func (f *trieFrame) recordRange(start, end, n uint64) {
	if start > end {
		return
	}
	f.ranges = append(f.ranges, [3]uint64{start, end, n})
}

// unwindState is UnwindState.
type unwindState struct {
	root    trieFrame
	leaf    *trieFrame
	lbr     []perfscript.Branch
	i       int
	ip      uint64 // InstPtr.Address
	invalid bool
}

func (s *unwindState) switchTo(addr uint64) {
	if s.leaf.addr != addr {
		s.leaf = s.leaf.parent.child(addr)
	}
}

// unwindStats are VirtualUnwinder's counts for its warnings.
type unwindStats struct {
	totalBranches, mismatchedProEpi, mismatchedExtCall, unpairedExt, pairedExt uint64
	untracked                                                                  map[uint64]struct{}
}

// Unwind unwinds every distinct sample and returns the counters by
// context; warn receives llvm-profgen's unwinder warnings.
func (u *Unwinder) Unwind(warn func(string)) (*CSCounters, error) {
	keys := make([]string, 0, len(u.samples))
	for k := range u.samples {
		keys = append(keys, k)
	}
	// LLVM walks its DenseMap; the counters are sums, so any order gives
	// the same result but WasLeafInlined of a context two stacks share:
	// sorting keeps that deterministic.
	slices.Sort(keys)
	st := &unwindStats{untracked: map[uint64]struct{}{}}
	byKey := map[string]*ContextCounter{}
	var stack []uint64
	var lbr []perfscript.Branch
	for _, k := range keys {
		stack, lbr = decodeSample(k, stack[:0], lbr[:0])
		if err := u.unwind(stack, lbr, u.samples[k], st, byKey); err != nil {
			return nil, err
		}
	}
	cs := &CSCounters{Probes: u.probes}
	for _, c := range byKey {
		cs.Counters = append(cs.Counters, c)
	}
	strs := make(map[*ContextCounter]string, len(cs.Counters))
	for _, c := range cs.Counters {
		strs[c] = c.Context.String()
	}
	slices.SortFunc(cs.Counters, func(a, b *ContextCounter) int {
		if c := cmp.Compare(strs[a], strs[b]); c != 0 {
			return c
		}
		return slices.Compare(a.Addrs, b.Addrs)
	})
	if warn != nil {
		summary := func(num, total uint64, msg string) {
			if num != 0 && total != 0 {
				warn(fmt.Sprintf("%.2f%%(%d/%d) %s", float64(num)*100/float64(total), num, total, msg))
			}
		}
		summary(uint64(len(st.untracked)), uint64(len(byKey)), "of profiled contexts are truncated due to missing probe for call instruction.")
		summary(st.mismatchedExtCall, st.totalBranches, "of branches'source is a call instruction but doesn't match call frame stack, likely due to unwinding error of external frame.")
		summary(st.pairedExt*2, st.totalBranches, "of branches containing paired external address.")
		summary(st.unpairedExt, st.totalBranches, "of branches containing external address but doesn't have another external address to pair, likely due to interrupt jmp or broken perf script.")
		summary(st.mismatchedProEpi, st.totalBranches, "of branches'source is a call instruction but doesn't match call frame stack, likely due to frame in prolog/epilog.")
	}
	return cs, nil
}

func decodeSample(k string, stack []uint64, lbr []perfscript.Branch) ([]uint64, []perfscript.Branch) {
	b := []byte(k)
	u64 := func() uint64 {
		v := binary.LittleEndian.Uint64(b)
		b = b[8:]
		return v
	}
	n := int(u64())
	for range n {
		stack = append(stack, u64())
	}
	for len(b) > 0 {
		s := u64()
		lbr = append(lbr, perfscript.Branch{Source: s, Target: u64()})
	}
	return stack, lbr
}

// unwind is VirtualUnwinder::unwind for one distinct sample.
func (u *Unwinder) unwind(stack []uint64, lbr []perfscript.Branch, repeat uint64, st *unwindStats, out map[string]*ContextCounter) error {
	s := &unwindState{lbr: lbr, ip: stack[0]}
	cur := &s.root
	for i := len(stack) - 1; i >= 0; i-- {
		cur = cur.child(stack[i])
	}
	s.leaf = cur
	// validateInitialState cannot fail: the stack leaf is LBR[0]'s target.
	st.totalBranches += uint64(len(lbr))
	bin := u.bin
	for s.i = 0; s.i < len(lbr); s.i++ {
		if s.i > 0 {
			if err := u.unwindLinear(s, repeat, st); err != nil {
				return err
			}
		}
		br := lbr[s.i]
		srcExt := br.Source == perfscript.ExternalAddr
		switch {
		case !s.invalid && (bin.IsCall(br.Source) || srcExt && bin.CallAddrFromFrameAddr(br.Target) == 0):
			// unwindCall
			parent := s.leaf.parent
			if parent == &s.root || parent.addr != br.Source {
				s.switchTo(br.Source)
				if parent != &s.root {
					if srcExt {
						st.mismatchedExtCall++
					} else {
						st.mismatchedProEpi++
					}
				}
			} else {
				s.leaf = parent
			}
			s.ip = br.Source
		case !s.invalid && (bin.IsReturn(br.Source) || srcExt):
			// unwindReturn (an external source here returns to after a call)
			s.switchTo(bin.CallAddrFromFrameAddr(br.Target))
			s.leaf = s.leaf.child(br.Source)
			s.ip = br.Source
		case !s.invalid:
			// unwindBranch
			s.switchTo(br.Source)
			s.ip = br.Source
		default:
			// Context-less from here on.
			s.leaf = &s.root
			s.ip = br.Source
			s.leaf = s.leaf.child(s.ip)
		}
		// recordBranchCount, on the state after unwinding.
		switch {
		case br.Target == perfscript.ExternalAddr:
		case srcExt:
			s.root.branches = append(s.root.branches, [3]uint64{br.Source, br.Target, repeat})
		case u.probes:
			s.leaf.parent.branches = append(s.leaf.parent.branches, [3]uint64{br.Source, br.Target, repeat})
		default:
			s.leaf.branches = append(s.leaf.branches, [3]uint64{br.Source, br.Target, repeat})
		}
	}
	return u.collect(&s.root, &s.root, nil, st, out)
}

// unwindLinear walks the fall-through range from LBR[i]'s target to the
// current address backwards and records it split by inline context.
func (u *Unwinder) unwindLinear(s *unwindState, repeat uint64, st *unwindStats) error {
	target := s.lbr[s.i].Target
	end := s.ip
	const ext = perfscript.ExternalAddr
	switch {
	case end == ext && target == ext:
		st.pairedExt++
		return nil
	case end == ext || target == ext:
		st.unpairedExt++
		s.invalid = true
		return nil
	case !u.bin.ValidFallThrough(target, end):
		s.invalid = true
		return nil
	case u.probes:
		s.leaf.parent.recordRange(target, end, repeat)
		return nil
	}
	idx := u.bin.InstIndex(s.ip)
	ip := s.ip
	for ip > target {
		prev := ip
		if idx == 0 {
			ip = 0
		} else {
			idx--
			ip, _ = u.bin.Inst(idx)
		}
		same, err := u.inlineContextEqual(prev, ip)
		if err != nil {
			return err
		}
		if !same {
			s.switchTo(prev)
			s.leaf.recordRange(prev, end, repeat)
			end = ip
		}
	}
	s.ip = ip
	s.switchTo(ip)
	s.leaf.recordRange(ip, end, repeat)
	return nil
}

// inlineContextEqual: both addresses have inline frames and all but the
// leaf frame are equal (raw discriminators).
func (u *Unwinder) inlineContextEqual(a, b uint64) (bool, error) {
	s1, err := u.sym.stack(a)
	if err != nil {
		return false, err
	}
	s2, err := u.sym.stack(b)
	if err != nil {
		return false, err
	}
	if len(s1) != len(s2) || len(s1) == 0 {
		return false, nil
	}
	return slices.Equal(s1[:len(s1)-1], s2[:len(s2)-1]), nil
}

// collect is collectSamplesFromFrameTrie: a depth-first walk over one
// shared stack that adds each frame's samples to the counter of its
// context. An external frame cuts the context: its subtree starts from an
// empty stack. A frame of address 0 (a return to an address no call
// precedes) passes for the dummy root as in llvm-profgen: it pushes no
// frame, and leaving it pops its parent's (LLVM walks children in DenseMap
// order, here in creation order; only this case can tell them apart).
func (u *Unwinder) collect(root, cur *trieFrame, stack *[]uint64, st *unwindStats, out map[string]*ContextCounter) error {
	if stack == nil {
		stack = new([]uint64)
	}
	if cur != root && cur.addr != 0 {
		if cur.addr == perfscript.ExternalAddr {
			empty := new([]uint64)
			if err := u.collectFrame(cur, *empty, out); err != nil {
				return err
			}
			for _, a := range cur.order {
				if err := u.collect(root, cur.children[a], empty, st, out); err != nil {
					return err
				}
			}
			if len(cur.children) > 0 {
				st.untracked[cur.addr] = struct{}{}
			}
			return nil
		}
		*stack = append(*stack, cur.addr)
	}
	if err := u.collectFrame(cur, *stack, out); err != nil {
		return err
	}
	for _, a := range cur.order {
		if err := u.collect(root, cur.children[a], stack, st, out); err != nil {
			return err
		}
	}
	if n := len(*stack); n > 0 {
		*stack = (*stack)[:n-1]
	}
	return nil
}

// collectFrame is collectSamplesFromFrame.
func (u *Unwinder) collectFrame(f *trieFrame, stack []uint64, out map[string]*ContextCounter) error {
	if len(f.ranges) == 0 && len(f.branches) == 0 {
		return nil
	}
	if u.probes {
		u.collectProbeFrame(f, stack, out)
		return nil
	}
	ctx, inlined, err := u.expandedContext(stack)
	if err != nil {
		return err
	}
	k := ctxKey(ctx)
	c := out[k]
	if c == nil {
		c = &ContextCounter{Context: ctx, WasLeafInlined: inlined, Ranges: map[[2]uint64]uint64{}, Branches: map[[2]uint64]uint64{}}
		out[k] = c
	}
	for _, r := range f.ranges {
		c.Ranges[[2]uint64{r[0], r[1]}] += r[2]
	}
	for _, b := range f.branches {
		c.Branches[[2]uint64{b[0], b[1]}] += b[2]
	}
	return nil
}

func ctxKey(c Context) string {
	var b []byte
	for _, f := range c {
		b = append(b, f.name...)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint32(b, f.line)
		b = binary.LittleEndian.AppendUint32(b, f.disc)
	}
	return string(b)
}

// expandedContext is ProfiledBinary::getExpandedContext: each address's
// inline frames, root first, concatenated; empty if any address has none;
// base discriminators; the leaf's location cleared; recursion compressed
// and the depth trimmed in the non-leaf part.
func (u *Unwinder) expandedContext(stack []uint64) (Context, bool, error) {
	if len(stack) == 0 {
		return Context{}, false, nil
	}
	var ctx Context
	inlined := false
	for _, a := range stack {
		fr, err := u.sym.stack(a)
		if err != nil {
			return nil, false, err
		}
		if len(fr) == 0 {
			return Context{}, inlined, nil
		}
		inlined = len(fr) > 1
		ctx = append(ctx, fr...)
	}
	fs := u.bin.FSDiscriminator
	for i := range ctx {
		if !fs {
			ctx[i].disc = prefixDecode(ctx[i].disc)
		}
	}
	leaf := ctx[len(ctx)-1]
	leaf.line, leaf.disc = 0, 0
	ctx = compressRecursion(ctx[:len(ctx)-1], u.opts.MaxCompressionSize)
	ctx = trimContext(ctx, u.opts.MaxContextDepth)
	return append(ctx, leaf), inlined, nil
}

// trimContext keeps the last depth elements (negative: all).
func trimContext[T any](s []T, depth int) []T {
	if depth < 0 || depth >= len(s) {
		return s
	}
	copy(s, s[len(s)-depth:])
	return s[:depth]
}

// compressRecursion is CSProfileGenerator::compressRecursionContext: for
// each length n from 1 up to the limit (csize; negative: half the
// context), adjacent repeats of a sequence of n elements are removed, by
// its sliding-window algorithm.
func compressRecursion[T comparable](c []T, csize int) []T {
	half := len(c) / 2
	maxDedup := half
	if csize >= 0 && csize < half {
		maxDedup = csize
	}
	for i := 1; i <= maxDedup; i++ {
		right := i - 1
		end := i
		leftBoundary := 0
		for right+i < len(c) {
			left := right
			for left >= leftBoundary && c[left] == c[left+i] {
				left--
			}
			dup := left < leftBoundary
			leftBoundary = right + 1
			if dup {
				right += i
			} else {
				copy(c[end:], c[right+1:left+i+1])
				end += left + i - right
				right = left + i
			}
		}
		copy(c[end:], c[right+1:])
		end += len(c) - right - 1
		c = c[:end]
		maxDedup = min(end/2, maxDedup)
	}
	return c
}

// WriteUnsymbolized writes the counters as llvm-profgen --skip-symbolization
// writes a CS profile: "[context]" lines, each followed by its ranges and
// branches indented by two spaces, addresses as offsets from base.
func (cs *CSCounters) WriteUnsymbolized(w io.Writer, base uint64) error {
	bw := bufio.NewWriter(w)
	if cs.Probes {
		return cs.writeProbeUnsymbolized(bw, base)
	}
	for _, c := range cs.Counters {
		bw.WriteString("[" + c.Context.String() + "]\n")
		writeIndented(bw, c.Ranges, "-", base)
		writeIndented(bw, c.Branches, "->", base)
	}
	return bw.Flush()
}

func writeIndented(w *bufio.Writer, m map[[2]uint64]uint64, sep string, base uint64) {
	keys := sortedPairs(m)
	fmt.Fprintf(w, "  %d\n", len(keys))
	for _, k := range keys {
		fmt.Fprintf(w, "  %x%s%x:%d\n", k[0]-base, sep, k[1]-base, m[k])
	}
}

// sortedPairs returns m's keys in ascending order (std::map's).
func sortedPairs(m map[[2]uint64]uint64) [][2]uint64 {
	keys := make([][2]uint64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]uint64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	return keys
}
