package sampleprof

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/freelist"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// The text format (SampleProfileReaderText), one function per header:
//
//	NAME:TOTAL:HEAD                 header at column 0; NAME may be [CONTEXT]
//	 LOC: COUNT [TARGET:COUNT]...   body sample, one space per depth
//	 LOC: CALLEE:TOTAL              inlinee; its lines follow one space deeper
//	 LOC: vtables [VT:COUNT ]...    vtable type counts (LLVM 22)
//	 !CFGChecksum: N | !Attributes: N | !Flat (LLVM 22)   metadata, last
//
// LOC is LINE or LINE.DISC. The reader reproduces LLVM's parser, quirks
// included (it is the StringRef arithmetic of ParseHead and ParseLine,
// size_t wrap-around and all), so that what LLVM accepts we accept and read
// the same way.

const format = "sampleprof"

// npos is StringRef::npos.
const npos = ^uint(0)

// sref is the subset of StringRef the text parser needs, with its exact
// clamping rules.
type sref []byte

func (s sref) size() uint { return uint(len(s)) }

func (s sref) substr(start, n uint) sref {
	start = min(start, s.size())
	n = min(n, s.size()-start)
	return s[start : start+n]
}

func (s sref) from(start uint) sref { return s.substr(start, npos) }

func (s sref) find(c byte) uint { return s.findFrom(c, 0) }

func (s sref) findFrom(c byte, from uint) uint {
	if from >= s.size() {
		return npos
	}
	if i := bytes.IndexByte(s[from:], c); i >= 0 {
		return from + uint(i)
	}
	return npos
}

// rfindFrom finds c strictly before from (clamped to the size).
func (s sref) rfindFrom(c byte, from uint) uint {
	from = min(from, s.size())
	if i := bytes.LastIndexByte(s[:from], c); i >= 0 {
		return uint(i)
	}
	return npos
}

func (s sref) findNotFrom(c byte, from uint) uint {
	for i := from; i < s.size(); i++ {
		if s[i] != c {
			return i
		}
	}
	return npos
}

// u64 is StringRef::getAsInteger(10, uint64_t): decimal digits only, no
// sign, no overflow.
func (s sref) u64() (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func (s sref) u32() (uint32, bool) {
	v, ok := s.u64()
	if !ok || v > 0xffffffff {
		return 0, false
	}
	return uint32(v), true
}

// i32 is getAsInteger(10, int): an optional '-'.
func (s sref) i32() (int32, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	v, ok := s.u64()
	if !ok {
		return 0, false
	}
	if neg {
		if v > 1<<31 {
			return 0, false
		}
		return int32(-int64(v)), true
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

func (s sref) trim() sref {
	return bytes.Trim(s, " \t\n\v\f\r")
}

// ReadOptions select the reader of one LLVM release.
type ReadOptions struct {
	// Release is the release whose reader to follow (0 means
	// llvmrelease.Default). Vtable lines and !Flat are read by 22 only (16 and 19 read a
	// `vtables` line as an inlinee); 16 lets a repeated header replace the
	// function instead of adding to it.
	Release llvmrelease.Release
	// Names, if set, gives the names read their strings, so that the
	// profiles read with one Names (the inputs of a merge, read on any
	// goroutines) share one copy of each name.
	Names *Names
}

// Names interns function names: one string per name. Safe for concurrent
// use.
type Names struct {
	mu     sync.Mutex
	m      map[string]string
	caches freelist.List[*nameCache] // idle caches of reads done (8 kept: more reads in flight make new ones)
	lines  freelist.List[*TextLines] // released by Merger.AddText's callers (8 kept: one per input in flight)
}

// cache returns a nameCache for one read: one a finished read left (its
// names are still good), or a new one.
func (n *Names) cache() *nameCache {
	if n == nil {
		return &nameCache{}
	}
	if c := n.caches.Get(); c != nil {
		return c
	}
	return &nameCache{shared: n}
}

func (n *Names) release(c *nameCache) {
	if n == nil {
		return
	}
	n.caches.Put(c)
}

func (n *Names) intern(b []byte) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s, ok := n.m[string(b)]; ok {
		return s
	}
	if n.m == nil {
		n.m = map[string]string{}
	}
	s := string(b)
	n.m[s] = s
	return s
}

// nameCache interns the names of one read: a map of its own in front of
// the shared Names, if any.
type nameCache struct {
	m      map[string]FunctionID
	shared *Names
}

func (c *nameCache) id(b []byte) FunctionID {
	if f, ok := c.m[string(b)]; ok {
		return f
	}
	var s string
	if c.shared != nil {
		s = c.shared.intern(b)
	} else {
		s = string(b)
	}
	if c.m == nil {
		c.m = map[string]FunctionID{}
	}
	f := Name(s)
	c.m[s] = f
	return f
}

func (o ReadOptions) llvm() llvmrelease.Release { return o.Release.OrDefault() }

type lineType int

const (
	lineBody lineType = iota
	lineCallsite
	lineMetadata
	lineVTable
)

type parsedLine struct {
	typ        lineType
	depth      uint
	samples    uint64
	loc        LineLocation
	callee     sref
	targets    []CallTarget // as parsed; a repeated name overwrites
	targetIdx  map[string]int
	names      *nameCache
	types      []TypeCount
	hash       uint64
	attributes uint32
	flat       bool
}

// maxTextLine bounds a line of a text profile. The longest real lines are
// the contexts of deep CSSPGO stacks of long C++ names (a few MiB at
// most); a longer line is an error naming it, so that reading costs the
// file and what it keeps, whatever its shape. llvm-profdata reads any
// line (a 256 MiB function name is accepted).
const maxTextLine = 16 << 20

// excerpt quotes the start of a line for an error message: at most 80
// bytes, then "..." (LLVM prints the whole line).
func excerpt(b sref) string {
	if len(b) > 80 {
		return strconv.Quote(string(b[:77])) + "..."
	}
	return strconv.Quote(string(b))
}

// ReadText reads a text profile. name is the file name errors carry.
func ReadText(name string, data []byte, opts ReadOptions) (*Profile, error) {
	rel := opts.llvm()
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i] // LLVM's line iterator stops at a NUL
	}
	p := &Profile{}
	var stack textStack
	var depthMetadata uint
	var csCount, probeCount int
	var overflow bool
	lineNo := 0
	fail := func(off int, format string, args ...any) error {
		return &decode.Error{Format: "sampleprof", File: name, Section: "text", Offset: int64(off),
			Msg: fmt.Sprintf("line %d: ", lineNo) + fmt.Sprintf(format, args...), Err: decode.ErrMalformed}
	}
	pl := parsedLine{names: opts.Names.cache()}
	defer opts.Names.release(pl.names)
	var frames []Frame // reused: GetContext copies a new context
	var calls []CallTarget
	var slab []FunctionSamples // inlinees are allocated slabSize at a time
	for off := 0; off < len(data); {
		lineNo++
		start := off
		line, n, next := textLine(data, off)
		off = next
		if n > maxTextLine {
			return nil, fail(start, "longer than %d MiB (%d bytes): not a line of a text sample profile", maxTextLine>>20, n)
		}
		// next is the byte LLVM's Rest[0] reads past an empty Rest.
		pos := line.findNotFrom(' ', 0)
		if pos == npos || line[pos] == '#' {
			continue
		}
		if line[0] != ' ' {
			fname, total, head, ok := parseHead(line)
			if !ok {
				return nil, fail(start, "expected 'mangled_name:NUM:NUM', found %s", excerpt(line))
			}
			depthMetadata = 0
			stack.popTo(0)
			var fs *FunctionSamples
			if len(fname) > 0 && fname[0] == '[' {
				frames = parseContext(fname, pl.names, frames[:0])
				if len(frames) == 0 {
					return nil, fail(start, "empty context %s", excerpt(fname))
				}
				csCount++
				fs = p.GetContext(frames)
			} else {
				fs = p.Get(pl.names.id(fname))
			}
			if rel.SampleLegacyReader16() {
				// LLVM 16 replaces the function a repeated header names.
				*fs = FunctionSamples{Name: fs.Name, Context: fs.Context}
			}
			fs.addTotal(total, 1, &overflow)
			fs.addHead(head, 1, &overflow)
			stack.push(fs)
			continue
		}
		if len(stack.fs) == 0 {
			return nil, fail(start, "body line before any function header")
		}
		if !parseLine(line, rel, &pl) {
			switch pl.typ {
			case lineMetadata:
				return nil, fail(start, "cannot parse metadata: %s", excerpt(line))
			case lineVTable:
				return nil, fail(start, "expected 'vtables [mangled_vtable:NUM]+', found %s", excerpt(line))
			}
			return nil, fail(start, "expected 'NUM[.NUM]: NUM[ mangled_name:NUM]*', found %s", excerpt(line))
		}
		if pl.typ != lineMetadata && pl.depth == depthMetadata {
			return nil, fail(start, "found non-metadata after metadata: %s", excerpt(line))
		}
		stack.popTo(pl.depth)
		top := stack.fs[len(stack.fs)-1]
		switch pl.typ {
		case lineCallsite:
			c := top.calleeAt(pl.loc, pl.names.id(pl.callee), &slab)
			c.addTotal(pl.samples, 1, &overflow)
			stack.push(c)
			depthMetadata = 0
		case lineVTable:
			site := top.VTablesAt(pl.loc)
			for _, t := range pl.types {
				site.add(t.Type, t.Count, 1, &overflow)
			}
		case lineBody:
			b := top.BodyAt(pl.loc)
			slices.SortFunc(pl.targets, func(x, y CallTarget) int { return x.Func.Compare(y.Func) })
			if k := len(pl.targets); len(b.Calls) == 0 && k > 0 && k <= callChunk/8 {
				// A body's first targets (distinct: setTarget) are carved
				// from a shared chunk, capacity capped so that adding
				// to them reallocates: one allocation per chunk rather
				// than per body line.
				if cap(calls)-len(calls) < k {
					calls = make([]CallTarget, 0, callChunk)
				}
				at := len(calls)
				calls = append(calls, pl.targets...)
				b.Calls = calls[at:len(calls):len(calls)]
			} else {
				b.addCalls(pl.targets, 1, &overflow)
			}
			var o bool
			b.Samples, o = satMulAdd(b.Samples, pl.samples, 1)
			overflow = overflow || o
		case lineMetadata:
			if pl.hash != 0 {
				top.Checksum = pl.hash
				if pl.depth == 1 {
					probeCount++
				}
			}
			top.Attributes = pl.attributes
			if pl.attributes&ContextShouldBeInlined != 0 {
				p.PreInlined = true
			}
			depthMetadata = pl.depth
		}
	}
	stack.popTo(0)
	if overflow {
		return nil, &decode.Error{Format: format, File: name, Section: "text", Offset: 0,
			Msg: "counter overflow", Err: decode.ErrMalformed}
	}
	p.CS = csCount > 0
	p.ProbeBased = probeCount > 0
	p.fromText = true
	return p, nil
}

// textLine returns the line at off (without its '\n' and a '\r' before
// that), its length with the '\r', and where the next line starts.
func textLine(data []byte, off int) (line sref, n, next int) {
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end, next = len(data), len(data)
	} else {
		end += off
		next = end + 1
	}
	line = sref(data[off:end])
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, end - off, next
}

// slabSize is how many inlinee profiles the text reader allocates at once.
const slabSize = 32

// callChunk is how many call targets the text reader allocates at once,
// and bodyChunk how many body samples Merger.AddText does.
const (
	callChunk = 256
	bodyChunk = 256
)

// textStack is the reader's stack of the function and inlinees the
// current line belongs to. A profile whose body is empty when it is pushed
// grows its body in a buffer of its depth, reused from function to
// function, and gets an exact-size copy when it is popped: a body's
// lines come in any order and one at a time, and growing each body by
// appending made half of the reader's allocations.
type textStack struct {
	fs      []*FunctionSamples
	scratch []bool         // fs[i].Body is bufs[i]'s
	bufs    [][]BodySample // one per depth
	// carve: short bodies are carved from chunk (capacity capped, so
	// that adding to one reallocates), for profiles that are kept (the
	// merged one): an allocation per chunk rather than per body.
	carve bool
	chunk []BodySample
}

func (s *textStack) push(fs *FunctionSamples) {
	d := len(s.fs)
	s.fs = append(s.fs, fs)
	if len(s.bufs) <= d {
		s.bufs = append(s.bufs, nil)
		s.scratch = append(s.scratch, false)
	}
	s.scratch[d] = fs.Body == nil
	if s.scratch[d] {
		fs.Body = s.bufs[d][:0]
	}
}

// popTo pops the stack down to depth entries.
func (s *textStack) popTo(depth uint) {
	for uint(len(s.fs)) > depth {
		d := len(s.fs) - 1
		if fs := s.fs[d]; s.scratch[d] {
			s.bufs[d] = fs.Body
			if n := len(fs.Body); n == 0 {
				fs.Body = nil
			} else if s.carve && n <= bodyChunk/8 {
				if cap(s.chunk)-len(s.chunk) < n {
					s.chunk = make([]BodySample, 0, bodyChunk)
				}
				at := len(s.chunk)
				s.chunk = append(s.chunk, fs.Body...)
				fs.Body = s.chunk[at:len(s.chunk):len(s.chunk)]
			} else {
				fs.Body = append([]BodySample(nil), fs.Body...)
			}
			s.scratch[d] = false
		}
		s.fs = s.fs[:d]
	}
}

// parseHead is LLVM's ParseHead.
func parseHead(in sref) (name sref, total, head uint64, ok bool) {
	n2 := in.rfindFrom(':', npos)
	n1 := in.rfindFrom(':', n2-1)
	name = in.substr(0, n1)
	if total, ok = in.substr(n1+1, n2-n1-1).u64(); !ok {
		return
	}
	head, ok = in.from(n2 + 1).u64()
	return
}

// parseContext is SampleContext::createCtxVectorFromStr: "[a:1 @ b]",
// appended to frames.
func parseContext(s sref, names *nameCache, frames []Frame) []Frame {
	s = s.substr(1, s.size()-2)
	for len(s) > 0 {
		var part sref
		if i := bytes.Index(s, []byte(" @ ")); i >= 0 {
			part, s = s[:i], s[i+3:]
		} else {
			part, s = s, nil
		}
		var f Frame
		fn, loc, _ := bytes.Cut(part, []byte{':'})
		f.Func = names.id(fn)
		if len(loc) > 0 {
			line, disc, _ := bytes.Cut(loc, []byte{'.'})
			if v, ok := sref(line).i32(); ok {
				f.Loc.Line = uint32(v)
			}
			if len(disc) > 0 {
				if v, ok := sref(disc).u32(); ok {
					f.Loc.Disc = v
				}
			}
		}
		frames = append(frames, f)
	}
	return frames
}

// parseLine is LLVM's ParseLine (for a line starting with a space).
func parseLine(in sref, rel llvmrelease.Release, pl *parsedLine) bool {
	*pl = parsedLine{typ: lineBody, targets: pl.targets[:0], types: pl.types[:0], names: pl.names}
	var depth uint
	for depth < in.size() && in[depth] == ' ' {
		depth++
	}
	pl.depth = depth
	if in[depth] == '!' {
		pl.typ = lineMetadata
		if rel.SampleTextFlatMetadata() && string(in) == " !Flat" {
			pl.flat = true
			return true
		}
		md := in.from(depth)
		switch {
		case bytes.HasPrefix(md, []byte("!CFGChecksum:")):
			v, ok := md.from(uint(len("!CFGChecksum:"))).trim().u64()
			pl.hash = v
			return ok
		case bytes.HasPrefix(md, []byte("!Attributes:")):
			v, ok := md.from(uint(len("!Attributes:"))).trim().u32()
			pl.attributes = v
			return ok
		}
		return false
	}
	n1 := in.find(':')
	loc := in.substr(depth, n1-depth)
	if n2 := loc.find('.'); n2 == npos {
		v, ok := loc.u32()
		if !ok || v > 0xffff {
			return false
		}
		pl.loc.Line = v
	} else {
		v, ok := loc.substr(0, n2).u32()
		if !ok {
			return false
		}
		d, ok := loc.from(n2 + 1).u32()
		if !ok {
			return false
		}
		pl.loc = LineLocation{v, d}
	}
	rest := in.from(n1 + 2)
	if len(rest) == 0 {
		// LLVM reads the byte past the line ('\n', '\r' or NUL): never a
		// digit, so the line is an inlinee with no count, an error.
		return false
	}
	switch {
	case rest[0] >= '0' && rest[0] <= '9':
		return parseBody(rest, pl)
	case rel.HasVTableTypeProfiles() && bytes.HasPrefix(rest, []byte("vtables ")):
		pl.typ = lineVTable
		return parseTypes(rest.from(8), pl)
	}
	pl.typ = lineCallsite
	n3 := rest.rfindFrom(':', npos)
	pl.callee = rest.substr(0, n3)
	v, ok := rest.from(n3 + 1).u64()
	pl.samples = v
	return ok
}

func parseBody(rest sref, pl *parsedLine) bool {
	n3 := rest.find(' ')
	var ok bool
	if n3 == npos {
		pl.samples, ok = rest.u64()
	} else {
		pl.samples, ok = rest.substr(0, n3).u64()
	}
	if !ok {
		return false
	}
	for n3 != npos {
		n3 += rest.from(n3).findNotFrom(' ', 0)
		rest = rest.from(n3)
		n3 = rest.find(':')
		if n3 == npos || n3 == 0 {
			return false
		}
		var target sref
		var count uint64
		var n4 uint
		for {
			after := rest.from(n3 + 1)
			target = rest.substr(0, n3)
			n4 = after.find(' ')
			if n4 != npos {
				n4 = n3 + n4 + 1
			} else {
				n4 = rest.size()
			}
			if count, ok = rest.substr(n3+1, n4-n3-1).u64(); ok {
				break
			}
			n5 := after.find(':')
			if n5 == npos {
				return false
			}
			n3 += n5 + 1
		}
		setTarget(pl, target, count)
		if n4 == rest.size() {
			break
		}
		n3 = n4
	}
	return true
}

// setTarget records a target of the line; a repeated one overwrites.
// Lines with many targets index them, so a long line stays linear.
func setTarget(pl *parsedLine, target sref, count uint64) {
	if pl.targetIdx != nil {
		if i, ok := pl.targetIdx[string(target)]; ok {
			pl.targets[i].Count = count
			return
		}
	} else {
		for i := range pl.targets {
			if pl.targets[i].Func.name == string(target) {
				pl.targets[i].Count = count
				return
			}
		}
	}
	pl.targets = append(pl.targets, CallTarget{Func: pl.names.id(target), Count: count})
	if pl.targetIdx == nil && len(pl.targets) > 16 {
		pl.targetIdx = make(map[string]int, len(pl.targets))
		for i, t := range pl.targets {
			pl.targetIdx[t.Func.name] = i
		}
	} else if pl.targetIdx != nil {
		pl.targetIdx[string(target)] = len(pl.targets) - 1
	}
}

// parseTypes is LLVM's parseTypeCountMap.
func parseTypes(in sref, pl *parsedLine) bool {
	for idx := in.findNotFrom(' ', 0); idx != npos; {
		colon := in.findFrom(':', idx)
		if colon == npos {
			return false
		}
		name := in.substr(idx, colon-idx)
		start := colon + 1
		next := in.findFrom(' ', start)
		count, ok := in.substr(start, next-start).u64()
		if !ok {
			return false
		}
		for _, t := range pl.types {
			if t.Type.name == string(name) {
				return false
			}
		}
		pl.types = append(pl.types, TypeCount{Type: pl.names.id(name), Count: count})
		if next == npos {
			idx = npos
		} else {
			idx = in.findNotFrom(' ', next)
		}
	}
	return true
}
