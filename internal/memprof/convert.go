package memprof

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// Symbolizer is what Convert needs of the profiled binary, opened by the
// caller (an *elfsym.Binary implements it; internal/profbinary's
// Symbolizer gives one): Convert opens no file.
type Symbolizer interface {
	// Path names the ELF file.
	Path() string
	// BuildID is the GNU build id, nil if none.
	BuildID() []byte
	// Machine names the ELF machine (EM_X86_64); LoadSegments are the
	// PT_LOAD program headers in header order.
	Machine() string
	LoadSegments() []elfsym.Segment
	// Symbolize returns the inline chain at a file virtual address,
	// innermost first, from DWARF only: LLVM symbolizes with
	// UseSymbolTable=false, so an address no DWARF subprogram covers must
	// give an error (or no frames), and Convert drops it. Open an
	// *elfsym.Binary with Options.DWARFOnly set.
	Symbolize(addr uint64) ([]elfsym.Frame, error)
}

// ConvertOptions select the LLVM behaviour to reproduce.
type ConvertOptions struct {
	// Release is the llvm-profdata major version whose conversion is
	// emulated: 16, 19 or 22 (0 means llvmrelease.Default). It selects the accepted raw
	// versions (16: 2; 19: 3, 4; 22: 3, 4, 5), the binary checks, the
	// runtime-frame filter, the GUID canonicalization, the DenseMap hash
	// and the multi-input merge quirks.
	Release llvmrelease.Release
	// NumThreads is llvm-profdata merge's --num-threads: the number of
	// writer contexts inputs are spread over (input i goes to context
	// i mod NumThreads, then contexts are merged pairwise). 0 means 1.
	// llvm-profdata's own default is min(cores, (inputs+1)/2), which depends
	// on the machine; pass it explicitly to match a given run.
	NumThreads int
	// Workers bounds the symbolization goroutines (0: GOMAXPROCS). The
	// result does not depend on it.
	Workers int
	// MergeContexts merges allocation contexts instead of appending them
	// as llvm-profdata does: the MIBs of every input whose call stacks
	// (after symbolization) are equal become one MIB, combined with the
	// runtime's MemInfoBlock.Merge in the order the inputs are folded, and
	// a function's call sites are listed once (the union over all inputs).
	// The output then grows with the unique contexts, not with the number
	// of inputs, and the Converter keeps no input's MIBs once folded. The
	// per-input frame and call-stack runs of LLVM < 20 are not kept: the
	// bytes are not llvm-profdata's in this mode anyway.
	MergeContexts bool
}

func (o ConvertOptions) release() llvmrelease.Release { return o.Release.OrDefault() }

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
// --profiled-binary` of opts.Release does (spec §2): each input is
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
		p, err := c.prepare(inputs[s.input], !s.full)
		if err != nil {
			return nil, err
		}
		c.fold(p, s.full)
	}
	return c.Profile()
}

// textBinary is what checkBinary learns about the profiled binary.
type textBinary struct {
	preferredText uint64 // p_vaddr of the executable PT_LOAD
	buildID       []byte
}

func checkBinary(bin Symbolizer, release llvmrelease.Release) (*textBinary, error) {
	name := bin.Path()
	if m := bin.Machine(); m != "EM_X86_64" && m != "EM_386" {
		return nil, &ConvertError{File: name, Msg: fmt.Sprintf("Unsupported target: %v", m)}
	}
	loads := bin.LoadSegments()
	tb := &textBinary{buildID: bin.BuildID()}
	if !release.MemProfSymbolizesPIE() {
		// LLVM 16 symbolizes runtime addresses unchanged and rejects PIE.
		if len(loads) > 0 && loads[0].Vaddr == 0 {
			return nil, &ConvertError{File: name, Msg: "Unsupported position independent code"}
		}
		return tb, nil
	}
	n := 0
	for _, p := range loads {
		if p.Exec {
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

// textSegment is the profiled binary's segment in a raw profile: PCs in
// (start, end] are moved to the binary's preferred text address when
// adjust is set (LLVM 17+).
type textSegment struct {
	adjust     bool
	start, end uint64
}

// profiledSegment makes the checks RawMemProfReader makes of a raw input
// before converting it (raw versions the release reads) and picks the
// profiled binary's text segment (LLVM 17+: by build id; LLVM 16 uses
// addresses unchanged).
func profiledSegment(in *RawProfile, bin Symbolizer, tb *textBinary, release llvmrelease.Release) (textSegment, error) {
	ok := len(in.Versions) > 0
	for _, dv := range in.Versions {
		ok = ok && slices.Contains(release.MemProfRawVersions(), dv)
	}
	if !ok {
		return textSegment{}, &ConvertError{File: in.Name, Err: decode.ErrUnsupportedVersion,
			Msg: fmt.Sprintf("raw version %d is not read by llvm-profdata %d (it reads raw versions %v)", in.Version, release, release.MemProfRawVersions())}
	}
	seg := textSegment{adjust: release.MemProfSymbolizesPIE()}
	if !seg.adjust {
		return seg, nil
	}
	matched := 0
	for _, s := range in.Segments {
		if bytes.Equal(s.ID(), tb.buildID) {
			matched++
			if matched > 1 {
				return textSegment{}, &ConvertError{File: in.Name, Msg: "We expect only one executable segment in the profiled binary"}
			}
			seg.start, seg.end = s.Start, s.End
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
		return textSegment{}, &ConvertError{File: in.Name, Msg: fmt.Sprintf(
			"No matching executable segments found in binary %s: its build id is %s, the profile has %s",
			bin.Path(), hex.EncodeToString(tb.buildID), strings.Join(ids, ", "))}
	}
	return seg, nil
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
func symbolize(bin Symbolizer, addr uint64, release llvmrelease.Release) pcInfo {
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
			Function:      llvmname.GUID(llvmname.CanonicalForRelease(name, release)),
			LineOffset:    f.Line - f.StartLine,
			Column:        f.Column,
			IsInlineFrame: i != len(fr)-1,
		}
		info.names[i] = displayNameForRelease(name, release)
	}
	return info
}

// displayNameForRelease is the SymbolName llvm-profdata keeps for a frame:
// the canonical name from LLVM 17 on, the raw linkage name in LLVM 16.
func displayNameForRelease(name string, release llvmrelease.Release) string {
	if !release.CanonicalMemProfNames() {
		return name
	}
	return llvmname.Canonical(name)
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
func isRuntimePath(file string, release llvmrelease.Release) bool {
	slash := filepath.ToSlash(strings.ReplaceAll(file, `\`, "/"))
	if !release.MemProfRuntimeFilesByName() {
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
	// Addresses are visited in ascending order (neighbours share line
	// table rows and subprogram DIEs), handed out in chunks.
	order := make([]int32, len(pcs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(pcs[a], pcs[b]) })
	const chunk = 64
	workers = max(1, min(workers, (len(pcs)+chunk-1)/chunk))
	var next atomic.Int64
	work := func() {
		for {
			lo := int(next.Add(chunk)) - chunk
			if lo >= len(order) {
				return
			}
			for _, i := range order[lo:min(lo+chunk, len(order))] {
				out[i] = fn(pcs[i])
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return out
}
