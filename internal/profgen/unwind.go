package profgen

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/hashtab"
	"github.com/rules-pgo/rules_pgo/internal/hugemem"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
)

// Unwinder is llvm-profgen's VirtualUnwinder for DWARF-based CSSPGO: it
// takes the hybrid samples of a trace (Add is a
// perfscript.Options.HybridSample) and replays each sample's LBR entries
// against its call stack into range and branch counters keyed by the
// symbolized calling context.
//
// llvm-profgen first aggregates the whole trace by (call stack, LBR stack)
// and then unwinds each distinct sample once with its count. The counters
// are sums, so the Unwinder streams instead: Add appends samples to a
// batch of about batchBytes, and a full batch is aggregated and unwound on
// another goroutine while the parser fills the next one (one batch at a
// time, in order: the result does not depend on scheduling). Memory is
// the counters and two batches, not the trace. What depends on the order
// is kept as llvm-profgen's aggregation in ascending sample order gives
// it: the unwinder's warning counts are taken once per distinct sample
// (the first occurrence, which the parser reports), and a context's
// WasLeafInlined is that of its first contribution in (sample encoding,
// walk order) order (ContextCounter.best).
type Unwinder struct {
	bin *perfscript.Binary
	sym *symbols
	// Options of the context keys.
	opts ContextOptions
	// probes: the binary has pseudo probes, contexts are call addresses
	// (probeunwind.go).
	probes bool

	// The pipeline: Add fills cur; done is closed when the batch in
	// flight is unwound, which then becomes spare; err is the first error.
	cur, spare *sampleBatch
	mem        *batchMem // the batches' buffers
	done       chan struct{}
	err        error
	batchBytes int // batchBytes, or less in tests

	// The unwinding state, used by one goroutine at a time.
	st    unwindStats
	byKey map[string]*ContextCounter
	// paths maps the address stacks that collect builds to their
	// contexts (a trie by address).
	paths stackNode
	// instCtx numbers each instruction's inline context (all frames but
	// the leaf), 0 until computed, -1 without frames; ctxIDs interns them.
	instCtx    []int32
	instRun    []int32 // runStart's, plus one (0: not known yet)
	ctxIDs     map[string]int32
	arena      trieArena
	path       collectPath
	emptyPaths []*collectPath // emptyPath's, for reuse
	dedup      hashtab.Index
	keyBuf     []byte            // scratch: a key of byKey or ctxIDs
	nameIDs    map[string]uint32 // the frames' names in byKey's and ctxIDs' keys
	ctxBuf     Context           // scratch: expandedContext's
	result     *CSCounters
	order      []int32 // a batch's distinct samples, by first appearance
	counts     []uint64
	first      []bool
	stack      []uint64
	lbr        []perfscript.Branch
}

// batchBytes is the size of the encoded samples of a batch: 1 MiB, about
// 1,500 samples of 32 LBR entries (4 MiB batches cost more in page faults
// of fresh memory than the wider aggregation saved).
const batchBytes = 1<<20 - maxSampleBytes // a buffer of 1 MiB: two fill one huge page

// sampleBatch holds samples encoded as Unwinder's keys (stack length,
// stack, then LBR source/target pairs, little-endian u64s), back to back.
type sampleBatch struct {
	perfscript.Records
	counts []uint64
	first  []bool
}

// ContextOptions are the switches that shape calling contexts.
type ContextOptions struct {
	// MaxContextDepth keeps the last K frames of a context's non-leaf part
	// (--csprof-max-context-depth; negative: no limit).
	MaxContextDepth int
	// MaxUnsymbolizedContextDepth keeps the last K addresses of the
	// contexts of probe binaries, whose unwound contexts are call
	// addresses (--csprof-max-unsymbolized-context-depth; -1: no limit);
	// with MaxContextDepth, the smaller limit applies. DWARF contexts,
	// which are symbolized as they are unwound, ignore it.
	MaxUnsymbolizedContextDepth int
	// MaxCompressionSize is the longest repeated frame sequence that
	// recursion compression removes (--compress-recursion; negative: no
	// limit, 0: none).
	MaxCompressionSize int
	// ShowDetailedWarning lists, before their summary, the call sites
	// whose contexts were truncated (--show-detailed-warning).
	ShowDetailedWarning bool
}

// DefaultContextOptions are llvm-profgen's defaults (all unlimited).
var DefaultContextOptions = ContextOptions{MaxContextDepth: -1, MaxUnsymbolizedContextDepth: -1, MaxCompressionSize: -1}

// NewUnwinder returns an unwinder for the binary and its symbolizer.
func NewUnwinder(bin *perfscript.Binary, sym Symbolizer, opts ContextOptions) *Unwinder {
	u := &Unwinder{bin: bin, sym: newSymbols(sym), opts: opts, byKey: map[string]*ContextCounter{}, batchBytes: batchBytes, probes: bin.PseudoProbes,
		st: unwindStats{untracked: map[uint64]struct{}{}}, ctxIDs: map[string]int32{}, nameIDs: map[string]uint32{}, mem: &batchMem{}}
	// Unwind gives the buffers back; an unwinder dropped before (a parse
	// error) gives them back when it is collected.
	runtime.AddCleanup(u, (*batchMem).free, u.mem)
	return u
}

// batchMem holds the batches' buffers, from hugemem: each is filled once
// per batch, and fresh heap memory for them cost a page fault per 4 KiB.
type batchMem struct {
	bufs [][]byte // mappings
	next []byte   // the second batch's half of the mapping, until taken
}

func (m *batchMem) free() {
	for _, b := range m.bufs {
		hugemem.Free(b)
	}
	m.bufs, m.next = nil, nil
}

// Add takes one hybrid sample (the signature of
// perfscript.Options.HybridSample).
func (u *Unwinder) Add(stack []uint64, lbr []perfscript.Branch, count uint64, first bool) {
	if u.cur == nil {
		u.cur = u.newBatch()
	}
	b := u.cur
	b.Buf = perfscript.AppendHybridSample(b.Buf, stack, lbr)
	u.end(count, first)
}

// newBatch returns an empty batch with room for batchBytes of samples:
// grown by append instead, its buffer is copied about twenty times on the
// way and the fresh pages faulted in each time (a sixth of the CPU time of
// a CS profile from perf.data, and stops the garbage collector cannot
// preempt). The two batches' buffers are one huge page (hugemem): one
// fault instead of 512, and a huge page is resident whole.
func (u *Unwinder) newBatch() *sampleBatch {
	n := u.batchBytes + maxSampleBytes
	var buf []byte
	switch {
	case u.mem.next != nil:
		buf, u.mem.next = u.mem.next, nil
	case 2*n >= hugemem.MinBytes && len(u.mem.bufs) == 0:
		// Both batches in one mapping: a huge page is resident whole.
		m := hugemem.Bytes(2 * n)
		u.mem.bufs = append(u.mem.bufs, m)
		buf, u.mem.next = m[:n:n], m[n:2*n:2*n]
	default:
		buf = make([]byte, 0, n)
	}
	return &sampleBatch{Records: perfscript.Records{Buf: buf[:0]}}
}

// maxSampleBytes is the encoding of a large sample (127 frames, 32 LBR
// entries), the room a batch keeps beyond batchBytes.
const maxSampleBytes = (1 + 127 + 2*32) * 8

// AddRecord takes one hybrid sample in AppendHybridSample's encoding (the
// signature of perfscript.Options.HybridRecord).
func (u *Unwinder) AddRecord(rec []byte, count uint64, first bool) {
	if u.cur == nil {
		u.cur = u.newBatch()
	}
	u.cur.Buf = append(u.cur.Buf, rec...)
	u.end(count, first)
}

// end ends the sample just appended to the current batch.
func (u *Unwinder) end(count uint64, first bool) {
	b := u.cur
	b.End()
	b.counts = append(b.counts, count)
	b.first = append(b.first, first)
	if len(b.Buf) >= u.batchBytes {
		u.send()
	}
}

// send starts unwinding the current batch on its own goroutine, after the
// previous one.
func (u *Unwinder) send() {
	u.wait()
	b := u.cur
	u.cur, u.spare = u.spare, nil
	if u.cur == nil {
		u.cur = u.newBatch()
	}
	done := make(chan struct{})
	u.done = done
	go func() {
		defer close(done)
		if u.err == nil {
			u.err = u.unwindBatch(b)
		}
		b.Reset()
		b.counts, b.first = b.counts[:0], b.first[:0]
		u.spare = b
	}()
}

func (u *Unwinder) wait() {
	if u.done != nil {
		<-u.done
		u.done = nil
	}
}

// unwindBatch aggregates a batch's samples and unwinds each distinct one
// with its summed count. A batch of first occurrences only (nearly every
// batch of a trace whose samples are distinct) has nothing to aggregate:
// its samples are unwound as they are, without hashing them again.
func (u *Unwinder) unwindBatch(b *sampleBatch) error {
	u.order, u.counts, u.first = u.order[:0], u.counts[:0], u.first[:0]
	if !slices.Contains(b.first, false) {
		for i := range b.Len() {
			u.order = append(u.order, int32(i))
		}
		u.counts, u.first = append(u.counts, b.counts...), append(u.first, b.first...)
		return u.unwindOrder(b)
	}
	u.dedup.Reset()
	for i := range b.Len() {
		k := b.At(i)
		h := maphash.Bytes(dedupSeed, k)
		p := u.dedup.Probe(h)
		found := false
		for p = p.Next(); p.Entry >= 0; p = p.Next() {
			if bytes.Equal(b.At(int(u.order[p.Entry])), k) {
				u.counts[p.Entry] += b.counts[i]
				u.first[p.Entry] = u.first[p.Entry] || b.first[i]
				found = true
				break
			}
		}
		if !found {
			u.dedup.Add(h, p)
			u.order = append(u.order, int32(i))
			u.counts = append(u.counts, b.counts[i])
			u.first = append(u.first, b.first[i])
		}
	}
	return u.unwindOrder(b)
}

// unwindOrder unwinds the batch's samples u.order with u.counts.
func (u *Unwinder) unwindOrder(b *sampleBatch) error {
	for j, i := range u.order {
		k := b.At(int(i))
		u.stack, u.lbr = perfscript.DecodeHybridSample(k, u.stack[:0], u.lbr[:0])
		if err := u.unwind(k, u.stack, u.lbr, u.counts[j], u.first[j]); err != nil {
			return err
		}
	}
	return nil
}

var dedupSeed = maphash.MakeSeed()

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

// compareStrings is strings.Compare(a.String(), b.String()) without the
// strings: the frames the two contexts share (as non-leaf frames) print
// alike, so only what follows them is printed, into the buffers (kept for
// the next call).
func compareStrings(a, b Context, bufs *[2][]byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		if la, lb := i == len(a)-1, i == len(b)-1; la || lb {
			if la && lb {
				return 0
			}
			break
		}
		i++
	}
	bufs[0], bufs[1] = a.appendTail(bufs[0][:0], i), b.appendTail(bufs[1][:0], i)
	return bytes.Compare(bufs[0], bufs[1])
}

// appendTail appends String's text from frame i on.
func (c Context) appendTail(b []byte, i int) []byte {
	for j := i; j < len(c); j++ {
		f := &c[j]
		if j > i {
			b = append(b, " @ "...)
		}
		b = append(b, f.name...)
		if j < len(c)-1 {
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(f.line), 10)
			if f.disc != 0 {
				b = append(b, '.')
				b = strconv.AppendUint(b, uint64(f.disc), 10)
			}
		}
	}
	return b
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

	// best is the first contribution so far in llvm-profgen's order: the
	// encoding of its sample and its place in that sample's walk.
	bestKey  []byte
	bestSeq  int
	hasBest  bool
	counters [2]pairCounts // ranges, branches while unwinding
}

// pairCounts counts (source, target) pairs while unwinding: most
// contexts have a few of each, looked up by a scan; from smallPairs on, a
// perfscript.BranchCounts (a hash index of 64 slots and more: given to
// every context, those were 1.7 of the 14 MB of live heap at the end of
// bench/profgen's big-cs trace).
type pairCounts struct {
	keys   []perfscript.Branch
	counts []uint64
	big    *perfscript.BranchCounts
}

const smallPairs = 16

func (t *pairCounts) add(k perfscript.Branch, n uint64) {
	if t.big != nil {
		t.big.Add(k, n)
		return
	}
	for i, have := range t.keys {
		if have == k {
			t.counts[i] += n
			return
		}
	}
	if len(t.keys) < smallPairs {
		t.keys, t.counts = append(t.keys, k), append(t.counts, n)
		return
	}
	t.big = &perfscript.BranchCounts{}
	for i, have := range t.keys {
		t.big.Add(have, t.counts[i])
	}
	t.big.Add(k, n)
	t.keys, t.counts = nil, nil
}

// pairs returns the map of the counts.
func (t *pairCounts) pairs() map[[2]uint64]uint64 {
	if t.big != nil {
		return t.big.Pairs()
	}
	m := make(map[[2]uint64]uint64, len(t.keys))
	for i, k := range t.keys {
		m[[2]uint64{k.Source, k.Target}] = t.counts[i]
	}
	return m
}

// contribute records a contribution of the sample key (seq-th in its
// walk) whose leaf address was inlined or not. A counter that takes the
// key as its best shares *shared, the one copy of the key for the counters
// of the sample's walk (made by the first of them): a sample's contexts
// mostly take it together.
func (c *ContextCounter) contribute(key []byte, seq int, inlined bool, shared *[]byte) {
	if c.hasBest {
		switch cmp := bytes.Compare(key, c.bestKey); {
		case cmp > 0, cmp == 0 && seq >= c.bestSeq:
			return
		case cmp == 0:
			c.bestSeq, c.WasLeafInlined = seq, inlined
			return
		}
	}
	if *shared == nil {
		*shared = slices.Clone(key)
	}
	c.bestKey = *shared
	c.bestSeq, c.hasBest, c.WasLeafInlined = seq, true, inlined
}

// CSCounters are the context-sensitive counters of a hybrid trace
// (llvm-profgen's ContextSampleCounterMap for DWARF-based CS profiles).
type CSCounters struct {
	// Counters in ascending order of their context strings.
	Counters []*ContextCounter
	// Probes: the contexts are call addresses (ContextCounter.Addrs).
	Probes bool
}

// stackNode is a node of Unwinder.paths: the address stack of its path
// and, once computed, its context's counter and whether the leaf address
// was inlined.
type stackNode struct {
	// The children: the first few in few, scanned (cheaper than a map
	// lookup, and most nodes have a few children), the others in kids.
	few     []stackKid
	kids    map[uint64]*stackNode
	counter *ContextCounter
	inlined bool
}

type stackKid struct {
	addr uint64
	node *stackNode
}

const fewKids = 8

func (n *stackNode) child(addr uint64) *stackNode {
	for _, k := range n.few {
		if k.addr == addr {
			return k.node
		}
	}
	c := n.kids[addr]
	if c == nil {
		c = &stackNode{}
		if len(n.few) < fewKids {
			n.few = append(n.few, stackKid{addr, c})
			return c
		}
		if n.kids == nil {
			n.kids = map[uint64]*stackNode{}
		}
		n.kids[addr] = c
	}
	return c
}

// trieFrame is UnwindState::ProfiledFrame: a node of the call-stack trie
// of one sample, with the ranges and branches recorded on it.
type trieFrame struct {
	addr     uint64
	parent   *trieFrame
	kids     []*trieFrame // in creation order (deterministic walks)
	ranges   [][3]uint64
	branches [][3]uint64
}

// trieArena recycles the trie frames of one sample for the next.
type trieArena struct {
	chunks [][]trieFrame
	n      int
}

const arenaChunk = 256

func (a *trieArena) reset() { a.n = 0 }

func (a *trieArena) alloc(addr uint64, parent *trieFrame) *trieFrame {
	c, i := a.n/arenaChunk, a.n%arenaChunk
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]trieFrame, arenaChunk))
	}
	a.n++
	f := &a.chunks[c][i]
	f.addr, f.parent = addr, parent
	f.kids, f.ranges, f.branches = f.kids[:0], f.ranges[:0], f.branches[:0]
	return f
}

func (a *trieArena) child(f *trieFrame, addr uint64) *trieFrame {
	for _, c := range f.kids {
		if c.addr == addr {
			return c
		}
	}
	c := a.alloc(addr, f)
	f.kids = append(f.kids, c)
	return c
}

func (f *trieFrame) recordRange(start, end, n uint64) {
	if start > end {
		return
	}
	f.ranges = addPair(f.ranges, start, end, n)
}

// addPair adds n to the pair (a, b) of a frame's ranges or branches:
// to one of the last few entries if it is that pair (a loop's iterations
// in one LBR stack repeat the same few ranges and branches), else as a
// new entry. The counters are sums, so this only saves collectFrame's
// hash-table updates.
func addPair(l [][3]uint64, a, b, n uint64) [][3]uint64 {
	for i := len(l) - 1; i >= max(len(l)-4, 0); i-- {
		if l[i][0] == a && l[i][1] == b {
			l[i][2] += n
			return l
		}
	}
	return append(l, [3]uint64{a, b, n})
}

// unwindState is UnwindState.
type unwindState struct {
	root    *trieFrame
	leaf    *trieFrame
	arena   *trieArena
	lbr     []perfscript.Branch
	i       int
	ip      uint64 // InstPtr.Address
	invalid bool
}

func (s *unwindState) switchTo(addr uint64) {
	if s.leaf.addr != addr {
		s.leaf = s.arena.child(s.leaf.parent, addr)
	}
}

// unwindStats are VirtualUnwinder's counts for its warnings.
type unwindStats struct {
	totalBranches, mismatchedProEpi, mismatchedExtCall, unpairedExt, pairedExt uint64
	untracked                                                                  map[uint64]struct{}
}

// Unwind finishes unwinding the samples added and returns the counters by
// context; warn receives llvm-profgen's unwinder warnings.
//
// The unwinding state goes with it (the counters by key, the address
// trie, the inline contexts of instructions, each counter's first
// sample): the generator needs only the counters and the symbolizer, and
// the collector can take back its memory before the generator allocates
// its own (that state is most of the live heap at the end of a trace, and
// the heap grows to twice its live size before a collection). A second
// call returns the same counters.
func (u *Unwinder) Unwind(warn func(string)) (*CSCounters, error) {
	if u.result != nil {
		return u.result, nil
	}
	u.wait()
	if u.err == nil && u.cur != nil && u.cur.Len() > 0 {
		u.err = u.unwindBatch(u.cur)
	}
	u.cur, u.spare = nil, nil
	u.mem.free()
	if u.err != nil {
		return nil, u.err
	}
	cs := &CSCounters{Probes: u.probes}
	for _, c := range u.byKey {
		if c.Ranges == nil {
			c.Ranges, c.Branches = c.counters[0].pairs(), c.counters[1].pairs()
			c.counters = [2]pairCounts{}
		}
		c.bestKey = nil
		cs.Counters = append(cs.Counters, c)
	}
	contexts := len(u.byKey)
	u.release()
	var bufs [2][]byte
	slices.SortFunc(cs.Counters, func(a, b *ContextCounter) int {
		if c := compareStrings(a.Context, b.Context, &bufs); c != 0 {
			return c
		}
		return slices.Compare(a.Addrs, b.Addrs)
	})
	st := &u.st
	if warn != nil {
		summary := func(num, total uint64, msg string) {
			if num != 0 && total != 0 {
				warn(fmt.Sprintf("%.2f%%(%d/%d) %s", float64(num)*100/float64(total), num, total, msg))
			}
		}
		if u.opts.ShowDetailedWarning {
			u.detailUntracked(warn)
		}
		summary(uint64(len(st.untracked)), uint64(contexts), "of profiled contexts are truncated due to missing probe for call instruction.")
		summary(st.mismatchedExtCall, st.totalBranches, "of branches'source is a call instruction but doesn't match call frame stack, likely due to unwinding error of external frame.")
		summary(st.pairedExt*2, st.totalBranches, "of branches containing paired external address.")
		summary(st.unpairedExt, st.totalBranches, "of branches containing external address but doesn't have another external address to pair, likely due to interrupt jmp or broken perf script.")
		summary(st.mismatchedProEpi, st.totalBranches, "of branches'source is a call instruction but doesn't match call frame stack, likely due to frame in prolog/epilog.")
	}
	u.st.untracked = nil
	u.result = cs
	return cs, nil
}

// discard ends an unwinder whose samples are not wanted (a pass over the
// input that was given up): the batch in flight finishes and the batches'
// buffers are given back.
func (u *Unwinder) discard() {
	u.wait()
	u.cur, u.spare = nil, nil
	u.mem.free()
}

// release drops the unwinding state (Unwind) but the warning counts.
func (u *Unwinder) release() {
	u.byKey, u.paths, u.ctxIDs, u.nameIDs, u.instCtx, u.instRun = nil, stackNode{}, nil, nil, nil, nil
	u.arena, u.path, u.emptyPaths, u.dedup = trieArena{}, collectPath{}, nil, hashtab.Index{}
	u.keyBuf, u.ctxBuf, u.order, u.counts, u.first, u.stack, u.lbr = nil, nil, nil, nil, nil, nil, nil
}

// unwind is VirtualUnwinder::unwind for one distinct sample (its encoding
// key); the warning counts are taken only at the sample's first occurrence
// in the trace.
func (u *Unwinder) unwind(key []byte, stack []uint64, lbr []perfscript.Branch, repeat uint64, first bool) error {
	var st unwindStats
	u.arena.reset()
	root := u.arena.alloc(0, nil)
	s := &unwindState{root: root, arena: &u.arena, lbr: lbr, ip: stack[0]}
	cur := root
	for i := len(stack) - 1; i >= 0; i-- {
		cur = u.arena.child(cur, stack[i])
	}
	s.leaf = cur
	// validateInitialState cannot fail: the stack leaf is LBR[0]'s target.
	st.totalBranches += uint64(len(lbr))
	bin := u.bin
	for s.i = 0; s.i < len(lbr); s.i++ {
		if s.i > 0 {
			if err := u.unwindLinear(s, repeat, &st); err != nil {
				return err
			}
		}
		br := lbr[s.i]
		srcExt := br.Source == perfscript.ExternalAddr
		var isCall, isReturn bool
		if !s.invalid {
			isCall, isReturn = bin.CallOrReturn(br.Source)
		}
		switch {
		case !s.invalid && (isCall || srcExt && bin.CallAddrFromFrameAddr(br.Target) == 0):
			// unwindCall
			parent := s.leaf.parent
			if parent == root || parent.addr != br.Source {
				s.switchTo(br.Source)
				if parent != root {
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
		case !s.invalid && (isReturn || srcExt):
			// unwindReturn (an external source here returns to after a call)
			s.switchTo(bin.CallAddrFromFrameAddr(br.Target))
			s.leaf = s.arena.child(s.leaf, br.Source)
			s.ip = br.Source
		case !s.invalid:
			// unwindBranch
			s.switchTo(br.Source)
			s.ip = br.Source
		default:
			// Context-less from here on.
			s.ip = br.Source
			s.leaf = s.arena.child(root, s.ip)
		}
		// recordBranchCount, on the state after unwinding.
		switch {
		case br.Target == perfscript.ExternalAddr:
		case srcExt:
			root.branches = addPair(root.branches, br.Source, br.Target, repeat)
		case u.probes:
			s.leaf.parent.branches = addPair(s.leaf.parent.branches, br.Source, br.Target, repeat)
		default:
			s.leaf.branches = addPair(s.leaf.branches, br.Source, br.Target, repeat)
		}
	}
	if first {
		u.st.totalBranches += st.totalBranches
		u.st.mismatchedProEpi += st.mismatchedProEpi
		u.st.mismatchedExtCall += st.mismatchedExtCall
		u.st.unpairedExt += st.unpairedExt
		u.st.pairedExt += st.pairedExt
	}
	c := collector{u: u, key: key}
	u.path.addrs, u.path.nodes = u.path.addrs[:0], append(u.path.nodes[:0], &u.paths)
	return c.collect(root, root, &u.path)
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
	// prevIdx is the index of the instruction at prev, -1 if prev is not
	// an instruction start (then addresses are compared).
	prevIdx := -1
	if idx < u.bin.NumInsts() {
		if a, _ := u.bin.Inst(idx); a == ip {
			prevIdx = idx
		}
	}
	for ip > target {
		if prevIdx > 0 {
			// The steps inside idx's run compare equal contexts: skip to
			// its first instruction, or to the last one the loop reaches
			// (the greatest at or below target).
			k, err := u.runStart(prevIdx)
			if err != nil {
				return err
			}
			if k < idx {
				if a, _ := u.bin.Inst(k); a <= target {
					k += sort.Search(idx-k, func(n int) bool { a, _ := u.bin.Inst(k + n + 1); return a > target })
				}
				idx, prevIdx = k, k
				ip, _ = u.bin.Inst(k)
				continue
			}
		}
		prev := ip
		var same bool
		var err error
		if idx == 0 {
			ip = 0
			same, err = u.inlineContextEqual(prev, ip)
		} else {
			idx--
			ip, _ = u.bin.Inst(idx)
			if prevIdx >= 0 {
				same, err = u.sameInlineContext(prevIdx, idx)
			} else {
				same, err = u.inlineContextEqual(prev, ip)
			}
			prevIdx = idx
		}
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

// sameInlineContext is inlineContextEqual of instructions i and j, by the
// numbers of their inline contexts.
func (u *Unwinder) sameInlineContext(i, j int) (bool, error) {
	a, err := u.instContext(i)
	if err != nil {
		return false, err
	}
	b, err := u.instContext(j)
	return err == nil && a > 0 && a == b, err
}

// runStart is the first instruction of the run that ends at instruction i
// in which every instruction has the inline context of the one before it
// (sameInlineContext); memoized in instRun (plus one).
func (u *Unwinder) runStart(i int) (int, error) {
	if u.instRun == nil {
		u.instRun = make([]int32, u.bin.NumInsts())
	}
	if r := u.instRun[i]; r != 0 {
		return int(r - 1), nil
	}
	j := i
	for j > 0 && u.instRun[j] == 0 {
		same, err := u.sameInlineContext(j, j-1)
		if err != nil {
			return 0, err
		}
		if !same {
			break
		}
		j--
	}
	start := j
	if r := u.instRun[j]; r != 0 {
		start = int(r - 1)
	}
	for k := j; k <= i; k++ {
		u.instRun[k] = int32(start + 1)
	}
	return start, nil
}

// instContext numbers the inline context of instruction i: the frame count
// and all frames but the leaf; -1 without frames.
func (u *Unwinder) instContext(i int) (int32, error) {
	if u.instCtx == nil {
		u.instCtx = make([]int32, u.bin.NumInsts())
	}
	if id := u.instCtx[i]; id != 0 {
		return id, nil
	}
	addr, _ := u.bin.Inst(i)
	s, err := u.sym.stack(addr)
	if err != nil {
		return 0, err
	}
	id := int32(-1)
	if len(s) > 0 {
		u.keyBuf = strconv.AppendInt(u.appendKey(u.keyBuf[:0], Context(s[:len(s)-1])), int64(len(s)), 10)
		var ok bool
		if id, ok = u.ctxIDs[string(u.keyBuf)]; !ok {
			id = int32(len(u.ctxIDs) + 1)
			u.ctxIDs[string(u.keyBuf)] = id
		}
	}
	u.instCtx[i] = id
	return id, nil
}

// collectPath is the address stack of collect, with the stackNode of each
// prefix (nodes[k] for the first k addresses). Popped entries stay in the
// arrays: addrs[len(addrs):hi], with their nodes, continue the current
// prefix as an earlier walk (of this sample or the ones before: every
// walk starts at the same root) had it, so that pushing the same address
// again takes its node without a lookup (consecutive samples share most
// of their stacks).
type collectPath struct {
	addrs []uint64
	nodes []*stackNode
	hi    int
}

func (p *collectPath) push(addr uint64) {
	d := len(p.addrs)
	if d < p.hi && p.addrs[:p.hi][d] == addr {
		p.addrs, p.nodes = p.addrs[:d+1], p.nodes[:d+2]
		return
	}
	p.addrs = append(p.addrs, addr)
	p.nodes = append(p.nodes, p.nodes[d].child(addr))
	p.hi = d + 1
}

// collector walks one sample's trie.
type collector struct {
	u       *Unwinder
	key     []byte // the sample's encoding
	keyCopy []byte // its copy, once a counter took it (contribute)
	seq     int    // contributions so far
}

// emptyPath returns an empty path (from the root), reusing a spare one.
func (c *collector) emptyPath() *collectPath {
	u := c.u
	if n := len(u.emptyPaths); n > 0 {
		p := u.emptyPaths[n-1]
		u.emptyPaths = u.emptyPaths[:n-1]
		p.addrs, p.nodes = p.addrs[:0], append(p.nodes[:0], &c.u.paths)
		return p
	}
	return &collectPath{nodes: []*stackNode{&c.u.paths}}
}

// collect is collectSamplesFromFrameTrie: a depth-first walk over one
// shared stack that adds each frame's samples to the counter of its
// context. An external frame cuts the context: its subtree starts from an
// empty stack. A frame of address 0 (a return to an address no call
// precedes) passes for the dummy root as in llvm-profgen: it pushes no
// frame, and leaving it pops its parent's (LLVM walks children in DenseMap
// order, here in creation order; only this case can tell them apart).
func (c *collector) collect(root, cur *trieFrame, path *collectPath) error {
	if cur != root && cur.addr != 0 {
		if cur.addr == perfscript.ExternalAddr {
			empty := c.emptyPath()
			if err := c.collectFrame(cur, empty); err != nil {
				return err
			}
			for _, k := range cur.kids {
				if err := c.collect(root, k, empty); err != nil {
					return err
				}
			}
			if len(cur.kids) > 0 {
				c.u.st.untracked[cur.addr] = struct{}{}
			}
			c.u.emptyPaths = append(c.u.emptyPaths, empty)
			return nil
		}
		path.push(cur.addr)
	}
	if err := c.collectFrame(cur, path); err != nil {
		return err
	}
	for _, k := range cur.kids {
		if err := c.collect(root, k, path); err != nil {
			return err
		}
	}
	if n := len(path.addrs); n > 0 {
		path.addrs, path.nodes = path.addrs[:n-1], path.nodes[:n]
	}
	return nil
}

// collectFrame is collectSamplesFromFrame.
func (c *collector) collectFrame(f *trieFrame, path *collectPath) error {
	if len(f.ranges) == 0 && len(f.branches) == 0 {
		return nil
	}
	u := c.u
	node := path.nodes[len(path.addrs)]
	switch {
	case node.counter != nil:
	case u.probes:
		node.counter = u.probeCounter(path.addrs)
	default:
		ctx, inlined, err := u.expandedContext(u.ctxBuf[:0], path.addrs)
		if err != nil {
			return err
		}
		u.ctxBuf = ctx[:0]
		u.keyBuf = u.appendKey(u.keyBuf[:0], ctx)
		cc := u.byKey[string(u.keyBuf)]
		if cc == nil {
			cc = &ContextCounter{Context: slices.Clip(slices.Clone(ctx))}
			u.byKey[string(u.keyBuf)] = cc
		}
		node.counter, node.inlined = cc, inlined
	}
	cc := node.counter
	c.seq++
	cc.contribute(c.key, c.seq, node.inlined, &c.keyCopy)
	for _, r := range f.ranges {
		cc.counters[0].add(perfscript.Branch{Source: r[0], Target: r[1]}, r[2])
	}
	for _, b := range f.branches {
		cc.counters[1].add(perfscript.Branch{Source: b[0], Target: b[1]}, b[2])
	}
	return nil
}

// appendKey appends the unwinder's key of c to b: ctxKey's, with each
// name as its number in nameIDs (12 bytes a frame instead of a mangled
// name's 50 to 200: byKey's and ctxIDs' keys were 3.4 of the 19 MB live
// at the end of bench/profgen's big-cs trace).
func (u *Unwinder) appendKey(b []byte, c Context) []byte {
	for _, f := range c {
		id, ok := u.nameIDs[f.name]
		if !ok {
			id = uint32(len(u.nameIDs))
			u.nameIDs[f.name] = id
		}
		b = binary.LittleEndian.AppendUint32(b, id)
		b = binary.LittleEndian.AppendUint32(b, f.line)
		b = binary.LittleEndian.AppendUint32(b, f.disc)
	}
	return b
}

// ctxKey is a map key of c: each frame's name, a 0 byte, its line and
// discriminator.
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
// and the depth trimmed in the non-leaf part. It is appended to ctx (an
// empty slice, the caller's scratch).
func (u *Unwinder) expandedContext(ctx Context, stack []uint64) (Context, bool, error) {
	if len(stack) == 0 {
		return ctx[:0], false, nil
	}
	inlined := false
	for _, a := range stack {
		fr, err := u.sym.stack(a)
		if err != nil {
			return nil, false, err
		}
		if len(fr) == 0 {
			return ctx[:0], inlined, nil
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
