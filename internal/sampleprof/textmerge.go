package sampleprof

import (
	"bytes"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/stdunordered"
)

// Merging a text profile without building it: ParseTextMerge turns a
// plain text profile into its lines, parsed (on any goroutine), and
// Merger.AddText adds them straight into the merged profile, in the file's
// order, with the input's weight. The result is what ReadText and
// Merger.Add make of the file, byte for byte: the counts are the same sums
// (saturating, and an input whose counts add up to less than 2^64 cannot
// overflow on its own, so only the merge can, and is reported per
// function as Add reports it), and new functions join the merged map in
// the order of the input reader's map (stdMapPass), as Add adds them. What
// this path does not cover (CS contexts, metadata, vtable lines, the LLVM
// 16 reader, any error, counts that could overflow within the file) makes
// ParseTextMerge return nil, and the caller reads the file with ReadText.

// TextLines is a plain text profile parsed for Merger.AddText.
type TextLines struct {
	recs  []textRec
	calls []CallTarget // the body lines' targets, sorted per line
	funcs []FunctionID // the distinct top-level names, first seen first
	// order is the reader map's iteration order: indexes into funcs.
	order []int32
	md5s  []uint64 // funcs' MD5s (LLVM 19+)
	index map[string]int32
	owner *Names // whose free list Release returns t to
}

type textRecKind uint8

const (
	recHead textRecKind = iota
	recBody
	recCallsite
)

// textRec is one line: a header (fn is funcs[idx]; n1 total, n2 head),
// a body sample (n1 samples, calls[t0:t1] its targets) or an inlinee (fn
// the callee, n1 its total).
type textRec struct {
	fn     FunctionID
	n1, n2 uint64
	loc    LineLocation
	depth  uint32
	kind   textRecKind
	t0, t1 int32
}

// Release gives t's memory back for the next ParseTextMerge with the same
// Names; t must not be used afterwards.
func (t *TextLines) Release() {
	n := t.owner
	if n == nil {
		return
	}
	clear(t.recs)
	clear(t.calls)
	clear(t.funcs)
	clear(t.index)
	*t = TextLines{recs: t.recs[:0], calls: t.calls[:0], funcs: t.funcs[:0], order: t.order[:0], md5s: t.md5s[:0], index: t.index, owner: n}
	n.lines.Put(t)
}

// newTextLines returns TextLines a parse with n released, or new ones.
// The free list is n's rather than a sync.Pool's, which every collection
// empties: the merged profile's growth collects often, and the lines of
// each input were allocated anew (a seventh of bench/sample's
// allocations).
func newTextLines(n *Names) *TextLines {
	if n != nil {
		if t := n.lines.Get(); t != nil {
			return t
		}
	}
	return &TextLines{index: map[string]int32{}, owner: n}
}

// ParseTextMerge parses a text profile for Merger.AddText, or returns nil
// if the file is not one that path covers (ReadText then reads it, errors
// included).
func ParseTextMerge(data []byte, opts ReadOptions) *TextLines {
	rel := opts.llvm()
	if rel.SampleLegacyReader16() {
		return nil
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	t := newTextLines(opts.Names)
	ok := t.parse(data, rel, opts.Names)
	if !ok {
		t.Release()
		return nil
	}
	md5 := rel.SampleMapHashesMD5()
	tab := stdunordered.New(len(t.funcs))
	keys := make([]int32, 0, len(t.funcs))
	for i, f := range t.funcs {
		var k uint64
		if md5 {
			k = llvmname.GUID(f.name)
			t.md5s = append(t.md5s, k)
		} else {
			k = llvmStringHash(f)
		}
		if tab.Find(k) >= 0 {
			continue // Add's stdMapPass keeps a key's first
		}
		tab.Insert(k)
		keys = append(keys, int32(i))
	}
	for _, i := range tab.Order() {
		t.order = append(t.order, keys[i])
	}
	return t
}

func (t *TextLines) parse(data []byte, rel llvmrelease.Release, names *Names) bool {
	pl := parsedLine{names: names.cache()}
	defer names.release(pl.names)
	var sum uint64 // of every count: below 2^64, no count of the file overflows
	add := func(v uint64) bool {
		s := sum + v
		if s < sum {
			return false
		}
		sum = s
		return true
	}
	inFunc := false // a header was read
	for off := 0; off < len(data); {
		line, n, next := textLine(data, off)
		off = next
		if n > maxTextLine {
			return false
		}
		pos := line.findNotFrom(' ', 0)
		if pos == npos || line[pos] == '#' {
			continue
		}
		if line[0] != ' ' {
			fname, total, head, ok := parseHead(line)
			if !ok || len(fname) > 0 && fname[0] == '[' || !add(total) || !add(head) {
				return false
			}
			idx, seen := t.index[string(fname)]
			if !seen {
				idx = int32(len(t.funcs))
				f := pl.names.id(fname)
				t.funcs = append(t.funcs, f)
				t.index[f.name] = idx
			}
			t.recs = append(t.recs, textRec{kind: recHead, n1: total, n2: head, t0: idx})
			inFunc = true
			continue
		}
		if !inFunc || !parseLine(line, rel, &pl) {
			return false
		}
		d := uint32(pl.depth) // ≤ maxTextLine
		switch pl.typ {
		case lineCallsite:
			if !add(pl.samples) {
				return false
			}
			t.recs = append(t.recs, textRec{kind: recCallsite, fn: pl.names.id(pl.callee), n1: pl.samples, loc: pl.loc, depth: d})
		case lineBody:
			if !add(pl.samples) {
				return false
			}
			slices.SortFunc(pl.targets, func(x, y CallTarget) int { return x.Func.Compare(y.Func) })
			t0 := int32(len(t.calls))
			for _, c := range pl.targets {
				if !add(c.Count) {
					return false
				}
			}
			t.calls = append(t.calls, pl.targets...)
			t.recs = append(t.recs, textRec{kind: recBody, n1: pl.samples, loc: pl.loc, depth: d, t0: t0, t1: int32(len(t.calls))})
		default: // metadata, vtables: ReadText's
			return false
		}
	}
	return true
}

// AddText merges the lines of a text profile, read from the file name,
// with weight w (≥ 1), as Add merges what ReadText reads from it.
func (m *Merger) AddText(name string, t *TextLines, w uint64) error {
	if err := m.begin(name, &Profile{fromText: true}); err != nil {
		return err
	}
	if w == 0 {
		w = 1
	}
	llvm := m.Release.OrDefault()
	byMD5 := llvm.SampleMapHashesMD5()
	n := len(t.funcs)
	dsts := make([]*FunctionSamples, n)
	const (
		isNew = 1 << iota
		overflowed
		mismatch
	)
	state := make([]uint8, n)
	var fresh []FunctionSamples
	for i, f := range t.funcs {
		var dst *FunctionSamples
		if byMD5 {
			if j, ok := m.byMD5[t.md5s[i]]; ok {
				dst = m.out.Funcs[j]
			}
		} else {
			dst = m.out.Lookup(f)
		}
		switch {
		case dst == nil:
			if len(fresh) == 0 {
				fresh = make([]FunctionSamples, min(n-i, 64))
			}
			dst, fresh = &fresh[0], fresh[1:]
			dst.Name = f
			state[i] = isNew
		case dst.Checksum != 0:
			state[i] = mismatch // a profile without one: not merged
		}
		dsts[i] = dst
	}
	stack := &m.stack
	stack.carve = true
	cur := -1 // the header's function, or -1 while its lines are skipped
	var ovf bool
	for k := range t.recs {
		r := &t.recs[k]
		if r.kind == recHead {
			if cur >= 0 && ovf {
				state[cur] |= overflowed
			}
			cur, ovf = int(r.t0), false
			stack.popTo(0)
			if state[cur]&mismatch != 0 {
				cur = -1
				continue
			}
			dst := dsts[cur]
			dst.addTotal(r.n1, w, &ovf)
			dst.addHead(r.n2, w, &ovf)
			stack.push(dst)
			continue
		}
		if cur < 0 {
			continue
		}
		stack.popTo(uint(r.depth))
		top := stack.fs[len(stack.fs)-1]
		if r.kind == recCallsite {
			c := top.calleeAt(r.loc, r.fn, &m.slab)
			c.addTotal(r.n1, w, &ovf)
			stack.push(c)
			continue
		}
		b := top.BodyAt(r.loc)
		targets := t.calls[r.t0:r.t1]
		if k := len(targets); len(b.Calls) == 0 && k > 0 && k <= callChunk/8 && w == 1 {
			// As ReadText carves them (capacity capped: adding reallocates).
			if cap(m.calls)-len(m.calls) < k {
				m.calls = make([]CallTarget, 0, callChunk)
			}
			at := len(m.calls)
			m.calls = append(m.calls, targets...)
			b.Calls = m.calls[at:len(m.calls):len(m.calls)]
		} else if len(targets) > 0 {
			b.addCalls(targets, w, &ovf)
		}
		var o bool
		b.Samples, o = satMulAdd(b.Samples, r.n1, w)
		ovf = ovf || o
	}
	if cur >= 0 && ovf {
		state[cur] |= overflowed
	}
	stack.popTo(0)
	for _, i := range t.order {
		dst := dsts[i]
		if state[i]&isNew != 0 {
			m.adopt(dst, byMD5, llvm)
		}
		if m.Warnf == nil {
			continue
		}
		switch {
		case state[i]&mismatch != 0:
			m.Warnf("%s: %s: %v", name, dst.ContextString(), ErrHashMismatch)
		case state[i]&overflowed != 0:
			m.Warnf("%s: %s: %v", name, dst.ContextString(), ErrCounterOverflow)
		}
	}
	return nil
}
