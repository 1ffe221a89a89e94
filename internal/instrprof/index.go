package instrprof

import (
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// indexed is a Profile with frames and call stacks replaced by their ids, as
// LLVM's IndexedMemProfData holds it.
type indexed struct {
	release    int
	frames     map[uint64]memprof.Frame // FrameId → frame
	frameOrder []uint64                 // first-insertion order
	stacks     map[uint64][]uint64      // CallStackId → FrameIds, leaf first
	stackOrder []uint64                 // first-insertion order
	records    []idxRecord
	frameRuns  [][]uint64 // per-input FrameId lists (Profile.FrameRuns)
	stackRuns  [][]uint64 // per-input CallStackId lists (Profile.CallStackRuns)
}

type idxRecord struct {
	guid  uint64
	alloc []idxAlloc
	calls []idxCall
}

type idxAlloc struct {
	frames []uint64
	csid   uint64
	info   *memprof.MemInfoBlock
}

type idxCall struct {
	frames  []uint64
	csid    uint64
	callees []uint64
}

func index(p *memprof.Profile, release int) (*indexed, error) {
	if p == nil {
		return nil, fmt.Errorf("instrprof: nil profile")
	}
	ix := &indexed{
		release: release,
		frames:  make(map[uint64]memprof.Frame),
		stacks:  make(map[uint64][]uint64),
	}
	ids := make(map[frameKey]uint64) // FrameID is costly with BLAKE3
	addFrame := func(f memprof.Frame) uint64 {
		k := keyOf(f)
		id, ok := ids[k]
		if !ok {
			id = FrameID(release, f)
			ids[k] = id
		}
		if _, ok := ix.frames[id]; !ok {
			ix.frames[id] = f
			ix.frameOrder = append(ix.frameOrder, id)
		}
		return id
	}
	addStack := func(fs []memprof.Frame) ([]uint64, uint64) {
		ids := make([]uint64, len(fs))
		for i, f := range fs {
			ids[i] = addFrame(f)
		}
		cs := CallStackID(ids)
		if _, ok := ix.stacks[cs]; !ok {
			ix.stacks[cs] = ids
			ix.stackOrder = append(ix.stackOrder, cs)
		}
		return ids, cs
	}
	for _, f := range p.Frames {
		addFrame(f)
	}
	for _, s := range p.CallStacks {
		addStack(s)
	}
	for _, run := range p.FrameRuns {
		r := make([]uint64, len(run))
		for i, f := range run {
			r[i] = addFrame(f)
		}
		ix.frameRuns = append(ix.frameRuns, r)
	}
	for _, run := range p.CallStackRuns {
		r := make([]uint64, len(run))
		for i, s := range run {
			_, r[i] = addStack(s)
		}
		ix.stackRuns = append(ix.stackRuns, r)
	}
	// Without explicit orders, LLVM's record construction inserts every
	// allocation stack (in record order) before any call-site stack.
	ix.records = make([]idxRecord, len(p.Records))
	for i, r := range p.Records {
		if r == nil {
			return nil, fmt.Errorf("instrprof: record %d is nil", i)
		}
		ir := &ix.records[i]
		ir.guid = r.GUID
		ir.alloc = make([]idxAlloc, len(r.AllocSites))
		for j := range r.AllocSites {
			a := &r.AllocSites[j]
			ids, cs := addStack(a.CallStack)
			ir.alloc[j] = idxAlloc{frames: ids, csid: cs, info: &a.Info}
		}
	}
	for i, r := range p.Records {
		ir := &ix.records[i]
		ir.calls = make([]idxCall, len(r.CallSites))
		for j, c := range r.CallSites {
			ids, cs := addStack(c.Frames)
			ir.calls[j] = idxCall{frames: ids, csid: cs, callees: c.CalleeGUIDs}
		}
	}
	return ix, nil
}

// frameTableOrder is the order in which V0–V2 frame tables receive their
// frames: up to LLVM 19, llvm-profdata copies each input reader's DenseMap,
// in its iteration order, into the writer's insertion-ordered map (one run
// per input; Profile.FrameRuns), later inputs adding only new entries; from
// LLVM 20 the maps are insertion-ordered throughout.
func (ix *indexed) frameTableOrder() []uint64 {
	return ix.tableOrder(ix.frameOrder, ix.frameRuns)
}

func (ix *indexed) stackTableOrder() []uint64 {
	return ix.tableOrder(ix.stackOrder, ix.stackRuns)
}

func (ix *indexed) tableOrder(order []uint64, runs [][]uint64) []uint64 {
	if ix.release > 19 {
		return order
	}
	if len(runs) == 0 {
		return denseOrder(ix.release, order)
	}
	seen := make(map[uint64]bool, len(order))
	out := make([]uint64, 0, len(order))
	for _, run := range runs {
		for _, id := range denseOrder(ix.release, run) {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	// Entries outside every run (not produced by Convert) come last.
	for _, id := range order {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
