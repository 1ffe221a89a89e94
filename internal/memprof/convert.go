package memprof

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/maphash"
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
// It does so as a sequential fold (see Converter): the tree of context
// merges equals folding the inputs one by one in the order they reach
// context 0 (TestFoldMatchesTreeMerge checks this against the pairwise
// merge). Tools that hold many inputs should use a Converter directly and
// read each input only when its turn in FoldOrder comes.

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
	if len(inputs) == 0 {
		return nil, &ConvertError{File: bin.Path(), Msg: "no raw profiles to convert"}
	}
	c, err := NewConverter(bin, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range foldSteps(len(inputs), opts.NumThreads, c.release) {
		if err := c.add(inputs[s.input], s.full); err != nil {
			return nil, err
		}
	}
	return c.Profile()
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

// symbolize returns the symbolization of a module-relative address the way
// RawMemProfReader keeps it: nil frames (discard) for addresses without
// DWARF, without a name, or inside the memprof runtime.
func symbolize(bin Symbolizer, addr uint64, release int) pcInfo {
	fr, err := bin.Symbolize(addr)
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
}

// Converter folds raw profiles into one Profile, one input at a time, the
// way llvm-profdata merge fills and merges its writer contexts. Each raw
// profile can be dropped once Add returns: peak memory is the merged
// result plus one input, not every input at once.
//
// llvm-profdata merges contexts pairwise at the end, but loading an input
// and absorbing a context both only "append new keys in order, extend
// existing ones" (frames, call stacks, records by GUID), an associative
// operation. So the tree of merges equals a sequential fold of the inputs
// in the order they reach context 0 (FoldOrder); Convert and the tests
// rely on this.
//
// Symbolization is shared by all inputs: each distinct module-relative
// address is symbolized once (concurrently, Workers goroutines), and
// frames and call stacks are interned, so identical call stacks of
// different inputs share one []Frame.
//
// Profile.SymbolNames holds the first name seen for a GUID over all
// inputs (names only differ for LLVM 16, whose GUID ignores ".llvm."
// suffixes); it is not serialized in indexed profiles.
//
// A Converter is not safe for concurrent use. After an error from Add it
// must not be used further.
type Converter struct {
	bin     Symbolizer
	tb      *textBinary
	release int
	workers int
	inputs  int32 // inputs added so far; input k (1-based) stamps its entries with k
	kept    int   // stacks of the last input kept after symbolization (NumStackOffsets)

	// Symbolization of every address met, shared by all inputs.
	pcIndex map[uint64]int32 // module-relative address -> pcs index
	pcCache *[1 << pcCacheBits]struct {
		addr uint64
		k    int32 // pcs index + 1; 0: empty
	}
	pcs     []pcEntry
	symName map[uint64]string // GUID -> SymbolName

	// The merged writer state (llvm-profdata's context 0).
	frameID    map[frameTuple]int32 // frame -> frames index
	frames     []Frame
	frameStamp []int32                // last input whose frame run lists the frame
	frameRec   []int32                // records index of the frame's function + 1; 0: not looked up yet
	stacks     map[uint64]*stackEntry // hash of the frame ids -> call stacks (chained)
	seed       maphash.Seed
	callStacks [][]Frame
	records    []*Record
	recIndex   map[uint64]int32
	recInput   []int32 // input that created each record
	frameRuns  [][]Frame
	csRuns     [][][]Frame
	key        []byte  // scratch for stack keys
	flat       []int32 // scratch: the current input's stacks as pcs indexes
	at         map[uint64]int32
	slab       []Frame // call stacks are carved from shared chunks: fewer, larger allocations

	// Alloc sites are not appended to records one by one (growing ~4,000
	// slices of 200-byte entries by doubling allocates three times the
	// result); sites holds them in fixed chunks, in the order they were
	// added, and siteRecs the record each one goes to. Profile lays every
	// record's sites out in one allocation, freeing chunks as it goes.
	sites    [][]AllocationInfo // chunks of siteChunk entries
	siteRecs []siteRef
	recSites []int32 // alloc sites per record
}

// siteRef is one alloc site of a record: records index and index into the
// site chunks.
type siteRef struct{ rec, site int32 }

const siteChunk = 1 << 12

// newSite stores an alloc site (once per MIB) and returns its index.
func (c *Converter) newSite(a AllocationInfo) int32 {
	n := len(c.sites)
	if n == 0 || len(c.sites[n-1]) == siteChunk {
		c.sites = append(c.sites, make([]AllocationInfo, 0, siteChunk))
		n++
	}
	c.sites[n-1] = append(c.sites[n-1], a)
	return int32((n-1)*siteChunk + len(c.sites[n-1]) - 1)
}

// layOutSites gives each record its alloc sites, in the order they were
// added, carved from one allocation.
func (c *Converter) layOutSites() {
	total := len(c.siteRecs)
	if total == 0 {
		return
	}
	all := make([]AllocationInfo, total)
	next := make([]int32, len(c.records)) // next free slot of each record
	off := int32(0)
	for i, n := range c.recSites {
		next[i] = off
		if n > 0 {
			c.records[i].AllocSites = all[off : off+n : off+n]
		}
		off += n
	}
	chunk := int32(0)
	for _, r := range c.siteRecs {
		for r.site/siteChunk > chunk {
			c.sites[chunk] = nil // done with it: let the GC have it
			chunk++
		}
		all[next[r.rec]] = c.sites[chunk][r.site%siteChunk]
		next[r.rec]++
	}
	c.sites, c.siteRecs = nil, nil
}

type pcEntry struct {
	pcInfo
	ids   []int32 // interned frame ids (set when first walked by a full input)
	stamp int32   // last input whose walk reached this PC
	// siteStamp is the last input that listed this PC as a call site;
	// site0 tells whether it did so for the leaf frame's function too.
	siteStamp int32
	site0     bool
	stack     *stackEntry // the PC's own inline chain as a call stack (call sites)
}

type stackEntry struct {
	frames []Frame
	next   *stackEntry // another stack with the same hash
	stamp  int32       // last input whose call-stack run lists it
}

const pcCacheBits = 14

// frameTuple is LLVM's frame identity (the fields of a Frame).
type frameTuple struct {
	function     uint64
	line, column uint32
	inline       bool
}

// NewConverter checks the profiled binary for opts.LLVMRelease and returns
// an empty Converter. opts.NumThreads is ignored: Add treats every input as
// loaded into a writer context of its own.
func NewConverter(bin Symbolizer, opts ConvertOptions) (*Converter, error) {
	release := opts.release()
	tb, err := checkBinary(bin, release)
	if err != nil {
		return nil, err
	}
	return &Converter{
		bin: bin, tb: tb, release: release, workers: opts.Workers,
		pcIndex: map[uint64]int32{}, pcCache: new([1 << pcCacheBits]struct {
			addr uint64
			k    int32
		}), symName: map[uint64]string{},
		frameID: map[frameTuple]int32{}, stacks: map[uint64]*stackEntry{}, seed: maphash.MakeSeed(),
		recIndex: map[uint64]int32{},
	}, nil
}

// FoldOrder returns the order in which n inputs, each in its own writer
// context (llvm-profdata merge --num-threads=n), reach context 0 through
// llvm-profdata's pairwise context merge: for mid = n/2, n/4, ... context
// i absorbs context i+mid, and for an odd count context 0 absorbs the
// last. Adding the inputs to a Converter in this order reproduces
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
func foldSteps(n, threads, release int) []foldStep {
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
			steps = append(steps, foldStep{input: in, full: release < 22 || in == c})
		}
	}
	return steps
}

// Add converts one raw profile and folds it in, as if it were loaded into
// a writer context of its own. Inputs must be added in FoldOrder to match
// llvm-profdata.
func (c *Converter) Add(in *RawProfile) error { return c.add(in, true) }

// Profile returns the merged profile. The Converter must not be used
// afterwards.
func (c *Converter) Profile() (*Profile, error) {
	if c.inputs == 0 {
		return nil, &ConvertError{File: c.bin.Path(), Msg: "no raw profiles to convert"}
	}
	c.layOutSites()
	p := &Profile{Records: c.records, Frames: c.frames, CallStacks: c.callStacks}
	p.SymbolNames = make(map[uint64]string)
	for _, f := range c.frames {
		if _, ok := p.SymbolNames[f.Function]; !ok {
			p.SymbolNames[f.Function] = c.symName[f.Function]
		}
	}
	if c.release < 20 && len(c.frameRuns) > 1 {
		p.FrameRuns = c.frameRuns
		p.CallStackRuns = c.csRuns
	}
	*c = Converter{bin: c.bin} // drop the indexes: the writer needs the memory
	return p, nil
}

// add is loadInput + mergeWriterContexts for one input. With full false
// (LLVM 22, not the first input of its context) only the input's first
// frame is kept: InstrProfWriter::addMemProfData returns after adding one
// frame when the context already holds MemProf data (upstream bug,
// verified with llvm-profdata-22).
func (c *Converter) add(in *RawProfile, full bool) error {
	release := c.release
	ok := len(in.Versions) > 0
	for _, dv := range in.Versions {
		found := false
		for _, v := range rawVersionsAccepted(release) {
			found = found || dv == v
		}
		ok = ok && found
	}
	if !ok {
		return &ConvertError{File: in.Name, Err: ErrUnsupportedVersion,
			Msg: fmt.Sprintf("raw version %d is not read by llvm-profdata %d (it reads raw versions %v)", in.Version, release, rawVersionsAccepted(release))}
	}

	// Pick the profiled text segment (LLVM 17+: by build id).
	var segStart, segEnd uint64
	adjust := release > 16
	if adjust {
		matched := 0
		for _, s := range in.Segments {
			if bytes.Equal(s.ID(), c.tb.buildID) {
				matched++
				if matched > 1 {
					return &ConvertError{File: in.Name, Msg: "We expect only one executable segment in the profiled binary"}
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
			return &ConvertError{File: in.Name, Msg: fmt.Sprintf(
				"No matching executable segments found in binary %s: its build id is %s, the profile has %s",
				c.bin.Path(), hex.EncodeToString(c.tb.buildID), strings.Join(ids, ", "))}
		}
	}
	preferred := c.tb.preferredText

	// Stack visiting order = LLVM's DenseMap iteration over the raw stack
	// map; PCs are symbolized the first time that walk meets them. Only
	// addresses no earlier input met are symbolized now. Each stack's PCs
	// are translated to pcs indexes once: the stack order[i] is
	// flat[spans[i].off:][:spans[i].n].
	order := in.StackMapOrder(release)
	type span struct{ off, n int32 }
	spans := make([]span, len(order))
	if c.at == nil {
		c.at = make(map[uint64]int32, len(order))
	}
	at := c.at // stack id -> spans index; scratch reused by every input
	clear(at)
	flat := c.flat[:0]
	defer func() { c.flat = flat[:0] }()
	var fresh []uint64
	for i, id := range order {
		at[id] = int32(i)
		stack := in.Stacks[id]
		spans[i] = span{int32(len(flat)), int32(len(stack))}
		for _, pc := range stack {
			if adjust && pc > segStart && pc <= segEnd {
				pc = pc + preferred - segStart
			}
			flat = append(flat, c.pcID(pc, &fresh))
		}
	}
	infos := symbolizeAll(fresh, func(addr uint64) pcInfo { return symbolize(c.bin, addr, release) }, c.workers)
	for _, info := range infos {
		c.pcs = append(c.pcs, pcEntry{pcInfo: info})
	}

	// The checks RawMemProfReader makes before anything reaches a writer.
	kept := 0
	var first *pcEntry // first kept PC of the walk
	for _, sp := range spans {
		for _, k := range flat[sp.off : sp.off+sp.n] {
			if e := &c.pcs[k]; !e.discard {
				kept++
				if first == nil {
					first = e
				}
				break
			}
		}
	}
	if kept == 0 {
		return &ConvertError{File: in.Name, Err: ErrMalformed, Msg: "no entries in callstack map after symbolization"}
	}
	mibSpans := make([]span, len(in.MIBs))
	for i, mib := range in.MIBs {
		j, ok := at[mib.StackID]
		if !ok {
			return &ConvertError{File: in.Name, Err: ErrMalformed,
				Msg: fmt.Sprintf("memprof callstack record does not contain id: %d", mib.StackID)}
		}
		mibSpans[i] = spans[j]
	}

	c.inputs++
	c.kept = kept
	cur := c.inputs
	if !full {
		f := first.frames[0]
		if _, ok := c.symName[f.Function]; !ok {
			c.symName[f.Function] = first.names[0]
		}
		c.intern(f)
		return nil
	}

	// Frames enter LLVM's IdToFrame in symbolization order.
	var frameRun []Frame
	for _, k := range flat {
		e := &c.pcs[k]
		if e.discard || e.stamp == cur {
			continue
		}
		e.stamp = cur
		if e.ids == nil {
			for i, f := range e.frames {
				if _, ok := c.symName[f.Function]; !ok {
					c.symName[f.Function] = e.names[i]
				}
			}
			e.ids = make([]int32, len(e.frames))
			for i, f := range e.frames {
				e.ids[i] = c.intern(f)
			}
		}
		if release >= 20 {
			continue // runs only matter to the LLVM 16/19 writers
		}
		for _, fid := range e.ids {
			if c.frameStamp[fid] != cur {
				c.frameStamp[fid] = cur
				frameRun = append(frameRun, c.frames[fid])
			}
		}
	}
	c.frameRuns = append(c.frameRuns, frameRun)

	// Records in first-touch order: alloc sites per MIB, then call sites.
	// Each PC is a call site of the functions of its frames, except the
	// leaf frame of an allocation stack; perFunc lists them in
	// first-occurrence order of (function, PC).
	var csRun [][]Frame
	type callSites struct {
		guid uint64
		pcs  []*pcEntry
	}
	var perFunc []callSites
	funcIndex := map[uint64]int{}
	// addSite adds (function of frame j, e) unless frames[from:j] already
	// added that function for e.
	addSite := func(e *pcEntry, j, from int) {
		fn := e.frames[j].Function
		for _, f := range e.frames[from:j] {
			if f.Function == fn {
				return
			}
		}
		fi, ok := funcIndex[fn]
		if !ok {
			fi = len(perFunc)
			funcIndex[fn] = fi
			perFunc = append(perFunc, callSites{guid: fn})
		}
		perFunc[fi].pcs = append(perFunc[fi].pcs, e)
	}
	for i, mib := range in.MIBs {
		key := c.key[:0]
		leaf := true
		sp := mibSpans[i]
		for _, k := range flat[sp.off : sp.off+sp.n] {
			e := &c.pcs[k]
			if e.discard {
				continue
			}
			// Frames 1.. join at the PC's first use, frame 0 at its first
			// use above the leaf, in frame order.
			firstUse := e.siteStamp != cur
			if firstUse {
				e.siteStamp = cur
				e.site0 = !leaf
				from := 1
				if !leaf {
					addSite(e, 0, 0)
					from = 0
				}
				for j := 1; j < len(e.frames); j++ {
					addSite(e, j, from)
				}
			} else if !leaf && !e.site0 {
				e.site0 = true
				fn := e.frames[0].Function
				dup := false
				for _, f := range e.frames[1:] {
					dup = dup || f.Function == fn
				}
				if !dup {
					addSite(e, 0, 0)
				}
			}
			leaf = false
			for _, fid := range e.ids {
				key = binary.LittleEndian.AppendUint32(key, uint32(fid))
			}
		}
		c.key = key
		if leaf {
			continue // every PC discarded: LLVM erases the MIB too
		}
		st := c.stack(key, cur, &csRun)
		site := c.newSite(AllocationInfo{CallStack: st.frames, Info: mib.Info})
		for j, f := range st.frames {
			fid := binary.LittleEndian.Uint32(key[4*j:])
			ri := c.frameRec[fid] - 1
			if ri < 0 {
				ri = c.recordIndex(f.Function, cur)
				c.frameRec[fid] = ri + 1
			}
			c.siteRecs = append(c.siteRecs, siteRef{ri, site})
			c.recSites[ri]++
			if !f.IsInlineFrame {
				break
			}
		}
	}
	for _, cs := range perFunc {
		ri := c.recordIndex(cs.guid, cur)
		rec := c.records[ri]
		for _, e := range cs.pcs {
			if e.stack == nil {
				key := c.key[:0]
				for _, fid := range e.ids {
					key = binary.LittleEndian.AppendUint32(key, uint32(fid))
				}
				c.key = key
				e.stack = c.stack(key, 0, nil)
			}
			c.noteStack(e.stack, cur, &csRun)
			// LLVM 16/19 append call sites to an existing record; LLVM 22
			// keeps those of the input that created it.
			if release < 20 || c.recInput[ri] == cur {
				rec.CallSites = append(rec.CallSites, CallSite{Frames: e.stack.frames})
			}
		}
	}
	c.csRuns = append(c.csRuns, csRun)
	return nil
}

// pcID returns the pcs index of a module-relative address, assigning the
// next free one (and listing the address in fresh, to be symbolized) when
// it is new. A direct-mapped cache in front of pcIndex answers the many
// repeats (every stack of every input) without hashing a map.
func (c *Converter) pcID(addr uint64, fresh *[]uint64) int32 {
	slot := &c.pcCache[(addr*0x9e3779b97f4a7c15)>>(64-pcCacheBits)]
	if slot.k > 0 && slot.addr == addr {
		return slot.k - 1
	}
	k, ok := c.pcIndex[addr]
	if !ok {
		k = int32(len(c.pcs) + len(*fresh))
		c.pcIndex[addr] = k
		*fresh = append(*fresh, addr)
	}
	slot.addr, slot.k = addr, k+1
	return k
}

// intern adds f to the merged frame list if absent and returns its id.
func (c *Converter) intern(f Frame) int32 {
	t := frameTuple{f.Function, f.LineOffset, f.Column, f.IsInlineFrame}
	if id, ok := c.frameID[t]; ok {
		return id
	}
	id := int32(len(c.frames))
	c.frameID[t] = id
	c.frames = append(c.frames, f)
	c.frameStamp = append(c.frameStamp, 0)
	c.frameRec = append(c.frameRec, 0)
	return id
}

// stack returns the interned call stack with the given frame-id key,
// adding it to the merged call-stack list if new, and to input cur's run
// (unless run is nil).
func (c *Converter) stack(key []byte, cur int32, run *[][]Frame) *stackEntry {
	h := maphash.Bytes(c.seed, key)
	st := c.stacks[h]
	for ; st != nil; st = st.next {
		if c.sameStack(st.frames, key) {
			break
		}
	}
	if st == nil {
		n := len(key) / 4
		if len(c.slab) < n {
			c.slab = make([]Frame, max(n, 1<<14))
		}
		frames := c.slab[:n:n]
		c.slab = c.slab[n:]
		for i := range frames {
			frames[i] = c.frames[binary.LittleEndian.Uint32(key[4*i:])]
		}
		st = &stackEntry{frames: frames, next: c.stacks[h]}
		c.stacks[h] = st
	}
	if run != nil {
		c.noteStack(st, cur, run)
	}
	return st
}

// sameStack reports whether frames are the frames whose ids key holds.
func (c *Converter) sameStack(frames []Frame, key []byte) bool {
	if len(frames) != len(key)/4 {
		return false
	}
	for i := range frames {
		a, b := &frames[i], &c.frames[binary.LittleEndian.Uint32(key[4*i:])]
		if a.Function != b.Function || a.LineOffset != b.LineOffset || a.Column != b.Column || a.IsInlineFrame != b.IsInlineFrame {
			return false
		}
	}
	return true
}

// noteStack records that input cur uses st: it joins the merged list on
// first use by any input and cur's run on first use by cur.
func (c *Converter) noteStack(st *stackEntry, cur int32, run *[][]Frame) {
	if st.stamp == cur {
		return
	}
	if st.stamp == 0 {
		c.callStacks = append(c.callStacks, st.frames)
	}
	st.stamp = cur
	if c.release < 20 { // runs only matter to the LLVM 16/19 writers
		*run = append(*run, st.frames)
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
	c.records = append(c.records, &Record{GUID: guid})
	c.recInput = append(c.recInput, cur)
	c.recSites = append(c.recSites, 0)
	return i
}

// frameKey is a map key identifying a frame sequence.
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
