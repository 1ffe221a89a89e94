package memprof

import (
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// This file keeps the original per-context conversion (one reader result
// per input, writer contexts merged pairwise, as llvm-profdata does) as a
// reference implementation for TestFoldMatchesTreeMerge.

// treeConvert is the reference: convert every input, then merge contexts.
func treeConvert(inputs []*RawProfile, bin Symbolizer, opts ConvertOptions) (*Profile, error) {
	release := opts.release()
	tb, err := checkBinary(bin, release)
	if err != nil {
		return nil, err
	}
	results := make([]*readerResult, len(inputs))
	for i, in := range inputs {
		r, err := convertOne(in, bin, tb, int(release), opts.Workers)
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	return mergeContexts(results, int(release), opts.NumThreads), nil
}

// readerResult is one input converted (LLVM's RawMemProfReader state).
type readerResult struct {
	records    []*Record
	recIndex   map[uint64]int
	frames     []Frame
	callStacks [][]Frame
	csKeys     []string // frameKey of each call stack
	names      map[uint64]string
	stacks     int // NumStackOffsets: stacks kept after symbolization
	raw        *RawProfile
}

func convertOne(in *RawProfile, bin Symbolizer, tb *textBinary, release, workers int) (*readerResult, error) {
	seg, err := profiledSegment(in, bin, tb, llvmrelease.Release(release))
	if err != nil {
		return nil, err
	}
	moduleOffset := func(pc uint64) uint64 {
		if seg.adjust && pc > seg.start && pc <= seg.end {
			return pc + tb.preferredText - seg.start
		}
		return pc
	}

	// Stack visiting order = LLVM's DenseMap iteration over the raw stack
	// map; PCs are symbolized the first time that walk meets them.
	var order []uint64
	for _, i := range in.stackMapOrder(llvmrelease.Release(release)) {
		order = append(order, in.StackIDs[i])
	}
	pcIndex := map[uint64]int{}
	var pcs []uint64
	for _, id := range order {
		for _, pc := range stackOf(in, id) {
			if _, ok := pcIndex[pc]; !ok {
				pcIndex[pc] = len(pcs)
				pcs = append(pcs, pc)
			}
		}
	}
	infos := symbolizeAll(pcs, func(pc uint64) pcInfo { return symbolize(bin, moduleOffset(pc), llvmrelease.Release(release)) }, workers)

	r := &readerResult{recIndex: map[uint64]int{}, raw: in}
	symName := map[uint64]string{}
	frameSeen := map[Frame]bool{}
	kept := map[uint64]bool{}
	// Frames enter LLVM's IdToFrame in symbolization order.
	done := make([]bool, len(pcs))
	for _, id := range order {
		nonEmpty := false
		for _, pc := range stackOf(in, id) {
			k := pcIndex[pc]
			info := &infos[k]
			if info.discard {
				continue
			}
			nonEmpty = true
			if done[k] {
				continue
			}
			done[k] = true
			for i, f := range info.frames {
				if _, ok := symName[f.Function]; !ok {
					symName[f.Function] = info.names[i]
				}
				if !frameSeen[f] {
					frameSeen[f] = true
					r.frames = append(r.frames, f)
				}
			}
		}
		if nonEmpty {
			kept[id] = true
		}
	}
	if len(kept) == 0 {
		return nil, &ConvertError{File: in.Name, Err: decode.ErrMalformed, Msg: "no entries in callstack map after symbolization"}
	}
	r.stacks = len(kept)
	r.names = symName
	withName := func(fs []Frame) []Frame { return append([]Frame(nil), fs...) }
	pcFrames := make([][]Frame, len(pcs)) // named frames per PC, built once
	framesOf := func(k int) []Frame {
		if pcFrames[k] == nil {
			pcFrames[k] = withName(infos[k].frames)
		}
		return pcFrames[k]
	}

	csSeen := map[string]bool{}
	addCallStack := func(fs []Frame) {
		key := frameKey(fs)
		if !csSeen[key] {
			csSeen[key] = true
			r.callStacks = append(r.callStacks, fs)
			r.csKeys = append(r.csKeys, key)
		}
	}
	type callSites struct {
		guid uint64
		pcs  []int
		seen map[int]bool
	}
	var perFunc []*callSites
	perFuncIndex := map[uint64]int{}

	for _, mib := range in.MIBs {
		if !kept[mib.StackID] {
			if _, ok := in.Stack(mib.StackID); !ok {
				return nil, &ConvertError{File: in.Name, Err: decode.ErrMalformed,
					Msg: fmt.Sprintf("memprof callstack record does not contain id: %d", mib.StackID)}
			}
			continue // every PC discarded: LLVM erases the MIB too
		}
		n := 0
		for _, pc := range stackOf(in, mib.StackID) {
			n += len(infos[pcIndex[pc]].frames)
		}
		stack := make([]Frame, 0, n)
		first := true
		for _, pc := range stackOf(in, mib.StackID) {
			k := pcIndex[pc]
			if infos[k].discard {
				continue
			}
			fs := framesOf(k)
			for j, f := range fs {
				if first && j == 0 {
					continue
				}
				ci, ok := perFuncIndex[f.Function]
				if !ok {
					ci = len(perFunc)
					perFuncIndex[f.Function] = ci
					perFunc = append(perFunc, &callSites{guid: f.Function, seen: map[int]bool{}})
				}
				cs := perFunc[ci]
				if !cs.seen[k] {
					cs.seen[k] = true
					cs.pcs = append(cs.pcs, k)
				}
			}
			first = false
			stack = append(stack, fs...)
		}
		addCallStack(stack)
		for _, f := range stack {
			rec := r.record(f.Function)
			rec.AllocSites = append(rec.AllocSites, AllocationInfo{CallStack: stack, Info: mib.Info})
			if !f.IsInlineFrame {
				break
			}
		}
	}
	for _, cs := range perFunc {
		rec := r.record(cs.guid)
		for _, k := range cs.pcs {
			fs := framesOf(k)
			addCallStack(fs)
			rec.CallSites = append(rec.CallSites, CallSite{Frames: fs})
		}
	}
	return r, nil
}

func (r *readerResult) record(guid uint64) *Record {
	if i, ok := r.recIndex[guid]; ok {
		return r.records[i]
	}
	r.recIndex[guid] = len(r.records)
	rec := &Record{GUID: guid}
	r.records = append(r.records, rec)
	return rec
}

// writerContext emulates llvm-profdata's InstrProfWriter memprof state.
type writerContext struct {
	records    []*Record
	recIndex   map[uint64]int
	frames     []Frame
	frameSeen  map[Frame]bool
	names      map[uint64]string
	frameRuns  [][]Frame
	callStacks [][]Frame
	csKeys     []string
	csSeen     map[string]bool
	csRuns     [][][]Frame
	loaded     int
}

func newWriterContext() *writerContext {
	return &writerContext{recIndex: map[uint64]int{}, names: map[uint64]string{}, frameSeen: map[Frame]bool{}, csSeen: map[string]bool{}}
}

// addFrames adds the new frames of fs; names maps their GUIDs to the
// names of the context they come from. A GUID's name is the one of the
// first frame listed with it.
func (w *writerContext) addFrames(fs []Frame, names map[uint64]string) {
	for _, f := range fs {
		if !w.frameSeen[f] {
			w.frameSeen[f] = true
			w.frames = append(w.frames, f)
			if _, ok := w.names[f.Function]; !ok {
				w.names[f.Function] = names[f.Function]
			}
		}
	}
}

func (w *writerContext) addCallStacks(css [][]Frame, keys []string) {
	for i, cs := range css {
		k := keys[i]
		if !w.csSeen[k] {
			w.csSeen[k] = true
			w.callStacks = append(w.callStacks, cs)
			w.csKeys = append(w.csKeys, k)
		}
	}
}

// addRecord is InstrProfWriter::addMemProfRecord: insert, or merge into the
// existing record (IndexedMemProfRecord::merge). LLVM 16 and 19 append
// alloc sites and call sites; LLVM 22 appends alloc sites only.
func (w *writerContext) addRecord(rec *Record, release int) {
	if i, ok := w.recIndex[rec.GUID]; ok {
		old := w.records[i]
		old.AllocSites = append(old.AllocSites, rec.AllocSites...)
		if release < 20 {
			old.CallSites = append(old.CallSites, rec.CallSites...)
		}
		return
	}
	w.recIndex[rec.GUID] = len(w.records)
	cp := *rec
	cp.AllocSites = append([]AllocationInfo(nil), rec.AllocSites...)
	cp.CallSites = append([]CallSite(nil), rec.CallSites...)
	w.records = append(w.records, &cp)
}

// load is loadInput for a raw memprof input.
func (w *writerContext) load(r *readerResult, release int) {
	defer func() { w.loaded++ }()
	if release >= 22 && w.loaded > 0 && len(w.frames) > 0 {
		// InstrProfWriter::addMemProfData (LLVM 22) returns after the first
		// frame it manages to add when the writer already holds MemProf
		// data, so a second raw input in one writer context contributes at
		// most that frame (upstream bug; verified with llvm-profdata-22).
		if len(r.frames) > 0 {
			w.addFrames(r.frames[:1], r.names)
		}
		return
	}
	w.addFrames(r.frames, r.names)
	w.addCallStacks(r.callStacks, r.csKeys)
	w.frameRuns = append(w.frameRuns, r.frames)
	w.csRuns = append(w.csRuns, r.callStacks)
	for _, rec := range r.records {
		w.addRecord(rec, release)
	}
}

// merge is mergeWriterContexts(dst=w, src).
func (w *writerContext) merge(src *writerContext, release int) {
	w.addFrames(src.frames, src.names)
	w.addCallStacks(src.callStacks, src.csKeys)
	w.frameRuns = append(w.frameRuns, src.frameRuns...)
	w.csRuns = append(w.csRuns, src.csRuns...)
	for _, rec := range src.records {
		w.addRecord(rec, release)
	}
}

func mergeContexts(results []*readerResult, release, threads int) *Profile {
	if threads <= 0 {
		threads = 1
	}
	threads = min(threads, len(results))
	ctxs := make([]*writerContext, threads)
	for i := range ctxs {
		ctxs[i] = newWriterContext()
	}
	for i, r := range results {
		ctxs[i%threads].load(r, release)
	}
	if threads > 1 {
		mid, end := threads/2, threads
		for mid > 0 {
			for i := 0; i < mid; i++ {
				ctxs[i].merge(ctxs[i+mid], release)
			}
			if end&1 == 1 {
				ctxs[0].merge(ctxs[end-1], release)
			}
			end = mid
			mid /= 2
		}
	}
	w := ctxs[0]
	p := &Profile{Records: w.records, Frames: w.frames, CallStacks: w.callStacks, SymbolNames: w.names}
	if release < 20 && len(w.frameRuns) > 1 {
		p.FrameRuns = w.frameRuns
		p.CallStackRuns = w.csRuns
	}
	return p
}

func stackOf(p *RawProfile, id uint64) []uint64 {
	pcs, _ := p.Stack(id)
	return pcs
}
