// Package memprof is the in-memory model of LLVM MemProf (heap profile) data
// and the reader of the raw profiles the compiler-rt memprof runtime writes
// (raw versions 1–5), plus the raw → indexed-model conversion, and the YAML
// text form of LLVM 20+ (yaml.go: ReadYAML, WriteYAML) with the summary
// LLVM prints before it (Summary).
//
// The indexed on-disk encodings (MemProf V0–V4 inside an IndexedInstrProf
// file) live in package instrprof, which serializes the Profile defined here.
//
// Security: ReadRaw is meant for untrusted input. Malformed files yield a
// *decode.Error naming the file, section and offset; it never panics and
// checks every count against the bytes that remain before allocating.
// Convert trusts the profiled binary only as far as the Symbolizer does.
//
// internal/mutation compares this reader with llvm-profdata on corrupted
// raw profiles: no mutant that llvm-profdata accepts is rejected here (a
// divergence would be listed in its testdata/divergences/memprofraw.tsv);
// 27 of its big set's 1,285 make llvm-profdata crash on an offset, count
// or size it does not check, where this reader names the field.
package memprof

// This file is the contract shared by the raw reader/converter (this
// package) and the indexed writer/reader (package instrprof). Changes to it
// were additive only until Frame.SymbolName moved to Profile.SymbolNames.

// Meta is a MemInfoBlock field tag, as numbered by LLVM's MIBEntryDef.inc.
// The indexed schema is a list of these tags.
type Meta uint64

// The tags (MetaAllocCount ... MaxMeta) and MemInfoBlock are generated from
// the field table in mibfields.go into mib_gen.go.

// Frame is one symbolized frame of a call stack (LLVM memprof::Frame).
type Frame struct {
	Function      uint64 // GUID: MD5 of the canonical linkage name
	LineOffset    uint32 // line - subprogram start line, unsigned 32-bit arithmetic
	Column        uint32
	IsInlineFrame bool
}

// AllocationInfo is one allocation context of a function: the full call
// stack (leaf first, root last) and its merged statistics.
type AllocationInfo struct {
	CallStack []Frame
	Info      MemInfoBlock
}

// CallSite is one call-site entry of a function: a PC's inline chain, leaf
// first, plus callee GUIDs (MemProf V4 / YAML only; conversion produces none).
type CallSite struct {
	Frames      []Frame
	CalleeGUIDs []uint64
}

// Record is the MemProf record of one function.
type Record struct {
	GUID       uint64
	AllocSites []AllocationInfo
	CallSites  []CallSite
}

// Profile is a converted/merged MemProf profile, ready to serialize.
//
// Order matters for byte-identical output with llvm-profdata: Records is the
// order records are inserted into the on-disk hash table. Frames and
// CallStacks are the first-insertion order of the converter's frame and
// call-stack maps (symbolization order, record-construction order); the
// V0–V2 writers emulate LLVM's DenseMap over them. Empty means "derive from
// Records in first-use order".
type Profile struct {
	Records    []*Record
	Frames     []Frame
	CallStacks [][]Frame

	// FrameRuns and CallStackRuns are set by Convert only when several raw
	// inputs were merged for an LLVM release before 20. Each run is one
	// input reader's complete frame (call-stack) list in its insertion
	// order, runs in the order llvm-profdata's writer absorbed them. LLVM
	// 15–19 copy each reader's DenseMap, in its iteration order, into the
	// writer's insertion-ordered map, so a V0–V2 writer reproducing that
	// applies its DenseMap emulation to each run separately and
	// concatenates the results, skipping entries already emitted. Frames
	// and CallStacks hold the same entries deduplicated in first-insertion
	// order.
	FrameRuns     [][]Frame
	CallStackRuns [][][]Frame

	// SymbolNames maps the GUID of every function in Frames to its
	// canonical linkage name when known (for text dumps and YAML); it is
	// not serialized in indexed profiles and may be nil. Frames carry no
	// name themselves: a string header would more than double their size.
	SymbolNames map[uint64]string
}
