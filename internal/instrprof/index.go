package instrprof

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

// indexed is a Profile with frames and call stacks replaced by dense
// indexes, as LLVM's IndexedMemProfData holds them by id. Frame f (0 ≤ f <
// len(frames)) is the f-th distinct FrameId in first-insertion order; call
// stack s is the s-th distinct CallStackId likewise. The writers work on
// these indexes with plain slices; ids are looked up only when written.
type indexed struct {
	release  llvmrelease.Release
	frames   []memprof.Frame // frame → frame
	frameIDs []uint64        // frame → FrameId
	// Stack s holds frames stackFrames[stackOff[s]:stackOff[s+1]], leaf first.
	stackOff    []int32
	stackFrames []int32
	records     []idxRecord
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

type idxRecord struct {
	guid  uint64
	alloc []idxAlloc
	calls []idxCall
}

type idxAlloc struct {
	stack int32
	info  *memprof.MemInfoBlock
}

type idxCall struct {
	stack   int32
	callees []uint64
}

func (ix *indexed) numStacks() int { return len(ix.stackOff) - 1 }

// stack returns the frames of stack s, leaf first.
func (ix *indexed) stack(s int32) []int32 {
	return ix.stackFrames[ix.stackOff[s]:ix.stackOff[s+1]]
}

func index(p *memprof.Profile, release llvmrelease.Release) (*indexed, error) {
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
	ix := &indexed{
		release:     release,
		idFrame:     make(map[uint64]int32),
		stackOff:    make([]int32, 1, nAlloc+nCall+1),
		stackFrames: make([]int32, 0, nFrames+nCall),
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
	ix.records = make([]idxRecord, len(p.Records))
	allocs := make([]idxAlloc, nAlloc)
	calls := make([]idxCall, nCall)
	for i, r := range p.Records {
		ir := &ix.records[i]
		ir.guid = r.GUID
		ir.alloc, allocs = allocs[:len(r.AllocSites):len(r.AllocSites)], allocs[len(r.AllocSites):]
		for j := range r.AllocSites {
			a := &r.AllocSites[j]
			ir.alloc[j] = idxAlloc{stack: ix.addStack(a.CallStack), info: &a.Info}
		}
	}
	for i, r := range p.Records {
		ir := &ix.records[i]
		ir.calls, calls = calls[:len(r.CallSites):len(r.CallSites)], calls[len(r.CallSites):]
		for j, c := range r.CallSites {
			ir.calls[j] = idxCall{stack: ix.addStack(c.Frames), callees: c.CalleeGUIDs}
		}
	}
	ix.keyTab, ix.keys = hashtab.Index{}, nil
	ix.stackTab, ix.scratch, ix.bySlice, ix.slices = hashtab.Index{}, nil, hashtab.Index{}, nil
	return ix, nil
}

// addFrame returns the frame index of f's FrameId, adding it if new.
// FrameID (BLAKE3 from LLVM 20) is computed once per distinct frame.
func (ix *indexed) addFrame(f memprof.Frame) int32 {
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
		fr = int32(len(ix.frames))
		ix.idFrame[id] = fr
		ix.frames = append(ix.frames, f)
		ix.frameIDs = append(ix.frameIDs, id)
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
func (ix *indexed) addStack(fs []memprof.Frame) int32 {
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

func (ix *indexed) addStackFrames(fs []memprof.Frame) int32 {
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
		if slices.Equal(ix.stack(p.Entry), sc) {
			return p.Entry
		}
	}
	s := ix.stackTab.Add(h, p)
	ix.stackFrames = append(ix.stackFrames, sc...)
	ix.stackOff = append(ix.stackOff, int32(len(ix.stackFrames)))
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
func (ix *indexed) stackIDs() []uint64 {
	ids := make([]uint64, ix.numStacks())
	var b []byte
	for s := range ids {
		b = b[:0]
		for _, f := range ix.stack(int32(s)) {
			b = le.AppendUint64(b, ix.frameIDs[f])
		}
		ids[s] = truncatedBLAKE3(b)
	}
	return ids
}

// frameTableOrder is the order in which V0–V2 frame tables receive their
// frames: up to LLVM 19, llvm-profdata copies each input reader's DenseMap,
// in its iteration order, into the writer's insertion-ordered map (one run
// per input; Profile.FrameRuns), later inputs adding only new entries; from
// LLVM 20 the maps are insertion-ordered throughout.
func (ix *indexed) frameTableOrder() []int32 {
	return ix.tableOrder(ix.frameIDs, ix.frameRuns)
}

// stackTableOrder is frameTableOrder for call stacks; ids are stackIDs.
func (ix *indexed) stackTableOrder(ids []uint64) []int32 {
	return ix.tableOrder(ids, ix.stackRuns)
}

// tableOrder returns the entries (indexes into ids) in table order.
func (ix *indexed) tableOrder(ids []uint64, runs [][]int32) []int32 {
	out := make([]int32, 0, len(ids))
	if !ix.release.MemProfDenseMapOrder() {
		for i := range ids {
			out = append(out, int32(i))
		}
		return out
	}
	if len(runs) == 0 {
		return denseOrder(ix.release, ids)
	}
	seen := make([]bool, len(ids))
	var keys []uint64
	for _, run := range runs {
		keys = keys[:0]
		for _, e := range run {
			keys = append(keys, ids[e])
		}
		for _, j := range denseOrder(ix.release, keys) {
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

// denseOrder returns the iteration order of an llvm::DenseMap<uint64_t, T>
// of release after inserting keys in turn, as indexes into keys (of each
// key's first occurrence). LLVM asserts on its two reserved keys (2^64−1,
// 2^64−2); they cannot occur as hashes in practice and are left out.
func denseOrder(release llvmrelease.Release, keys []uint64) []int32 {
	m := densemap.New(release, keys)
	for i, k := range keys {
		if k < ^uint64(0)-1 {
			m.Insert(int32(i))
		}
	}
	return m.Order()
}

// indexCompact is index for a profile in dense form. Its frames and call
// stacks are already numbered and distinct; only FrameIds are computed.
// Two frames with one FrameId (a hash collision, or LLVM 16's id ignoring
// a field) make the numbering differ from LLVM's, so such a profile takes
// the general path.
func indexCompact(c *memprof.Compact, release llvmrelease.Release) (*indexed, error) {
	if c == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	if len(c.StackOff) == 0 || c.StackOff[0] != 0 {
		return nil, fmt.Errorf("instrprof: compact profile without call-stack offsets")
	}
	ix := &indexed{release: release, idFrame: make(map[uint64]int32, len(c.Frames))}
	for _, f := range c.Frames {
		ix.addFrame(f)
	}
	if len(ix.frames) != len(c.Frames) {
		return index(c.Profile(), release)
	}
	ix.stackOff, ix.stackFrames = c.StackOff, c.StackFrames
	ix.frameRuns, ix.stackRuns = c.FrameRuns, c.StackRuns
	ix.records = make([]idxRecord, len(c.Records))
	allocs := make([]idxAlloc, len(c.AllocSites))
	for i, a := range c.AllocSites {
		allocs[i] = idxAlloc{stack: a.Stack, info: a.Info}
	}
	calls := make([]idxCall, len(c.CallSites))
	for i, s := range c.CallSites {
		calls[i] = idxCall{stack: s}
	}
	for i, r := range c.Records {
		ix.records[i] = idxRecord{guid: r.GUID,
			alloc: allocs[r.AllocStart:r.AllocEnd:r.AllocEnd],
			calls: calls[r.CallStart:r.CallEnd:r.CallEnd]}
	}
	ix.keyTab, ix.keys = hashtab.Index{}, nil
	return ix, nil
}
