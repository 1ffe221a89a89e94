package memprofidx

import (
	"fmt"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/rules-pgo/rules_pgo/internal/densemap"
	"github.com/rules-pgo/rules_pgo/internal/hashtab"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Indexed is a Profile with frames and call stacks replaced by dense
// indexes, as LLVM's IndexedMemProfData holds them by id. Frame f (0 ≤ f <
// len(frames)) is the f-th distinct FrameId in first-insertion order; call
// stack s is the s-th distinct CallStackId likewise. The writers work on
// these indexes with plain slices; ids are looked up only when written.
type Indexed struct {
	// Workers is how many goroutines the radix tree and call-stack ids
	// are computed on (the writer's worker count; ≤ 1 is serial).
	Workers  int
	release  llvmrelease.Release
	Frames   []memprof.Frame // frame → frame
	FrameIDs []uint64        // frame → FrameId
	// Stack s holds frames stackFrames[stackOff[s]:stackOff[s+1]], leaf first.
	StackOff    []int32
	StackFrames []int32
	Records     []Record
	frameRuns   [][]int32 // per-input frame lists (Profile.FrameRuns)
	stackRuns   [][]int32 // per-input stack lists (Profile.CallStackRuns)

	keyTab   hashtab.Index    // key index k is entry k, hashed by frameKey.hash
	keys     []frameKey       // key index → key
	keyFrame []int32          // key index → frame
	idFrame  map[uint64]int32 // FrameId → frame
	stackTab hashtab.Index    // stack s is entry s, hashed by its frame indexes
	scratch  []int32
	bySlice  hashtab.Index // entry i is slices[i], hashed by its address
	slices   []sliceKey
}

// Record is a memprof.Record over the dense indexes: its alloc sites'
// and call sites' stacks are call-stack indexes of the Indexed.
type Record struct {
	GUID  uint64
	Alloc []Alloc
	Calls []Call
}

// Alloc is an allocation site: its call stack's index and its MIB.
type Alloc struct {
	Stack int32
	Info  *memprof.MemInfoBlock
}

// Call is a call site: its call stack's index and, in V4, its callees.
type Call struct {
	Stack   int32
	Callees []uint64
}

// NumStacks is the number of distinct call stacks.
func (ix *Indexed) NumStacks() int { return len(ix.StackOff) - 1 }

// Stack returns the frames of stack s, leaf first.
func (ix *Indexed) Stack(s int32) []int32 {
	return ix.StackFrames[ix.StackOff[s]:ix.StackOff[s+1]]
}

// Index interns p's frames and call stacks as release's writer does (its
// FrameId and CallStackId hashes) and returns p over the dense indexes.
func Index(p *memprof.Profile, release llvmrelease.Release) (*Indexed, error) {
	if p == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	nAlloc, nCall, nFrames := 0, 0, 0
	for i, r := range p.Records {
		if r == nil {
			return nil, fmt.Errorf("instrprof: record %d is nil", i)
		}
		nAlloc += len(r.AllocSites)
		nCall += len(r.CallSites)
		for j := range r.AllocSites {
			nFrames += len(r.AllocSites[j].CallStack)
		}
	}
	ix := &Indexed{
		release:     release,
		idFrame:     make(map[uint64]int32),
		StackOff:    make([]int32, 1, nAlloc+nCall+1),
		StackFrames: make([]int32, 0, nFrames+nCall),
	}
	ix.stackTab.Reserve(nAlloc + nCall)
	ix.bySlice.Reserve(max(len(p.CallStacks), nAlloc))
	ix.slices = make([]sliceKey, 0, max(len(p.CallStacks), nAlloc))
	for _, f := range p.Frames {
		ix.addFrame(f)
	}
	for _, s := range p.CallStacks {
		ix.addStack(s)
	}
	for _, run := range p.FrameRuns {
		r := make([]int32, len(run))
		for i, f := range run {
			r[i] = ix.addFrame(f)
		}
		ix.frameRuns = append(ix.frameRuns, r)
	}
	for _, run := range p.CallStackRuns {
		r := make([]int32, len(run))
		for i, s := range run {
			r[i] = ix.addStack(s)
		}
		ix.stackRuns = append(ix.stackRuns, r)
	}
	// Without explicit orders, LLVM's record construction inserts every
	// allocation stack (in record order) before any call-site stack.
	ix.Records = make([]Record, len(p.Records))
	allocs := make([]Alloc, nAlloc)
	calls := make([]Call, nCall)
	for i, r := range p.Records {
		ir := &ix.Records[i]
		ir.GUID = r.GUID
		ir.Alloc, allocs = allocs[:len(r.AllocSites):len(r.AllocSites)], allocs[len(r.AllocSites):]
		for j := range r.AllocSites {
			a := &r.AllocSites[j]
			ir.Alloc[j] = Alloc{Stack: ix.addStack(a.CallStack), Info: &a.Info}
		}
	}
	for i, r := range p.Records {
		ir := &ix.Records[i]
		ir.Calls, calls = calls[:len(r.CallSites):len(r.CallSites)], calls[len(r.CallSites):]
		for j, c := range r.CallSites {
			ir.Calls[j] = Call{Stack: ix.addStack(c.Frames), Callees: c.CalleeGUIDs}
		}
	}
	ix.keyTab, ix.keys = hashtab.Index{}, nil
	ix.stackTab, ix.scratch, ix.bySlice, ix.slices = hashtab.Index{}, nil, hashtab.Index{}, nil
	return ix, nil
}

// addFrame returns the frame index of f's FrameId, adding it if new.
// FrameID (BLAKE3 from LLVM 20) is computed once per distinct frame.
func (ix *Indexed) addFrame(f memprof.Frame) int32 {
	k := keyOf(f)
	h := k.hash()
	p := ix.keyTab.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if ix.keys[p.Entry] == k {
			return ix.keyFrame[p.Entry]
		}
	}
	ix.keyTab.Add(h, p)
	ix.keys = append(ix.keys, k)
	id := FrameID(ix.release, f)
	fr, ok := ix.idFrame[id]
	if !ok {
		fr = int32(len(ix.Frames))
		ix.idFrame[id] = fr
		ix.Frames = append(ix.Frames, f)
		ix.FrameIDs = append(ix.FrameIDs, id)
	}
	ix.keyFrame = append(ix.keyFrame, fr)
	return fr
}

// addStack returns the stack index of fs, adding it if new. Stacks are
// equal when their FrameIds are, so comparing frame indexes is enough.
//
// Convert hands out one slice per distinct stack and shares it between
// CallStacks, the runs and every allocation site, so a slice seen before
// (same first element and length) is resolved without reading its frames.
func (ix *Indexed) addStack(fs []memprof.Frame) int32 {
	if len(fs) == 0 {
		return ix.addStackFrames(fs)
	}
	addr, n := sliceAddr(fs), int32(len(fs))
	p := ix.bySlice.Probe(uint64(addr))
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if e := ix.slices[p.Entry]; e.addr == addr && e.n == n {
			return e.stack
		}
	}
	s := ix.addStackFrames(fs)
	ix.bySlice.Add(uint64(addr), p)
	ix.slices = append(ix.slices, sliceKey{addr: addr, n: n, stack: s})
	return s
}

// sliceKey is a stack slice, by the address of its first frame and its
// length, and its stack. The address is stored as an integer: the profile
// keeps the slices alive while it is indexed, and the array stays noscan.
type sliceKey struct {
	addr  uintptr
	n     int32
	stack int32
}

func sliceAddr(fs []memprof.Frame) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(fs))) }

func (ix *Indexed) addStackFrames(fs []memprof.Frame) int32 {
	sc := ix.scratch[:0]
	h := uint64(len(fs))
	for _, f := range fs {
		fr := ix.addFrame(f)
		sc = append(sc, fr)
		h = (h ^ uint64(fr)) * 0x9e3779b97f4a7c15
	}
	ix.scratch = sc
	h ^= h >> 32
	p := ix.stackTab.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if slices.Equal(ix.Stack(p.Entry), sc) {
			return p.Entry
		}
	}
	s := ix.stackTab.Add(h, p)
	ix.StackFrames = append(ix.StackFrames, sc...)
	ix.StackOff = append(ix.StackOff, int32(len(ix.StackFrames)))
	return s
}

// hash mixes a frame key's fields for the key table.
func (k frameKey) hash() uint64 {
	h := k.Function ^ bits.RotateLeft64((uint64(k.LineOffset)<<32|uint64(k.Column))*0xc2b2ae3d27d4eb4f, 29)
	if k.Inline {
		h = ^h
	}
	return h
}

// stackIDs returns every stack's CallStackId (V2 only; V3+ need none).
func (ix *Indexed) stackIDs() []uint64 {
	ids := make([]uint64, ix.NumStacks())
	var b []byte
	for s := range ids {
		b = b[:0]
		for _, f := range ix.Stack(int32(s)) {
			b = le.AppendUint64(b, ix.FrameIDs[f])
		}
		ids[s] = truncatedBLAKE3(b)
	}
	return ids
}

// FrameTableOrder is the order in which V0–V2 frame tables receive their
// frames: up to LLVM 19, llvm-profdata copies each input reader's DenseMap,
// in its iteration order, into the writer's insertion-ordered map (one run
// per input; Profile.FrameRuns), later inputs adding only new entries; from
// LLVM 20 the maps are insertion-ordered throughout.
func (ix *Indexed) FrameTableOrder() []int32 {
	return ix.tableOrder(ix.FrameIDs, ix.frameRuns)
}

// StackTableOrder is FrameTableOrder for call stacks; ids are stackIDs.
func (ix *Indexed) StackTableOrder(ids []uint64) []int32 {
	return ix.tableOrder(ids, ix.stackRuns)
}

// tableOrder returns the entries (indexes into ids) in table order.
func (ix *Indexed) tableOrder(ids []uint64, runs [][]int32) []int32 {
	out := make([]int32, 0, len(ids))
	if !ix.release.MemProfDenseMapOrder() {
		for i := range ids {
			out = append(out, int32(i))
		}
		return out
	}
	if len(runs) == 0 {
		return DenseOrder(ix.release, ids)
	}
	seen := make([]bool, len(ids))
	var keys []uint64
	for _, run := range runs {
		keys = keys[:0]
		for _, e := range run {
			keys = append(keys, ids[e])
		}
		for _, j := range DenseOrder(ix.release, keys) {
			if e := run[j]; !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	// Entries outside every run (not produced by Convert) come last.
	for e := range ids {
		if !seen[e] {
			seen[e] = true
			out = append(out, int32(e))
		}
	}
	return out
}

// DenseOrder returns the iteration order of an llvm::DenseMap<uint64_t, T>
// of release after inserting keys in turn, as indexes into keys (of each
// key's first occurrence). LLVM asserts on its two reserved keys (2^64−1,
// 2^64−2); they cannot occur as hashes in practice and are left out.
func DenseOrder(release llvmrelease.Release, keys []uint64) []int32 {
	m := densemap.New(release, keys)
	for i, k := range keys {
		if k < ^uint64(0)-1 {
			m.Insert(int32(i))
		}
	}
	return m.Order()
}

// IndexCompact is index for a profile in dense form. Its frames and call
// stacks are already numbered and distinct; only FrameIds are computed.
// Two frames with one FrameId (a hash collision, or LLVM 16's id ignoring
// a field) make the numbering differ from LLVM's, so such a profile takes
// the general path.
func IndexCompact(c *memprof.Compact, release llvmrelease.Release) (*Indexed, error) {
	if c == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	if len(c.StackOff) == 0 || c.StackOff[0] != 0 {
		return nil, fmt.Errorf("instrprof: compact profile without call-stack offsets")
	}
	ix := &Indexed{release: release, idFrame: make(map[uint64]int32, len(c.Frames))}
	for _, f := range c.Frames {
		ix.addFrame(f)
	}
	if len(ix.Frames) != len(c.Frames) {
		return Index(c.Profile(), release)
	}
	ix.StackOff, ix.StackFrames = c.StackOff, c.StackFrames
	ix.frameRuns, ix.stackRuns = c.FrameRuns, c.StackRuns
	ix.Records = make([]Record, len(c.Records))
	allocs := make([]Alloc, len(c.AllocSites))
	for i, a := range c.AllocSites {
		allocs[i] = Alloc{Stack: a.Stack, Info: a.Info}
	}
	calls := make([]Call, len(c.CallSites))
	for i, s := range c.CallSites {
		calls[i] = Call{Stack: s}
	}
	for i, r := range c.Records {
		ix.Records[i] = Record{GUID: r.GUID,
			Alloc: allocs[r.AllocStart:r.AllocEnd:r.AllocEnd],
			Calls: calls[r.CallStart:r.CallEnd:r.CallEnd]}
	}
	ix.keyTab, ix.keys = hashtab.Index{}, nil
	return ix, nil
}
