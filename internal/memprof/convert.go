package memprof

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
)

// Symbolizer is what Convert needs of the profiled binary. *elfsym.Binary
// implements it.
type Symbolizer interface {
	// Path names the ELF file; Convert reads its program headers.
	Path() string
	// BuildID is the GNU build id, nil if none.
	BuildID() []byte
	// Symbolize returns the inline chain at a file virtual address,
	// innermost first, from DWARF only: LLVM symbolizes with
	// UseSymbolTable=false, so an address no DWARF subprogram covers must
	// give an error (or no frames), and Convert drops it. Open an
	// *elfsym.Binary with Options.DWARFOnly set.
	Symbolize(addr uint64) ([]elfsym.Frame, error)
}

// ConvertOptions select the LLVM behaviour to reproduce.
type ConvertOptions struct {
	// LLVMRelease is the llvm-profdata major version whose conversion is
	// emulated: 16, 19 or 22 (0 means 19). It selects the accepted raw
	// versions (16: 2; 19: 3, 4; 22: 3, 4, 5), the binary checks, the
	// runtime-frame filter, the GUID canonicalization, the DenseMap hash
	// and the multi-input merge quirks.
	LLVMRelease int
	// NumThreads is llvm-profdata merge's --num-threads: the number of
	// writer contexts inputs are spread over (input i goes to context
	// i mod NumThreads, then contexts are merged pairwise). 0 means 1.
	// llvm-profdata's own default is min(cores, (inputs+1)/2), which depends
	// on the machine; pass it explicitly to match a given run.
	NumThreads int
	// Workers bounds the symbolization goroutines (0: GOMAXPROCS). The
	// result does not depend on it.
	Workers int
}

// LLVMDefaultNumThreads is the --num-threads llvm-profdata merge picks
// when none is given: min(cores, (inputs+1)/2), at least 1.
func LLVMDefaultNumThreads(inputs, cores int) int {
	return max(1, min(cores, (inputs+1)/2))
}

func (o ConvertOptions) release() int {
	if o.LLVMRelease == 0 {
		return 19
	}
	return o.LLVMRelease
}

// rawVersionsAccepted reports the raw versions RawMemProfReader of an LLVM
// release accepts (MEMPROF_RAW_VERSION / MEMPROF_RAW_SUPPORTED_VERSIONS).
func rawVersionsAccepted(release int) []uint64 {
	switch {
	case release <= 15:
		return []uint64{1}
	case release == 16:
		return []uint64{2}
	case release <= 18:
		return []uint64{3}
	case release <= 21:
		return []uint64{3, 4}
	default:
		return []uint64{3, 4, 5}
	}
}

// ConvertError is a conversion failure that is not a decoding error: a
// binary that does not match the profile, nothing left after
// symbolization, and the like.
type ConvertError struct {
	File string // the raw profile (or binary) concerned
	Msg  string
	Err  error
}

func (e *ConvertError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("memprof: %s: %s: %v", e.File, e.Msg, e.Err)
	}
	return fmt.Sprintf("memprof: %s: %s", e.File, e.Msg)
}

func (e *ConvertError) Unwrap() error { return e.Err }

// Several raw inputs (llvm-profdata.cpp loadInput / mergeWriterContexts,
// InstrProfWriter, checked against llvm-profdata 16, 19 and 22 on this
// machine, byte for byte through the indexed writer):
//
//   - Each input is read by its own RawMemProfReader: segments, symbolization
//     and records are per input; nothing is shared between inputs.
//   - Inputs are spread over --num-threads writer contexts (input i to
//     context i mod N, loaded in order; N defaults to min(cores,
//     (inputs+1)/2), so 1 or 2 inputs always use one context). Contexts are
//     then merged pairwise: for mid = N/2, N/4, ... context i absorbs
//     context i+mid, and when the count is odd context 0 absorbs the last.
//   - Loading an input into a context, and absorbing a context, add frames
//     and call stacks insert-if-absent to insertion-ordered maps (LLVM 16/19
//     iterate the reader's DenseMap for this, hence Profile.FrameRuns), and
//     records by GUID: a new GUID is appended, an existing record gets the
//     other's alloc sites appended (and its call sites too in LLVM 16/19;
//     LLVM 22 keeps the first input's call sites only).
//   - LLVM 22 bug: InstrProfWriter::addMemProfData returns after adding the
//     first frame when the context already holds MemProf data, so every
//     input after the first in one context is dropped (only that first
//     frame survives). With --num-threads=2 and inputs a, b, c, the result
//     is a then b (c, loaded second into context 0, is lost).
//
// Convert reproduces this for the inputs in the order given; tools should
// pass them sorted by path (byte-wise) and choose NumThreads explicitly.

// Convert turns raw profiles into a Profile the way `llvm-profdata merge
// --profiled-binary` of opts.LLVMRelease does (spec §2): each input is
// symbolized against bin (PCs deduplicated, symbolized concurrently,
// results applied in LLVM's order), runtime and unsymbolizable frames are
// dropped, records are built in first-touch order, and several inputs are
// merged the way llvm-profdata's writer contexts merge them. Callers that
// want llvm-profdata's result for several files pass them sorted by path.
//
// Frames and CallStacks are filled in the insertion order of LLVM's maps
// for the release; with several inputs FrameRuns/CallStackRuns mark the
// per-input runs of the writer's map (see Profile).
func Convert(inputs []*RawProfile, bin Symbolizer, opts ConvertOptions) (*Profile, error) {
	release := opts.release()
	if len(inputs) == 0 {
		return nil, &ConvertError{File: bin.Path(), Msg: "no raw profiles to convert"}
	}
	tb, err := checkBinary(bin, release)
	if err != nil {
		return nil, err
	}
	results := make([]*readerResult, len(inputs))
	for i, in := range inputs {
		r, err := convertOne(in, bin, tb, release, opts.Workers)
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	return mergeContexts(results, release, opts.NumThreads), nil
}

// textBinary is what checkBinary learns about the profiled binary.
type textBinary struct {
	preferredText uint64 // p_vaddr of the executable PT_LOAD
	buildID       []byte
}

func checkBinary(bin Symbolizer, release int) (*textBinary, error) {
	name := bin.Path()
	f, err := elf.Open(name)
	if err != nil {
		return nil, &ConvertError{File: name, Msg: "Not an ELF file", Err: err}
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 && f.Machine != elf.EM_386 {
		return nil, &ConvertError{File: name, Msg: fmt.Sprintf("Unsupported target: %v", f.Machine)}
	}
	tb := &textBinary{buildID: bin.BuildID()}
	if release <= 16 {
		// LLVM 16 symbolizes runtime addresses unchanged and rejects PIE.
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				if p.Vaddr == 0 {
					return nil, &ConvertError{File: name, Msg: "Unsupported position independent code"}
				}
				break
			}
		}
		return tb, nil
	}
	n := 0
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			n++
			if n > 1 {
				return nil, &ConvertError{File: name, Msg: "Expect only one executable load segment in the binary"}
			}
			tb.preferredText = p.Vaddr
		}
	}
	if len(tb.buildID) == 0 {
		return nil, &ConvertError{File: name, Msg: "No build id found in binary " + name}
	}
	return tb, nil
}

// pcInfo is the symbolization of one distinct PC.
type pcInfo struct {
	frames  []Frame // nil: discarded
	names   []string
	discard bool
}

// readerResult is one input converted (LLVM's RawMemProfReader state).
type readerResult struct {
	records    []*Record
	recIndex   map[uint64]int
	frames     []Frame
	callStacks [][]Frame
	csKeys     []string // frameKey of each call stack
	stacks     int      // NumStackOffsets: stacks kept after symbolization
	raw        *RawProfile
}

func convertOne(in *RawProfile, bin Symbolizer, tb *textBinary, release, workers int) (*readerResult, error) {
	ok := len(in.Versions) > 0
	for _, dv := range in.Versions {
		found := false
		for _, v := range rawVersionsAccepted(release) {
			found = found || dv == v
		}
		ok = ok && found
	}
	if !ok {
		return nil, &ConvertError{File: in.Name, Err: ErrUnsupportedVersion,
			Msg: fmt.Sprintf("raw version %d is not read by llvm-profdata %d (it reads raw versions %v)", in.Version, release, rawVersionsAccepted(release))}
	}

	// Pick the profiled text segment (LLVM 17+: by build id).
	var segStart, segEnd uint64
	adjust := release > 16
	if adjust {
		matched := 0
		for _, s := range in.Segments {
			if bytes.Equal(s.ID(), tb.buildID) {
				matched++
				if matched > 1 {
					return nil, &ConvertError{File: in.Name, Msg: "We expect only one executable segment in the profiled binary"}
				}
				segStart, segEnd = s.Start, s.End
			}
		}
		if matched == 0 {
			var ids []string
			seen := map[string]bool{}
			for _, s := range in.Segments {
				id := s.BuildIDString(in.Version)
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
			return nil, &ConvertError{File: in.Name, Msg: fmt.Sprintf(
				"No matching executable segments found in binary %s: its build id is %s, the profile has %s",
				bin.Path(), hex.EncodeToString(tb.buildID), strings.Join(ids, ", "))}
		}
	}
	moduleOffset := func(pc uint64) uint64 {
		if adjust && pc > segStart && pc <= segEnd {
			return pc + tb.preferredText - segStart
		}
		return pc
	}

	// Stack visiting order = LLVM's DenseMap iteration over the raw stack
	// map; PCs are symbolized the first time that walk meets them.
	order := in.StackMapOrder(release)
	pcIndex := map[uint64]int{}
	var pcs []uint64
	for _, id := range order {
		for _, pc := range in.Stacks[id] {
			if _, ok := pcIndex[pc]; !ok {
				pcIndex[pc] = len(pcs)
				pcs = append(pcs, pc)
			}
		}
	}
	infos := symbolizeAll(pcs, func(pc uint64) pcInfo {
		fr, err := bin.Symbolize(moduleOffset(pc))
		if err != nil || len(fr) == 0 || (fr[0].LinkageName == "" && fr[0].Name == "") || isRuntimePath(fr[0].File, release) {
			return pcInfo{discard: true}
		}
		info := pcInfo{frames: make([]Frame, len(fr)), names: make([]string, len(fr))}
		for i, f := range fr {
			name := f.LinkageName
			if name == "" {
				name = f.Name
			}
			info.frames[i] = Frame{
				Function:      GUID(canonicalNameForRelease(name, release)),
				LineOffset:    f.Line - f.StartLine,
				Column:        f.Column,
				IsInlineFrame: i != len(fr)-1,
			}
			info.names[i] = displayNameForRelease(name, release)
		}
		return info
	}, workers)

	r := &readerResult{recIndex: map[uint64]int{}, raw: in}
	symName := map[uint64]string{}
	frameSeen := map[Frame]bool{}
	kept := map[uint64]bool{}
	// Frames enter LLVM's IdToFrame in symbolization order.
	done := make([]bool, len(pcs))
	for _, id := range order {
		nonEmpty := false
		for _, pc := range in.Stacks[id] {
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
		return nil, &ConvertError{File: in.Name, Err: ErrMalformed, Msg: "no entries in callstack map after symbolization"}
	}
	r.stacks = len(kept)
	for i := range r.frames {
		r.frames[i].SymbolName = symName[r.frames[i].Function]
	}
	withName := func(fs []Frame) []Frame {
		out := make([]Frame, len(fs))
		for i, f := range fs {
			f.SymbolName = symName[f.Function]
			out[i] = f
		}
		return out
	}
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
			if _, ok := in.Stacks[mib.StackID]; !ok {
				return nil, &ConvertError{File: in.Name, Err: ErrMalformed,
					Msg: fmt.Sprintf("memprof callstack record does not contain id: %d", mib.StackID)}
			}
			continue // every PC discarded: LLVM erases the MIB too
		}
		n := 0
		for _, pc := range in.Stacks[mib.StackID] {
			n += len(infos[pcIndex[pc]].frames)
		}
		stack := make([]Frame, 0, n)
		first := true
		for _, pc := range in.Stacks[mib.StackID] {
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

// frameKey is a map key identifying a frame sequence (SymbolName aside).
func frameKey(fs []Frame) string {
	b := make([]byte, 0, len(fs)*17)
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, f.Function)
		b = binary.LittleEndian.AppendUint32(b, f.LineOffset)
		b = binary.LittleEndian.AppendUint32(b, f.Column)
		if f.IsInlineFrame {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	return string(b)
}

// isRuntimePath reports whether a frame's file belongs to the memprof
// runtime's interceptors, whose frames LLVM drops.
func isRuntimePath(file string, release int) bool {
	slash := filepath.ToSlash(strings.ReplaceAll(file, `\`, "/"))
	if release <= 16 {
		return strings.Contains(slash, "memprof/memprof_")
	}
	switch path.Base(slash) {
	case "memprof_malloc_linux.cpp", "memprof_interceptors.cpp", "memprof_new_delete.cpp":
		return true
	}
	return false
}

// symbolizeAll runs fn over pcs with a bounded worker pool and returns the
// results in pcs order.
func symbolizeAll(pcs []uint64, fn func(uint64) pcInfo, workers int) []pcInfo {
	out := make([]pcInfo, len(pcs))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(pcs))
	if workers <= 1 {
		for i, pc := range pcs {
			out[i] = fn(pc)
		}
		return out
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fn(pcs[i])
			}
		}()
	}
	for i := range pcs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// writerContext emulates llvm-profdata's InstrProfWriter memprof state.
type writerContext struct {
	records    []*Record
	recIndex   map[uint64]int
	frames     []Frame
	frameSeen  map[Frame]bool
	frameRuns  [][]Frame
	callStacks [][]Frame
	csKeys     []string
	csSeen     map[string]bool
	csRuns     [][][]Frame
	loaded     int
}

func newWriterContext() *writerContext {
	return &writerContext{recIndex: map[uint64]int{}, frameSeen: map[Frame]bool{}, csSeen: map[string]bool{}}
}

func (w *writerContext) addFrames(fs []Frame) {
	for _, f := range fs {
		key := f
		key.SymbolName = ""
		if !w.frameSeen[key] {
			w.frameSeen[key] = true
			w.frames = append(w.frames, f)
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
			w.addFrames(r.frames[:1])
		}
		return
	}
	w.addFrames(r.frames)
	w.addCallStacks(r.callStacks, r.csKeys)
	w.frameRuns = append(w.frameRuns, r.frames)
	w.csRuns = append(w.csRuns, r.callStacks)
	for _, rec := range r.records {
		w.addRecord(rec, release)
	}
}

// merge is mergeWriterContexts(dst=w, src).
func (w *writerContext) merge(src *writerContext, release int) {
	w.addFrames(src.frames)
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
	p := &Profile{Records: w.records, Frames: w.frames, CallStacks: w.callStacks}
	if release < 20 && len(w.frameRuns) > 1 {
		p.FrameRuns = w.frameRuns
		p.CallStackRuns = w.csRuns
	}
	return p
}
