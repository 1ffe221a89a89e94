package memprof

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/freelist"
	"github.com/rules-pgo/rules_pgo/internal/hashtab"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// Converter folds raw profiles into one profile, one input at a time, the
// way llvm-profdata merge fills and merges its writer contexts. Each raw
// profile can be dropped once it is prepared: peak memory is the merged
// result plus the inputs in flight, not every input at once.
//
// llvm-profdata merges contexts pairwise at the end, but loading an input
// and absorbing a context both only "append new keys in order, extend
// existing ones" (frames, call stacks, records by GUID), an associative
// operation. So the tree of merges equals a sequential fold of the inputs
// in the order they reach context 0 (FoldOrder); Convert and the tests
// rely on this.
//
// The work is split in two. Prepare (safe for concurrent use, any order)
// does everything that depends on one input alone: the stack walk in LLVM's
// DenseMap order, symbolization of addresses no earlier input met (shared
// by all inputs, each distinct address symbolized once), the input's frame
// list, every MIB's call stack as a list of frame ids, and its call sites.
// Fold (sequential, in FoldOrder) applies a prepared input to the merged
// state: frames and call stacks are interned in LLVM's insertion order,
// records created at first touch, alloc and call sites appended. Internal
// frame ids depend on which Prepare symbolized an address first, but
// everything Compact returns is numbered by Fold, in fold order, so the
// result never depends on scheduling.
//
// Compact.SymbolNames holds, for each GUID, the name of the first frame
// Fold placed with that GUID (names only differ for LLVM 16, whose GUID
// ignores ".llvm." suffixes); it is not serialized in indexed profiles.
//
// Fold, Add, Compact and Profile must not be called concurrently with each
// other. After an error from Add the Converter must not be used further.
type Converter struct {
	bin     Symbolizer
	tb      *textBinary
	release llvmrelease.Release
	workers int
	sym     *symTable
	// merge is ConvertOptions.MergeContexts: stackMIB[s] is the merged
	// MemInfoBlock of the alloc sites with call stack s (nil: none yet),
	// owned by the Converter, and callSet the (record, stack) call sites
	// listed so far.
	merge    bool
	stackMIB []*MemInfoBlock
	// stackFirst[s] is the state of stack s's first block (merge only;
	// partial.go), for Compact.First.
	stackFirst []PartialState
	callSet    map[callRef]struct{}

	// The merged writer state (llvm-profdata's context 0), owned by Fold.
	inputs    int32   // inputs folded so far; input k (1-based) stamps its entries with k
	kept      int     // stacks of the last input kept after symbolization (NumStackOffsets)
	frameOrd  []int32 // frame id -> position in the merged frame list + 1; 0: not placed
	placed    []int32 // merged frame list: frame ids in placement order
	frameRec  []int32 // frame id -> record index of its function + 1; 0: not looked up yet
	symName   map[uint64]string
	frameRuns [][]int32 // per input: frame ids in that reader's order (LLVM < 20)
	csRuns    [][]int32 // per input: stacks in first-use order (LLVM < 20)

	// Call stacks, interned: stack s has frame ids
	// stackFrames[stackOff[s]:stackOff[s+1]], leaf first; s is also the
	// position in the merged call-stack list (stacks are noted as they are
	// created).
	stackOff    []int32
	stackFrames []int32
	stackTab    hashtab.Index // stack s is entry s, hashed by hashIDs
	stackStamp  []int32       // last input whose run lists the stack
	pcStack     []int32       // pc id -> its inline chain as a call stack + 1 (call sites)

	records  []uint64 // GUIDs, in creation order
	recIndex map[uint64]int32
	recInput []int32 // input that created each record
	recAlloc []int32 // alloc sites per record
	recCall  []int32 // call sites per record
	allocs   []allocRef
	calls    []callRef
}

type allocRef struct {
	rec, stack int32
	info       *MemInfoBlock
}

type callRef struct{ rec, stack int32 }

// symTable is the symbolization of every module-relative address met,
// shared by all inputs and by concurrent Prepare calls. Entries are
// immutable once added; readers take slices of pcs and frames under mu and
// may use their elements afterwards.
type symTable struct {
	symMu   sync.Mutex   // serializes symbolizing new addresses
	placed  fidBits      // frames Fold has placed (written by Fold, read by Prepare)
	mu      sync.RWMutex // guards the fields below
	pcIndex map[uint64]int32
	pcs     []symPC
	frameID map[frameTuple]int32
	frames  []Frame
	names   []string // frame id -> display name of its function
}

// symPC is one distinct address: its inline chain as frame ids, innermost
// first; nil when the address is discarded (no DWARF, no name, or inside
// the memprof runtime).
type symPC struct{ ids []int32 }

// frameTuple is LLVM's frame identity (the fields of a Frame).
type frameTuple struct {
	function     uint64
	line, column uint32
	inline       bool
}

// NewConverter checks the profiled binary for opts.Release and returns
// an empty Converter. opts.NumThreads is ignored: Add and Fold treat every
// input as loaded into a writer context of its own.
func NewConverter(bin Symbolizer, opts ConvertOptions) (*Converter, error) {
	release := opts.release()
	tb, err := checkBinary(bin, release)
	if err != nil {
		return nil, err
	}
	c := &Converter{
		bin: bin, tb: tb, release: release, workers: opts.Workers,
		sym:     &symTable{pcIndex: map[uint64]int32{}, frameID: map[frameTuple]int32{}},
		symName: map[uint64]string{}, recIndex: map[uint64]int32{},
		stackOff: []int32{0},
		merge:    opts.MergeContexts,
	}
	if c.merge {
		c.callSet = map[callRef]struct{}{}
	}
	return c, nil
}

// FoldOrder returns the order in which n inputs, each in its own writer
// context (llvm-profdata merge --num-threads=n), reach context 0 through
// llvm-profdata's pairwise context merge: for mid = n/2, n/4, ... context
// i absorbs context i+mid, and for an odd count context 0 absorbs the
// last. Folding the inputs into a Converter in this order reproduces
// llvm-profdata's result.
func FoldOrder(n int) []int {
	var out []int
	for _, s := range foldSteps(n, n, 19) {
		out = append(out, s.input)
	}
	return out
}

// foldStep is one input in fold order; full is false for an input whose
// data LLVM 22 drops (all but its first frame) because it is not the
// first input of its writer context.
type foldStep struct {
	input int
	full  bool
}

// foldSteps is FoldOrder for n inputs spread over threads contexts (input
// i to context i mod threads, in order).
func foldSteps(n, threads int, release llvmrelease.Release) []foldStep {
	threads = max(1, min(threads, n))
	ctx := make([][]int, threads) // context ids each context holds, in absorption order
	for i := range ctx {
		ctx[i] = []int{i}
	}
	for mid, end := threads/2, threads; mid > 0; end, mid = mid, mid/2 {
		for i := 0; i < mid; i++ {
			ctx[i] = append(ctx[i], ctx[i+mid]...)
		}
		if end&1 == 1 {
			ctx[0] = append(ctx[0], ctx[end-1]...)
		}
	}
	var steps []foldStep
	for _, c := range ctx[0] {
		for in := c; in < n; in += threads {
			steps = append(steps, foldStep{input: in, full: !release.MemProfDropsLaterInputs() || in == c})
		}
	}
	return steps
}

// Add prepares one raw profile and folds it in, as if it were loaded into
// a writer context of its own. Inputs must be added in FoldOrder to match
// llvm-profdata.
func (c *Converter) Add(in *RawProfile) error {
	p, err := c.Prepare(in)
	if err != nil {
		return err
	}
	c.Fold(p)
	return nil
}

// Prepared is one raw input converted against the profiled binary, ready
// to be folded. Of the RawProfile it keeps only the MemInfoBlocks (by
// pointer: the merged profile refers to them).
type Prepared struct {
	kept   int      // stacks kept after symbolization
	first  int32    // frame id of the first kept PC's innermost frame
	frames []Frame  // snapshot of the symbol table's frames (ids < len)
	names  []string // ... and their functions' names
	pcs    []symPC  // snapshot of the symbol table's addresses

	frameRun []int32 // frame ids in LLVM's symbolization order, each once
	// MIB i (of those kept) has call stack keys[keyOff[i]:keyOff[i+1]]
	// (frame ids, leaf first) with hash hashes[i], statistics mibs[i].
	keyOff []int32
	keys   []int32
	hashes []uint64
	mibs   []*MemInfoBlock // into the raw profile's MIBs
	// Call sites: function callGUID[f] has the PCs (pc ids)
	// callPCs[callOff[f]:callOff[f+1]], in first-use order.
	callGUID []uint64
	callOff  []int32
	callPCs  []int32
}

// Prepare converts one raw profile against the binary: everything
// llvm-profdata's RawMemProfReader does for it, plus the per-input half of
// loading it into a writer context. It is safe for concurrent use (also
// with Fold); the result is the same whatever runs beside it.
func (c *Converter) Prepare(in *RawProfile) (*Prepared, error) { return c.prepare(in, false) }

// prepare is Prepare; with needFirst it also finds Prepared.first, which
// only a fold with full false (Convert with fewer threads than inputs)
// reads. Its phases, in order:
//
//  1. numberPCs: each stack's PCs become local indexes (one per distinct
//     address, in file order);
//  2. resolvePCs: the addresses are symbolized, or found in the symbol
//     table shared by all inputs, giving each its frame ids;
//  3. checkStacks: RawMemProfReader's checks on what symbolization kept;
//  4. orderFrames: the input's frames in LLVM's symbolization order
//     (Prepared.frameRun) and its first kept frame (Prepared.first);
//  5. collectMIBs: each kept MIB's call stack as frame ids, and the call
//     sites its stack makes;
//  6. setCallSites: the call sites, grouped by function, into Prepared.
func (c *Converter) prepare(in *RawProfile, needFirst bool) (*Prepared, error) {
	seg, err := profiledSegment(in, c.bin, c.tb, c.release)
	if err != nil {
		return nil, err
	}
	sc := prepScratchPool.Get()
	if sc == nil {
		sc = new(prepScratch)
	}
	defer sc.release()
	sc.numberPCs(in, seg, c.tb.preferredText)
	p := c.resolvePCs(sc)
	mibStack, err := sc.checkStacks(in, p)
	if err != nil {
		return nil, err
	}
	c.orderFrames(in, sc, p, needFirst)
	perFunc := sc.collectMIBs(in, mibStack, p)
	p.setCallSites(perFunc)
	return p, nil
}

// numberPCs reads in's stacks (their PCs moved, inside the profiled
// segment seg, to the binary's preferred text address) and numbers their
// distinct addresses in file order: local index k is address
// sc.local.addrs[k]. Stack j (a StackIDs index) becomes the local indexes
// sc.flat[sc.spans[j].off:][:sc.spans[j].n].
func (sc *prepScratch) numberPCs(in *RawProfile, seg textSegment, preferredText uint64) {
	spans := resize(sc.spans, len(in.StackIDs))
	npc := 0
	for _, st := range in.stacks {
		npc += len(st)
	}
	flat := sc.flat[:0]
	if cap(flat) < npc {
		flat = make([]int32, 0, npc)
	}
	local := &sc.local
	local.reset()
	for j := range spans {
		var stack []uint64
		if j < len(in.stacks) {
			stack = in.stacks[j]
		}
		spans[j] = prepSpan{int32(len(flat)), int32(len(stack))}
		for _, pc := range stack {
			if seg.adjust && pc > seg.start && pc <= seg.end {
				pc = pc + preferredText - seg.start
			}
			flat = append(flat, local.number(pc))
		}
	}
	sc.spans, sc.flat = spans, flat
}

// resolvePCs looks up the local addresses (sc.local.addrs) in the shared
// symbol table, symbolizing those no input met before. It sets sc.gid
// (local index -> pc id) and sc.lids (local index -> frame ids, nil when
// discarded) and returns the Prepared holding the table snapshots they
// index.
func (c *Converter) resolvePCs(sc *prepScratch) *Prepared {
	release := c.release
	gid, pcs, frames, names := c.sym.resolve(sc.local.addrs, func(addr uint64) pcInfo { return symbolize(c.bin, addr, release) }, c.workers)
	lids := resize(sc.lids, len(gid))
	for k, g := range gid {
		lids[k] = pcs[g].ids
	}
	sc.gid, sc.lids = gid, lids
	return &Prepared{pcs: pcs, frames: frames, names: names, first: -1}
}

// checkStacks makes the checks RawMemProfReader makes before anything
// reaches a writer: some stack keeps a frame after symbolization
// (p.kept counts those stacks), and every MIB's stack exists. It returns
// each MIB's stack as a StackIDs index.
func (sc *prepScratch) checkStacks(in *RawProfile, p *Prepared) ([]int32, error) {
	for _, sp := range sc.spans {
		for _, k := range sc.flat[sp.off : sp.off+sp.n] {
			if sc.lids[k] != nil {
				p.kept++
				break
			}
		}
	}
	if p.kept == 0 {
		return nil, &ConvertError{File: in.Name, Err: decode.ErrMalformed, Msg: "no entries in callstack map after symbolization"}
	}
	mibStack := in.mibStacks()
	for i, j := range mibStack {
		if j < 0 {
			return nil, &ConvertError{File: in.Name, Err: decode.ErrMalformed,
				Msg: fmt.Sprintf("memprof callstack record does not contain id: %d", in.MIBs[i].StackID)}
		}
	}
	return mibStack, nil
}

// orderFrames sets p.frameRun, the input's frames in the order they enter
// LLVM's IdToFrame, and, with needFirst, p.first. LLVM visits the stacks in
// the iteration order of its DenseMap over the raw stack map and
// symbolizes each address the first time it meets it.
//
// LLVM < 20, whose writers read each input's frame run, needs every
// address ordered: orderAllFrames. Later releases need only the addresses
// with a frame no folded input has placed yet (Fold places only those;
// frames placed later by an earlier input are skipped there) and, for the
// LLVM 22 drop emulation, the first kept address: walkStackMap stops once
// it has met them.
func (c *Converter) orderFrames(in *RawProfile, sc *prepScratch, p *Prepared, needFirst bool) {
	sc.seen = resize(sc.seen, (len(p.frames)+63)/64)
	if c.release.MemProfDenseMapOrder() {
		sc.orderAllFrames(in.stackMapOrder(c.release), p, needFirst)
		return
	}
	met := resize(sc.met, len(sc.local.addrs))
	sc.met = met
	left := 0
	for k, ids := range sc.lids {
		need := false
		for _, fid := range ids {
			need = need || !c.sym.placed.has(fid)
		}
		if need {
			left++
		} else {
			met[k] = true // nothing to order
		}
	}
	if needFirst {
		left++ // until p.first is found
	}
	if left > 0 {
		sc.walkStackMap(in.stackMapOrder(c.release), left, p, needFirst)
	}
}

// orderAllFrames orders every address by its first use in the stack map
// order (the stack's rank in order, then the position in the stack), found
// from a sequential pass instead of visiting stacks in that order, which
// reads flat at random.
func (sc *prepScratch) orderAllFrames(order []int32, p *Prepared, needFirst bool) {
	n := len(sc.local.addrs)
	rank := resize(sc.rank, len(sc.spans))
	firstUse := resize(sc.firstUse, n)
	byUse := resize(sc.byUse, n)
	sc.rank, sc.firstUse, sc.byUse = rank, firstUse, byUse
	for r, j := range order {
		rank[j] = int32(r)
	}
	for k := range firstUse {
		firstUse[k] = math.MaxUint64
	}
	flat, lids, seen := sc.flat, sc.lids, sc.seen
	for j, sp := range sc.spans {
		hi := uint64(rank[j]) << 32
		for pos, k := range flat[sp.off : sp.off+sp.n] {
			firstUse[k] = min(firstUse[k], hi|uint64(pos))
		}
	}
	for k := range byUse {
		byUse[k] = int32(k)
	}
	slices.SortFunc(byUse, func(a, b int32) int { return cmp.Compare(firstUse[a], firstUse[b]) })
	for _, k := range byUse {
		ids := lids[k]
		if ids != nil && p.first < 0 && needFirst {
			p.first = ids[0]
		}
		addToRun(seen, p, ids)
	}
}

// walkStackMap visits the stacks in order until left addresses not yet
// met (sc.met) have been met, and p.first found when needFirst (it counts
// in left).
func (sc *prepScratch) walkStackMap(order []int32, left int, p *Prepared, needFirst bool) {
	spans, flat, lids, met, seen := sc.spans, sc.flat, sc.lids, sc.met, sc.seen
	for _, j := range order {
		if left == 0 {
			break
		}
		sp := spans[j]
		for _, k := range flat[sp.off : sp.off+sp.n] {
			ids := lids[k]
			if ids != nil && p.first < 0 && needFirst {
				p.first = ids[0]
				left--
			}
			if met[k] {
				continue
			}
			met[k] = true
			left--
			addToRun(seen, p, ids)
		}
	}
}

// addToRun appends the frame ids not yet in p.frameRun (seen, a bit set)
// to it.
func addToRun(seen []uint64, p *Prepared, ids []int32) {
	for _, fid := range ids {
		if seen[fid/64]&(1<<(fid%64)) == 0 {
			seen[fid/64] |= 1 << (fid % 64)
			p.frameRun = append(p.frameRun, fid)
		}
	}
}

// collectMIBs sets, for each MIB that keeps a frame (mibStack[i] is its
// stack), its call stack as frame ids (p.keyOff, p.keys), the stack's hash
// and its statistics; it returns the call sites, in Prepared.callGUID
// order, as pc ids per function. Each PC is a call site of the functions
// of its frames, except the leaf frame of an allocation stack; functions
// are listed in first-occurrence order of (function, PC).
func (sc *prepScratch) collectMIBs(in *RawProfile, mibStack []int32, p *Prepared) [][]int32 {
	spans, flat, lids, gid, frames := sc.spans, sc.flat, sc.lids, sc.gid, p.frames
	sites := resize(sc.sites, len(sc.local.addrs))
	sc.sites = sites
	funcIndex := map[uint64]int32{}
	var perFunc [][]int32 // pc ids per function, in callGUID order
	addSite := func(g int32, ids []int32, j, from int) {
		fn := frames[ids[j]].Function
		for _, f := range ids[from:j] {
			if frames[f].Function == fn {
				return
			}
		}
		fi, ok := funcIndex[fn]
		if !ok {
			fi = int32(len(perFunc))
			funcIndex[fn] = fi
			perFunc = append(perFunc, nil)
			p.callGUID = append(p.callGUID, fn)
		}
		perFunc[fi] = append(perFunc[fi], g)
	}
	if pb := prepBufPool.Get(); pb != nil {
		p.keyOff, p.mibs, p.hashes, p.keys = pb.keyOff[:0], pb.mibs[:0], pb.hashes[:0], pb.keys[:0]
	}
	// Sized up front (a fold keeps mibs: they are fresh for each input).
	npc := 0
	for _, j := range mibStack {
		npc += int(spans[j].n)
	}
	p.keys = slices.Grow(p.keys, npc)
	p.keyOff = slices.Grow(p.keyOff, len(in.MIBs)+1)
	p.hashes = slices.Grow(p.hashes, len(in.MIBs))
	p.mibs = slices.Grow(p.mibs, len(in.MIBs))
	p.keyOff = append(p.keyOff, 0)
	// one[k] is address k's only frame id, -1 when it is discarded, -2
	// when it has inline frames (then lids[k] holds them): the loop below
	// reads 4 bytes per PC instead of a slice header.
	one := resize(sc.one, len(lids))
	sc.one = one
	for k, ids := range lids {
		switch len(ids) {
		case 0:
			one[k] = -1
		case 1:
			one[k] = ids[0]
		default:
			one[k] = -2
		}
	}
	keys := p.keys
	for i := range in.MIBs {
		sp := spans[mibStack[i]]
		leaf := true
		start := len(keys)
		for _, k := range flat[sp.off : sp.off+sp.n] {
			f1 := one[k]
			if f1 == -1 {
				continue
			}
			// Frames 1.. join at the PC's first use, frame 0 at its first
			// use above the leaf, in frame order.
			if s := &sites[k]; !s.used {
				ids, g := lids[k], gid[k]
				s.used, s.site0 = true, !leaf
				from := 1
				if !leaf {
					addSite(g, ids, 0, 0)
					from = 0
				}
				for j := 1; j < len(ids); j++ {
					addSite(g, ids, j, from)
				}
			} else if !leaf && !s.site0 {
				ids, g := lids[k], gid[k]
				s.site0 = true
				fn := frames[ids[0]].Function
				dup := false
				for _, f := range ids[1:] {
					dup = dup || frames[f].Function == fn
				}
				if !dup {
					addSite(g, ids, 0, 0)
				}
			}
			leaf = false
			if f1 >= 0 {
				keys = append(keys, f1)
			} else {
				keys = append(keys, lids[k]...)
			}
		}
		if leaf {
			continue // every PC discarded: LLVM erases the MIB too
		}
		p.keyOff = append(p.keyOff, int32(len(keys)))
		p.hashes = append(p.hashes, hashIDs(keys[start:]))
		p.mibs = append(p.mibs, &in.MIBs[i].Info)
	}
	p.keys = keys
	return perFunc
}

// setCallSites stores the call sites perFunc (pc ids per function, in
// p.callGUID order) as p.callPCs and p.callOff.
func (p *Prepared) setCallSites(perFunc [][]int32) {
	p.callOff = make([]int32, 1, len(perFunc)+1)
	for _, l := range perFunc {
		p.callPCs = append(p.callPCs, l...)
		p.callOff = append(p.callOff, int32(len(p.callPCs)))
	}
}

// prepScratch is Prepare's scratch memory, recycled through
// prepScratchPool.
type prepScratch struct {
	spans []prepSpan
	flat  []int32
	local addrTable
	gid   []int32 // local index -> pc id (not recycled: resolve allocates it)
	lids  [][]int32
	seen  []uint64
	met   []bool
	sites []prepSite
	one   []int32
	// First-use ordering (LLVM < 20).
	rank     []int32
	firstUse []uint64
	byUse    []int32
}

// prepSpan locates a stack's local indexes in prepScratch.flat.
type prepSpan struct{ off, n int32 }

// prepSite is what Prepare knows of an address as a call site.
type prepSite struct {
	used  bool // listed as a call site
	site0 bool // ... for its leaf frame's function too
}

// The recycled memory is kept in free lists, not sync.Pools, which drop
// their contents at every GC: fresh memory costs page faults.
var prepScratchPool freelist.List[*prepScratch]

func (sc *prepScratch) release() {
	clear(sc.lids) // no references into the symbol table
	sc.gid = nil
	prepScratchPool.Put(sc)
}

// prepBufs are the buffers of a folded Prepared, recycled through
// prepBufPool for the next Prepare.
type prepBufs struct {
	keyOff []int32
	keys   []int32
	hashes []uint64
	mibs   []*MemInfoBlock
}

var prepBufPool freelist.List[*prepBufs]

// recycle hands p's per-MIB buffers to the next Prepare; p must not be
// used afterwards.
func (p *Prepared) recycle() {
	clear(p.mibs)
	prepBufPool.Put(&prepBufs{p.keyOff, p.keys, p.hashes, p.mibs})
	p.keyOff, p.keys, p.hashes, p.mibs = nil, nil, nil, nil
}

// resize returns s with length n and every element zero, reusing its
// memory when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// fidBits is a set of frame ids safe for one writer beside concurrent
// readers: fixed-size chunks, allocated under symTable.mu as frames are
// interned and never moved.
type fidBits struct {
	chunks [1 << 13]atomic.Pointer[[1 << 12]atomic.Uint64] // 2^13 chunks of 2^18 ids
}

func (b *fidBits) ensure(fid int32) {
	if c := &b.chunks[fid>>18]; c.Load() == nil {
		c.Store(new([1 << 12]atomic.Uint64))
	}
}

func (b *fidBits) set(fid int32) { b.chunks[fid>>18].Load()[fid>>6&4095].Or(1 << (fid & 63)) }

func (b *fidBits) has(fid int32) bool {
	return b.chunks[fid>>18].Load()[fid>>6&4095].Load()&(1<<(fid&63)) != 0
}

// addrTable numbers distinct addresses in order of first number call.
type addrTable struct {
	index hashtab.Index // entry k is addrs[k], hashed as itself
	addrs []uint64      // index -> address
}

func (t *addrTable) number(addr uint64) int32 {
	p := t.index.Probe(addr)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if t.addrs[p.Entry] == addr {
			return p.Entry
		}
	}
	t.addrs = append(t.addrs, addr)
	return t.index.Add(addr, p)
}

// reset empties t, keeping its memory.
func (t *addrTable) reset() {
	t.index.Reset()
	t.addrs = t.addrs[:0]
}

// hashIDs hashes a frame-id sequence for the call-stack table.
func hashIDs(ids []int32) uint64 {
	h := uint64(len(ids)) * 0x9e3779b97f4a7c15
	for _, id := range ids {
		h = (h ^ uint64(uint32(id))) * 0xff51afd7ed558ccd
		h ^= h >> 29
	}
	return h
}

// resolve returns the pc ids of addrs (distinct), symbolizing those no one
// has met yet, and snapshots of the table's addresses and frames that
// cover them.
func (t *symTable) resolve(addrs []uint64, fn func(uint64) pcInfo, workers int) (ids []int32, pcs []symPC, frames []Frame, names []string) {
	ids = make([]int32, len(addrs))
	var missing []int
	lookup := func(from []int) []int {
		var still []int
		t.mu.RLock()
		defer t.mu.RUnlock()
		if from == nil {
			for i, a := range addrs {
				if k, ok := t.pcIndex[a]; ok {
					ids[i] = k
				} else {
					still = append(still, i)
				}
			}
			return still
		}
		for _, i := range from {
			if k, ok := t.pcIndex[addrs[i]]; ok {
				ids[i] = k
			} else {
				still = append(still, i)
			}
		}
		return still
	}
	missing = lookup(nil)
	if len(missing) > 0 {
		t.symMu.Lock()
		missing = lookup(missing) // another Prepare may have added some
		fresh := make([]uint64, len(missing))
		for j, i := range missing {
			fresh[j] = addrs[i]
		}
		infos := symbolizeAll(fresh, fn, workers)
		t.mu.Lock()
		for j, info := range infos {
			var e symPC
			if !info.discard {
				e.ids = make([]int32, len(info.frames))
				for i, f := range info.frames {
					e.ids[i] = t.intern(f, info.names[i])
				}
			}
			k := int32(len(t.pcs))
			t.pcs = append(t.pcs, e)
			t.pcIndex[fresh[j]] = k
			ids[missing[j]] = k
		}
		t.mu.Unlock()
		t.symMu.Unlock()
	}
	t.mu.RLock()
	pcs, frames, names = t.pcs[:len(t.pcs):len(t.pcs)], t.frames[:len(t.frames):len(t.frames)], t.names[:len(t.names):len(t.names)]
	t.mu.RUnlock()
	return ids, pcs, frames, names
}

// intern returns the id of frame f, adding it if new. t.mu is held.
func (t *symTable) intern(f Frame, name string) int32 {
	k := frameTuple{f.Function, f.LineOffset, f.Column, f.IsInlineFrame}
	if id, ok := t.frameID[k]; ok {
		return id
	}
	id := int32(len(t.frames))
	t.placed.ensure(id)
	t.frameID[k] = id
	t.frames = append(t.frames, f)
	t.names = append(t.names, name)
	return id
}

// Fold applies a prepared input to the merged state, as if it were loaded
// into a writer context of its own. Inputs must be folded in FoldOrder to
// match llvm-profdata. A Prepared is folded once: Fold recycles its buffers.
func (c *Converter) Fold(p *Prepared) { c.fold(p, true) }

// fold is loadInput + mergeWriterContexts for one input. With full false
// (LLVM 22, not the first input of its context) only the input's first
// frame is kept: InstrProfWriter::addMemProfData returns after adding one
// frame when the context already holds MemProf data (upstream bug,
// verified with llvm-profdata-22).
func (c *Converter) fold(p *Prepared, full bool) {
	defer p.recycle()
	c.inputs++
	c.kept = p.kept
	cur := c.inputs
	if n := len(p.frames); n > len(c.frameOrd) {
		c.frameOrd = append(c.frameOrd, make([]int32, n-len(c.frameOrd))...)
		c.frameRec = append(c.frameRec, make([]int32, n-len(c.frameRec))...)
	}
	if n := len(p.pcs); n > len(c.pcStack) {
		c.pcStack = append(c.pcStack, make([]int32, n-len(c.pcStack))...)
	}
	if !full {
		c.place(p.first, p)
		return
	}
	for _, fid := range p.frameRun {
		c.place(fid, p)
	}
	runs := c.release.MemProfDenseMapOrder() && !c.merge // runs only matter to the LLVM 16/19 writers
	if runs {
		c.frameRuns = append(c.frameRuns, p.frameRun)
	}

	// Records in first-touch order: alloc sites per MIB, then call sites.
	var csRun []int32
	if runs {
		csRun = make([]int32, 0, len(p.mibs)+len(p.callPCs))
	}
	for i := range p.mibs {
		key := p.keys[p.keyOff[i]:p.keyOff[i+1]]
		s := c.stack(key, p.hashes[i], cur, &csRun)
		info := p.mibs[i]
		if c.merge {
			if m := c.stackMIB[s]; m != nil {
				m.Merge(info) // the context's sites all share m
				continue
			}
			info = info.clone()
			c.stackMIB[s] = info
			if n := int(s) + 1; n > len(c.stackFirst) {
				c.stackFirst = append(c.stackFirst, make([]PartialState, n-len(c.stackFirst))...)
			}
			c.stackFirst[s] = FirstState(info)
		}
		for _, fid := range key {
			f := &p.frames[fid]
			ri := c.frameRec[fid] - 1
			if ri < 0 {
				ri = c.recordIndex(f.Function, cur)
				c.frameRec[fid] = ri + 1
			}
			c.allocs = append(grow2(c.allocs, 1), allocRef{rec: ri, stack: s, info: info})
			c.recAlloc[ri]++
			if !f.IsInlineFrame {
				break
			}
		}
	}
	for f, guid := range p.callGUID {
		ri := c.recordIndex(guid, cur)
		for _, g := range p.callPCs[p.callOff[f]:p.callOff[f+1]] {
			s := c.pcStack[g] - 1
			if s < 0 {
				ids := p.pcs[g].ids
				s = c.stack(ids, hashIDs(ids), cur, &csRun)
				c.pcStack[g] = s + 1
			} else {
				c.note(s, cur, &csRun)
			}
			// LLVM 16/19 append call sites to an existing record; LLVM 22
			// keeps those of the input that created it. Merging contexts
			// keeps each distinct one once, from any input.
			if c.merge {
				if _, ok := c.callSet[callRef{ri, s}]; ok {
					continue
				}
				c.callSet[callRef{ri, s}] = struct{}{}
				c.calls = append(c.calls, callRef{ri, s})
				c.recCall[ri]++
			} else if !c.release.MemProfKeepsFirstInputCallSites() || c.recInput[ri] == cur {
				c.calls = append(c.calls, callRef{ri, s})
				c.recCall[ri]++
			}
		}
	}
	if runs {
		c.csRuns = append(c.csRuns, csRun)
	}
}

// place appends frame fid to the merged frame list if it is not there yet;
// the first frame placed for a function names it.
func (c *Converter) place(fid int32, p *Prepared) {
	if c.frameOrd[fid] == 0 {
		c.placed = append(c.placed, fid)
		c.frameOrd[fid] = int32(len(c.placed))
		c.sym.placed.set(fid)
		if fn := p.frames[fid].Function; c.symName[fn] == "" {
			c.symName[fn] = p.names[fid]
		}
	}
}

// stack returns the call stack with frame ids key, creating it if new,
// and notes its use by input cur.
func (c *Converter) stack(key []int32, h uint64, cur int32, run *[]int32) int32 {
	p := c.stackTab.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if s := p.Entry; slices.Equal(c.stackFrames[c.stackOff[s]:c.stackOff[s+1]], key) {
			c.note(s, cur, run)
			return s
		}
	}
	s := c.stackTab.Add(h, p)
	c.stackFrames = append(grow2(c.stackFrames, len(key)), key...)
	c.stackOff = append(grow2(c.stackOff, 1), int32(len(c.stackFrames)))
	c.stackStamp = append(grow2(c.stackStamp, 1), 0)
	if c.merge {
		c.stackMIB = append(c.stackMIB, nil)
	}
	c.note(s, cur, run)
	return s
}

// grow2 returns s with room for n more elements, doubling its capacity
// when it must grow: append grows large slices by a quarter, and for the
// merged state's arrays (tens of MB when contexts are appended) each
// growth is a copy and fresh pages to fault in.
func grow2[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 64))
	copy(t, s)
	return t
}

// note records that input cur uses stack s: it joins cur's run on first
// use by cur (LLVM < 20).
func (c *Converter) note(s, cur int32, run *[]int32) {
	if c.stackStamp[s] == cur {
		return
	}
	c.stackStamp[s] = cur
	if c.release.MemProfDenseMapOrder() && !c.merge {
		*run = append(*run, s)
	}
}

// recordIndex is InstrProfWriter::addMemProfRecord's lookup: the record of
// guid, created (by input cur) if absent.
func (c *Converter) recordIndex(guid uint64, cur int32) int32 {
	if i, ok := c.recIndex[guid]; ok {
		return i
	}
	i := int32(len(c.records))
	c.recIndex[guid] = i
	c.records = append(c.records, guid)
	c.recInput = append(c.recInput, cur)
	c.recAlloc = append(c.recAlloc, 0)
	c.recCall = append(c.recCall, 0)
	return i
}

// Compact returns the merged profile in its dense form. The Converter must
// not be used afterwards.
func (c *Converter) Compact() (*Compact, error) {
	if c.inputs == 0 {
		return nil, &ConvertError{File: c.bin.Path(), Msg: "no raw profiles to convert"}
	}
	t := c.sym
	t.mu.RLock()
	frames := t.frames
	t.mu.RUnlock()
	out := &Compact{
		Frames:      make([]Frame, len(c.placed)),
		StackOff:    c.stackOff,
		StackFrames: c.stackFrames,
		Records:     make([]CompactRecord, len(c.records)),
		AllocSites:  make([]CompactAlloc, len(c.allocs)),
		CallSites:   make([]int32, len(c.calls)),
		SymbolNames: make(map[uint64]string, len(c.symName)),
	}
	if c.merge {
		out.First = c.stackFirst
	}
	for i, fid := range c.placed {
		out.Frames[i] = frames[fid]
		if _, ok := out.SymbolNames[frames[fid].Function]; !ok {
			out.SymbolNames[frames[fid].Function] = c.symName[frames[fid].Function]
		}
	}
	for i, fid := range out.StackFrames {
		out.StackFrames[i] = c.frameOrd[fid] - 1
	}
	var a, k int32
	for i, guid := range c.records {
		out.Records[i] = CompactRecord{GUID: guid, AllocStart: a, CallStart: k}
		a += c.recAlloc[i]
		k += c.recCall[i]
		c.recAlloc[i], c.recCall[i] = out.Records[i].AllocStart, out.Records[i].CallStart // next free slot
	}
	for _, r := range c.allocs {
		out.AllocSites[c.recAlloc[r.rec]] = CompactAlloc{Stack: r.stack, Info: r.info}
		c.recAlloc[r.rec]++
	}
	for _, r := range c.calls {
		out.CallSites[c.recCall[r.rec]] = r.stack
		c.recCall[r.rec]++
	}
	for i := range out.Records {
		out.Records[i].AllocEnd, out.Records[i].CallEnd = c.recAlloc[i], c.recCall[i]
	}
	if c.release.MemProfDenseMapOrder() && len(c.frameRuns) > 1 {
		out.FrameRuns = make([][]int32, len(c.frameRuns))
		for i, run := range c.frameRuns {
			r := make([]int32, len(run))
			for j, fid := range run {
				r[j] = c.frameOrd[fid] - 1
			}
			out.FrameRuns[i] = r
		}
		out.StackRuns = c.csRuns
	}
	*c = Converter{bin: c.bin} // drop the indexes: the writer needs the memory
	return out, nil
}

// Profile returns the merged profile. The Converter must not be used
// afterwards.
func (c *Converter) Profile() (*Profile, error) {
	cp, err := c.Compact()
	if err != nil {
		return nil, err
	}
	return cp.Profile(), nil
}
