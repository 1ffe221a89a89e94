package memprofidx

import (
	"fmt"
	"math/bits"
	"slices"

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
}

// Record is a memprof.Record over the dense indexes: its alloc sites'
// and call sites' stacks are call-stack indexes of the Indexed.
type Record struct {
	GUID  uint64
	Alloc []Alloc
	Calls []Call
}

// Alloc is an allocation site: its call stack's index and its MIB. It
// is memprof.CompactAlloc, so that an Indexed whose stacks keep their
// numbers shares the Compact's alloc sites instead of copying them.
type Alloc = memprof.CompactAlloc

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

// Index interns p's frames and call stacks (memprof.Intern) and indexes
// them as release's writer does (IndexCompact).
func Index(p *memprof.Profile, release llvmrelease.Release) (*Indexed, error) {
	if p == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	for i, r := range p.Records {
		if r == nil {
			return nil, fmt.Errorf("instrprof: record %d is nil", i)
		}
	}
	return IndexCompact(memprof.Intern(p), release)
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

// addStackFrames returns the stack index of the frame indexes sc, adding
// it if new. Stacks are equal when their FrameIds are, so comparing frame
// indexes is enough.
func (ix *Indexed) addStackFrames(sc []int32) int32 {
	h := uint64(len(sc))
	for _, fr := range sc {
		h = (h ^ uint64(fr)) * 0x9e3779b97f4a7c15
	}
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

// IndexCompact indexes a profile in dense form as release's writer does
// (its FrameId and CallStackId hashes). Its frames and call stacks are
// already numbered and distinct, so usually only FrameIds are computed.
// Two frames with one FrameId (a hash collision, or LLVM 16's id ignoring
// a field) are one frame to LLVM: the frames are then renumbered by
// FrameId and the call stacks that become equal merged, in c's order.
func IndexCompact(c *memprof.Compact, release llvmrelease.Release) (*Indexed, error) {
	if c == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	if len(c.StackOff) == 0 || c.StackOff[0] != 0 {
		return nil, fmt.Errorf("instrprof: compact profile without call-stack offsets")
	}
	ix := &Indexed{release: release, idFrame: make(map[uint64]int32, len(c.Frames))}
	frameMap := make([]int32, len(c.Frames))
	for i, f := range c.Frames {
		frameMap[i] = ix.addFrame(f)
	}
	ix.keyTab, ix.keys, ix.keyFrame = hashtab.Index{}, nil, nil
	var stackMap []int32 // nil: stacks keep their numbers
	if len(ix.Frames) == len(c.Frames) {
		ix.StackOff, ix.StackFrames = c.StackOff, c.StackFrames
		ix.frameRuns, ix.stackRuns = c.FrameRuns, c.StackRuns
	} else {
		ix.StackOff = make([]int32, 1, len(c.StackOff))
		ix.StackFrames = make([]int32, 0, len(c.StackFrames))
		ix.stackTab.Reserve(c.NumStacks())
		stackMap = make([]int32, c.NumStacks())
		var sc []int32
		for s := range stackMap {
			sc = sc[:0]
			for _, f := range c.Stack(int32(s)) {
				sc = append(sc, frameMap[f])
			}
			stackMap[s] = ix.addStackFrames(sc)
		}
		ix.stackTab = hashtab.Index{}
		remap := func(runs [][]int32, m []int32) [][]int32 {
			var out [][]int32
			for _, run := range runs {
				r := make([]int32, len(run))
				for i, e := range run {
					r[i] = m[e]
				}
				out = append(out, r)
			}
			return out
		}
		ix.frameRuns, ix.stackRuns = remap(c.FrameRuns, frameMap), remap(c.StackRuns, stackMap)
	}
	stack := func(s int32) int32 {
		if stackMap != nil {
			return stackMap[s]
		}
		return s
	}
	ix.Records = make([]Record, len(c.Records))
	allocs := c.AllocSites // read only
	if stackMap != nil {
		allocs = make([]Alloc, len(c.AllocSites))
		for i, a := range c.AllocSites {
			allocs[i] = Alloc{Stack: stackMap[a.Stack], Info: a.Info}
		}
	}
	calls := make([]Call, len(c.CallSites))
	for i, s := range c.CallSites {
		calls[i] = Call{Stack: stack(s), Callees: c.CalleesOf(i)}
	}
	for i, r := range c.Records {
		ix.Records[i] = Record{GUID: r.GUID,
			Alloc: allocs[r.AllocStart:r.AllocEnd:r.AllocEnd],
			Calls: calls[r.CallStart:r.CallEnd:r.CallEnd]}
	}
	return ix, nil
}
