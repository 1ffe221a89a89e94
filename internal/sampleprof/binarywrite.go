package sampleprof

import (
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/zlibcompat"
)

// BinaryOptions select what the binary writers emit; the fields mirror
// llvm-profdata merge --sample flags.
type BinaryOptions struct {
	Release        llvmrelease.Release // release written for (0 means llvmrelease.Default)
	UseMD5         bool                // --use-md5: fixed-length MD5 name table
	CompressAll    bool                // --compress-all-sections (zlib)
	Partial        bool                // --gen-partial-profile
	SplitLayout    bool                // --split-layout (LLVM 22)
	VTables        bool                // -extbinary-write-vtable-type-prof (LLVM 22)
	DropSymbolList bool                // --drop-profile-symbol-list
}

// ErrUnsupported is returned for profiles an encoding cannot carry.
var ErrUnsupported = errors.New("sampleprof: unsupported for this encoding")

func appendUleb(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// Magic numbers and version (SPMagic, SPVersion).
const (
	magicRaw    = 0x5350524f463432ff
	magicExt    = 0x5350524f46343204
	spVersion   = 103
	secFlagComp = 1
	secFlagFlat = 2
)

// Section types.
const (
	secProfSummary     = 1
	secNameTable       = 2
	secProfSymbolList  = 3
	secFuncOffsetTable = 4
	secFuncMetadata    = 5
	secCSNameTable     = 6
	secLBRProfile      = 32
)

// Section-specific flags (the high 32 bits of Flags).
const (
	flagMD5Name         = 1 << 32
	flagFixedLengthMD5  = 1 << 33
	flagUniqSuffix      = 1 << 34
	flagPartial         = 1 << 32
	flagFullContext     = 1 << 33
	flagFSDiscriminator = 1 << 34
	flagIsPreInlined    = 1 << 36
	flagHasVTableTypes  = 1 << 37
	flagProbeBased      = 1 << 32
	flagHasAttribute    = 1 << 33
	flagOrdered         = 1 << 32
)

type binWriter struct {
	p     *Profile
	opts  BinaryOptions
	names map[FunctionID]uint64
	// ctxs is the CS name table index of each top-level profile with a
	// context (equal contexts share the first one's).
	ctxs    map[*FunctionSamples]uint64
	vtables bool
	calls   []CallTarget // scratch
}

func (w *binWriter) addName(f FunctionID) {
	if _, ok := w.names[f]; !ok {
		w.names[f] = 0
	}
}

func (w *binWriter) addNames(fs *FunctionSamples) {
	for i := range fs.Body {
		for _, c := range fs.Body[i].Calls {
			w.addName(c.Func)
		}
	}
	for _, c := range fs.Callsites {
		w.addName(c.Callee.Name)
		w.addNames(c.Callee)
	}
	if w.vtables {
		for _, v := range fs.VTables {
			for _, t := range v.Types {
				w.addName(t.Type)
			}
		}
	}
}

// buildNameTable collects and numbers the names; it returns them sorted.
func (w *binWriter) buildNameTable(funcs []*FunctionSamples) []FunctionID {
	w.names = map[FunctionID]uint64{}
	for _, fs := range funcs {
		if fs.Context != nil {
			for _, f := range fs.Context {
				w.addName(f.Func)
			}
		} else {
			w.addName(fs.Name)
		}
		w.addNames(fs)
	}
	sorted := make([]FunctionID, 0, len(w.names))
	for f := range w.names {
		sorted = append(sorted, f)
	}
	slices.SortFunc(sorted, FunctionID.Compare)
	for i, f := range sorted {
		w.names[f] = uint64(i)
	}
	return sorted
}

// appendContextIdx writes the name or CS-context index of a top-level or
// nested profile.
func (w *binWriter) appendContextIdx(b []byte, fs *FunctionSamples) []byte {
	if fs.Context != nil {
		return appendUleb(b, w.ctxs[fs])
	}
	return appendUleb(b, w.names[fs.Name])
}

func (w *binWriter) appendBody(b []byte, fs *FunctionSamples, top bool) []byte {
	if top {
		b = w.appendContextIdx(b, fs)
	} else {
		b = appendUleb(b, w.names[fs.Name])
	}
	b = appendUleb(b, fs.TotalSamples)
	b = appendUleb(b, uint64(len(fs.Body)))
	for i := range fs.Body {
		s := &fs.Body[i]
		b = appendUleb(b, uint64(s.Loc.Line))
		b = appendUleb(b, uint64(s.Loc.Disc))
		b = appendUleb(b, s.Samples)
		b = appendUleb(b, uint64(len(s.Calls)))
		calls := s.Calls
		if len(calls) > 1 {
			w.calls = s.appendSortedCalls(w.calls[:0])
			calls = w.calls
		}
		for _, c := range calls {
			b = appendUleb(b, w.names[c.Func])
			b = appendUleb(b, c.Count)
		}
	}
	b = appendUleb(b, uint64(len(fs.Callsites)))
	for _, c := range fs.Callsites {
		b = appendUleb(b, uint64(c.Loc.Line))
		b = appendUleb(b, uint64(c.Loc.Disc))
		b = w.appendBody(b, c.Callee, false)
	}
	if w.vtables {
		b = appendUleb(b, uint64(len(fs.VTables)))
		for _, v := range fs.VTables {
			b = appendUleb(b, uint64(v.Loc.Line))
			b = appendUleb(b, uint64(v.Loc.Disc))
			b = appendUleb(b, uint64(len(v.Types)))
			for _, t := range v.Types {
				b = appendUleb(b, w.names[t.Type])
				b = appendUleb(b, t.Count)
			}
		}
	}
	return b
}

func appendSummary(b []byte, s *Summary) []byte {
	b = appendUleb(b, s.TotalCount)
	b = appendUleb(b, s.MaxCount)
	b = appendUleb(b, s.MaxFunctionCount)
	b = appendUleb(b, s.NumCounts)
	b = appendUleb(b, s.NumFunctions)
	b = appendUleb(b, uint64(len(s.Detailed)))
	for _, e := range s.Detailed {
		b = appendUleb(b, e.Cutoff)
		b = appendUleb(b, e.MinCount)
		b = appendUleb(b, e.NumCounts)
	}
	return b
}

// AppendBinary appends p in the raw binary encoding (SPF_Binary), which
// cannot carry CS or probe-based profiles.
func (p *Profile) AppendBinary(b []byte) ([]byte, error) {
	if p.CS || p.ProbeBased {
		return b, ErrUnsupported
	}
	for _, fs := range p.Funcs {
		if fs.Context != nil {
			return b, ErrUnsupported
		}
	}
	w := binWriter{p: p}
	b = appendUleb(b, magicRaw)
	b = appendUleb(b, spVersion)
	b = appendSummary(b, p.ComputeSummary())
	names := w.buildNameTable(p.Funcs)
	b = appendUleb(b, uint64(len(names)))
	for _, n := range names {
		b = n.appendTo(b)
		b = append(b, 0)
	}
	for _, fs := range p.Sorted() {
		b = appendUleb(b, fs.HeadSamples)
		b = w.appendBody(b, fs, true)
	}
	return b, nil
}

type secHdr struct {
	typ, flags, off, size uint64
}

// AppendExtBinary appends p in the extensible binary encoding
// (SPF_Ext_Binary), the default of llvm-profdata merge --sample since
// LLVM 17.
//
// The FuncMetadata section lists functions in the order LLVM's
// std::unordered_map iterates them after llvm-profdata merge read p (see
// mapOrder).
func (p *Profile) AppendExtBinary(b []byte, o BinaryOptions) ([]byte, error) {
	if o.VTables && !o.Release.OrDefault().HasVTableTypeProfiles() || o.SplitLayout && !o.Release.OrDefault().HasSampleSplitLayout() {
		return b, ErrUnsupported // no reader before LLVM 22 knows them
	}
	w := binWriter{p: p, opts: o, vtables: o.VTables}
	// One buffer of about the size needed (pages it does not touch cost
	// nothing), instead of a copy per growth.
	b = slices.Grow(b, p.sizeHint())
	start := len(b)
	b = appendUleb(b, magicExt)
	b = appendUleb(b, spVersion)
	type layoutEntry struct{ typ, flags uint64 }
	var layout []layoutEntry
	if o.SplitLayout {
		layout = []layoutEntry{{secProfSummary, 0}, {secNameTable, 0}, {secFuncOffsetTable, 0}, {secLBRProfile, 0},
			{secFuncOffsetTable, secFlagFlat}, {secLBRProfile, secFlagFlat}, {secProfSymbolList, 0}, {secFuncMetadata, 0}}
	} else {
		layout = []layoutEntry{{secProfSummary, 0}, {secNameTable, 0}, {secCSNameTable, 0}, {secFuncOffsetTable, 0},
			{secLBRProfile, 0}, {secProfSymbolList, 0}, {secFuncMetadata, 0}}
	}
	for i := range layout {
		e := &layout[i]
		if o.CompressAll {
			e.flags |= secFlagComp
		}
		switch e.typ {
		case secNameTable:
			if o.UseMD5 {
				e.flags |= flagMD5Name | flagFixedLengthMD5
			}
		case secProfSummary:
			if o.Partial {
				e.flags |= flagPartial
			}
			if p.CS {
				e.flags |= flagFullContext
			}
			if p.PreInlined {
				e.flags |= flagIsPreInlined
			}
			if p.FS {
				e.flags |= flagFSDiscriminator
			}
			if o.VTables {
				e.flags |= flagHasVTableTypes
			}
		case secFuncMetadata:
			if p.ProbeBased {
				e.flags |= flagProbeBased
			}
			if p.CS || p.PreInlined {
				e.flags |= flagHasAttribute
			}
		case secFuncOffsetTable:
			if p.CS {
				e.flags |= flagOrdered
			}
		}
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(layout)))
	hdrAt := len(b)
	b = append(b, make([]byte, 32*len(layout))...)
	hdrs := make([]secHdr, len(layout))

	// The summary is computed while the names are collected and sorted,
	// and so is the order of LLVM's map, which the summary of a CS
	// profile and the FuncMetadata section follow.
	var sum *Summary
	order := p.Funcs
	sumDone := make(chan struct{})
	go func() {
		defer close(sumDone)
		if p.CS || p.ProbeBased || p.PreInlined {
			order = p.mapOrder(o.Release)
		}
		sum = p.computeSummary(order)
	}()
	names := w.buildNameTable(p.Funcs)
	sorted := p.Sorted()
	<-sumDone
	var offsets []funcOffset
	var lbrStart int
	writeSec := func(idx int, body func(b []byte) []byte) {
		e := &layout[idx]
		secStart := len(b)
		if e.flags&secFlagComp != 0 {
			raw := body(nil)
			if len(raw) > 0 {
				// zlib's own bytes at LLVM's level (BestSizeCompression).
				z := zlibcompat.Compress(raw)
				b = appendUleb(b, uint64(len(raw)))
				b = appendUleb(b, uint64(len(z)))
				b = append(b, z...)
			}
		} else {
			b = body(b)
		}
		hdrs[idx] = secHdr{e.typ, e.flags, uint64(secStart - start), uint64(len(b) - secStart)}
	}
	summary := func(b []byte) []byte { return appendSummary(b, sum) }
	nameTable := func(b []byte) []byte {
		// LLVM 16 looks for ".__uniq." in MD5 profiles too.
		if !o.UseMD5 || o.Release.OrDefault().SampleLegacyReader16() {
			for _, n := range names {
				if !n.isHash && strings.Contains(n.name, ".__uniq.") {
					layout[1].flags |= flagUniqSuffix
					break
				}
			}
		}
		b = appendUleb(b, uint64(len(names)))
		for _, n := range names {
			if o.UseMD5 {
				b = binary.LittleEndian.AppendUint64(b, n.MD5())
			} else {
				b = n.appendTo(b)
				b = append(b, 0)
			}
		}
		return b
	}
	csNameTable := func(b []byte) []byte {
		var ctxs []*FunctionSamples
		for _, fs := range p.Funcs {
			if fs.Context != nil {
				ctxs = append(ctxs, fs)
			}
		}
		// By compareFrames: names compare as their (sorted) name table
		// indexes do, so each context becomes a key of integers once.
		nkeys := 0
		for _, fs := range ctxs {
			nkeys += 2 * len(fs.Context)
		}
		keys := make([]uint64, 0, nkeys)
		type ctxKey struct {
			fs  *FunctionSamples
			key []uint64
		}
		byKey := make([]ctxKey, len(ctxs))
		for i, fs := range ctxs {
			at := len(keys)
			for _, f := range fs.Context {
				keys = append(keys, w.names[f.Func], uint64(f.Loc.Line)<<32|uint64(f.Loc.Disc))
			}
			byKey[i] = ctxKey{fs, keys[at:len(keys):len(keys)]}
		}
		slices.SortFunc(byKey, func(x, y ctxKey) int { return slices.Compare(x.key, y.key) })
		for i := range byKey {
			ctxs[i] = byKey[i].fs
		}
		w.ctxs = make(map[*FunctionSamples]uint64, len(ctxs))
		b = appendUleb(b, uint64(len(ctxs)))
		for i, fs := range ctxs {
			if i > 0 && compareFrames(ctxs[i-1].Context, fs.Context) == 0 {
				w.ctxs[fs] = w.ctxs[ctxs[i-1]]
			} else {
				w.ctxs[fs] = uint64(i)
			}
			b = appendUleb(b, uint64(len(fs.Context)))
			for _, f := range fs.Context {
				b = appendUleb(b, w.names[f.Func])
				b = appendUleb(b, uint64(f.Loc.Line))
				b = appendUleb(b, uint64(f.Loc.Disc))
			}
		}
		return b
	}
	lbr := func(funcs []*FunctionSamples) func(b []byte) []byte {
		return func(b []byte) []byte {
			lbrStart = len(b)
			offsets = offsets[:0]
			// A large section is encoded in two halves at once, the second
			// into the end of b's room (AppendExtBinary sized b for the
			// whole profile), moved down after the first once both are
			// done; into a buffer of its own if b has no room for it.
			var tail []byte
			var tailOffsets []funcOffset
			if len(funcs) >= lbrSplit && runtime.GOMAXPROCS(0) > 1 {
				half := len(funcs) / 2
				funcs, rest := funcs[:half], funcs[half:]
				w2 := w
				w2.calls = nil
				// Sized up front: growing it would leave its copies to
				// the collector, on top of the peak.
				need := sizeHint(rest)
				var region []byte
				head := b
				if room := cap(b) - len(b); room >= need {
					// The first half's appends stop below the region
					// (past it they reallocate: slower, still right).
					region = b[len(b):cap(b)][room-need : room-need]
					head = b[: len(b) : cap(b)-need]
				} else {
					region = make([]byte, 0, need)
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					tail, tailOffsets = w2.appendLBR(region, rest, nil)
				}()
				head, offsets = w.appendLBR(head, funcs, offsets)
				<-done
				base := uint64(len(head) - lbrStart)
				for _, e := range tailOffsets {
					offsets = append(offsets, funcOffset{e.fs, base + e.off})
				}
				if len(head) > 0 && len(b) > 0 && cap(head) < cap(b) && &head[:cap(head)][cap(head)-1] == &b[:cap(b)][cap(head)-1] {
					// The first half stayed in b: append to b itself,
					// whose room holds the second (an overlapping copy
					// down, which append does as memmove).
					return append(b[:len(head)], tail...)
				}
				return append(head, tail...)
			}
			b, offsets = w.appendLBR(b, funcs, offsets)
			return b
		}
	}
	funcOffsets := func(b []byte) []byte {
		b = appendUleb(b, uint64(len(offsets)))
		if p.CS {
			// By context; the CS name table numbered the contexts in
			// that order already.
			byIdx := w.ctxs != nil
			for _, e := range offsets {
				if _, ok := w.ctxs[e.fs]; !ok {
					byIdx = false
					break
				}
			}
			if byIdx {
				// A stable counting sort: indexes are below len(offsets).
				at := make([]int, len(offsets)+1)
				idx := make([]uint64, len(offsets))
				for i, e := range offsets {
					idx[i] = w.ctxs[e.fs]
					at[idx[i]+1]++
				}
				for i := 1; i < len(at); i++ {
					at[i] += at[i-1]
				}
				out := make([]funcOffset, len(offsets))
				for i, e := range offsets {
					out[at[idx[i]]] = e
					at[idx[i]]++
				}
				offsets = out
			} else {
				slices.SortStableFunc(offsets, func(x, y funcOffset) int { return compareContext(x.fs, y.fs) })
			}
		}
		for _, e := range offsets {
			b = w.appendContextIdx(b, e.fs)
			b = appendUleb(b, e.off)
		}
		return b
	}
	symList := func(b []byte) []byte {
		if o.DropSymbolList {
			return b
		}
		for _, s := range p.SymbolList {
			b = append(b, s...)
			b = append(b, 0)
		}
		return b
	}
	metadata := func(b []byte) []byte {
		if !p.ProbeBased && !p.CS && !p.PreInlined {
			return b
		}
		for _, fs := range order {
			b = w.appendMetadata(b, fs, true)
		}
		return b
	}
	if o.SplitLayout {
		var ctx, flat []*FunctionSamples
		for _, fs := range sorted {
			if len(fs.Callsites) > 0 {
				ctx = append(ctx, fs)
			} else {
				flat = append(flat, fs)
			}
		}
		writeSec(0, summary)
		writeSec(1, nameTable)
		writeSec(3, lbr(ctx))
		writeSec(2, funcOffsets)
		writeSec(5, lbr(flat))
		writeSec(4, funcOffsets)
		writeSec(6, symList)
		writeSec(7, metadata)
	} else {
		writeSec(0, summary)
		writeSec(1, nameTable)
		writeSec(2, csNameTable)
		writeSec(4, lbr(sorted))
		writeSec(5, symList)
		writeSec(3, funcOffsets)
		writeSec(6, metadata)
	}
	for i, h := range hdrs {
		at := hdrAt + 32*i
		binary.LittleEndian.PutUint64(b[at:], h.typ)
		binary.LittleEndian.PutUint64(b[at+8:], h.flags)
		binary.LittleEndian.PutUint64(b[at+16:], h.off)
		binary.LittleEndian.PutUint64(b[at+24:], h.size)
	}
	return b, nil
}

// sizeHint is about what the binary encodings of p take, a little more.
func (p *Profile) sizeHint() int { return sizeHint(p.Funcs) }

// sizeHint is about what the binary encodings of funcs take, a little
// more.
func sizeHint(funcs []*FunctionSamples) int {
	var n int
	var walk func(fs *FunctionSamples)
	walk = func(fs *FunctionSamples) {
		n += 16 + 12*len(fs.Body) + 16*len(fs.Callsites) + 16*len(fs.VTables)
		for i := range fs.Body {
			n += 6 * len(fs.Body[i].Calls)
		}
		for _, c := range fs.Callsites {
			walk(c.Callee)
		}
	}
	for _, fs := range funcs {
		n += 32 + 16*len(fs.Context)
		walk(fs)
	}
	return n + 1024
}

// lbrSplit is how many functions an LBR section has at least for
// AppendExtBinary to encode it in two halves at once.
const lbrSplit = 2048

// appendLBR appends the records of funcs to b, and their offsets from
// where b was to offsets.
func (w *binWriter) appendLBR(b []byte, funcs []*FunctionSamples, offsets []funcOffset) ([]byte, []funcOffset) {
	start := len(b)
	for _, fs := range funcs {
		offsets = append(offsets, funcOffset{fs, uint64(len(b) - start)})
		b = appendUleb(b, fs.HeadSamples)
		b = w.appendBody(b, fs, true)
	}
	return b, offsets
}

type funcOffset struct {
	fs  *FunctionSamples
	off uint64
}

func (w *binWriter) appendMetadata(b []byte, fs *FunctionSamples, top bool) []byte {
	if top {
		b = w.appendContextIdx(b, fs)
	} else {
		b = appendUleb(b, w.names[fs.Name])
	}
	if w.p.ProbeBased {
		b = appendUleb(b, fs.Checksum)
	}
	if w.p.CS || w.p.PreInlined {
		b = appendUleb(b, uint64(fs.Attributes))
	}
	if !w.p.CS {
		b = appendUleb(b, uint64(len(fs.Callsites)))
		for _, c := range fs.Callsites {
			b = appendUleb(b, uint64(c.Loc.Line))
			b = appendUleb(b, uint64(c.Loc.Disc))
			b = w.appendMetadata(b, c.Callee, false)
		}
	}
	return b
}

// mapOrder is the order in which llvm-profdata-llvm's writer iterates its
// profile map (the FuncMetadata records): libstdc++'s iteration order of
// that map when p.Funcs is the order the reader inserted them in (keys are SampleContext hashes, see
// llvmhash.go).
func (p *Profile) mapOrder(llvm llvmrelease.Release) []*FunctionSamples {
	llvm = llvm.OrDefault()
	if p.lmap != nil && p.lmap.llvm == llvm {
		return p.Funcs
	}
	if p.merged {
		// Funcs are in the order merge's map was filled (Merger).
		return stdMapPass(p.Funcs, mapKey(llvm))
	}
	return stdMapOrder(p.Funcs, mapKey(llvm))
}
