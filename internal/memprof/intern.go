package memprof

import (
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/hashtab"
)

// interner builds a Compact: it numbers frames and call stacks in the
// order they are first added, as llvm-profdata's writer maps do.
type interner struct {
	c        *Compact
	frameIx  map[Frame]int32
	stackTab hashtab.Index // stack s is entry s, hashed by its frame numbers
	scratch  []int32
}

func newInterner() *interner {
	return &interner{c: &Compact{StackOff: []int32{0}}, frameIx: map[Frame]int32{}}
}

// frame returns f's number, adding it if new.
func (in *interner) frame(f Frame) int32 {
	if i, ok := in.frameIx[f]; ok {
		return i
	}
	i := int32(len(in.c.Frames))
	in.frameIx[f] = i
	in.c.Frames = append(in.c.Frames, f)
	return i
}

// stack returns the number of the call stack fs, adding it if new.
func (in *interner) stack(fs []Frame) int32 {
	sc := in.scratch[:0]
	for _, f := range fs {
		sc = append(sc, in.frame(f))
	}
	in.scratch = sc
	return in.stackOf(sc)
}

// stackOf returns the number of the call stack of frame numbers sc,
// adding it if new.
func (in *interner) stackOf(sc []int32) int32 {
	h := uint64(len(sc))
	for _, f := range sc {
		h = (h ^ uint64(f)) * 0x9e3779b97f4a7c15
	}
	h ^= h >> 32
	p := in.stackTab.Probe(h)
	for p = p.Next(); p.Entry >= 0; p = p.Next() {
		if slices.Equal(in.c.Stack(p.Entry), sc) {
			return p.Entry
		}
	}
	s := in.stackTab.Add(h, p)
	in.c.StackFrames = append(in.c.StackFrames, sc...)
	in.c.StackOff = append(in.c.StackOff, int32(len(in.c.StackFrames)))
	return s
}

// Intern returns p in dense form. Frames and call stacks are numbered in
// the order llvm-profdata's writer inserts them: p.Frames, p.CallStacks,
// the runs, then every allocation stack in record order before any
// call-site stack. The Compact shares p's MemInfoBlocks and callee lists.
func Intern(p *Profile) *Compact {
	in := newInterner()
	for _, f := range p.Frames {
		in.frame(f)
	}
	for _, s := range p.CallStacks {
		in.stack(s)
	}
	c := in.c
	for _, run := range p.FrameRuns {
		r := make([]int32, len(run))
		for i, f := range run {
			r[i] = in.frame(f)
		}
		c.FrameRuns = append(c.FrameRuns, r)
	}
	for _, run := range p.CallStackRuns {
		r := make([]int32, len(run))
		for i, s := range run {
			r[i] = in.stack(s)
		}
		c.StackRuns = append(c.StackRuns, r)
	}
	c.Records = make([]CompactRecord, len(p.Records))
	for i, r := range p.Records {
		cr := &c.Records[i]
		cr.GUID = r.GUID
		cr.AllocStart = int32(len(c.AllocSites))
		for j := range r.AllocSites {
			a := &r.AllocSites[j]
			c.AllocSites = append(c.AllocSites, CompactAlloc{Stack: in.stack(a.CallStack), Info: &a.Info})
		}
		cr.AllocEnd = int32(len(c.AllocSites))
	}
	for i, r := range p.Records {
		cr := &c.Records[i]
		cr.CallStart = int32(len(c.CallSites))
		for _, cs := range r.CallSites {
			c.CallSites = append(c.CallSites, in.stack(cs.Frames))
			if cs.CalleeGUIDs != nil {
				c.setCallees(len(c.CallSites)-1, cs.CalleeGUIDs)
			}
		}
		cr.CallEnd = int32(len(c.CallSites))
	}
	c.SymbolNames = p.SymbolNames
	return c
}

// setCallees sets the callee GUIDs of call site i.
func (c *Compact) setCallees(i int, g []uint64) {
	if len(c.Callees) <= i {
		c.Callees = append(c.Callees, make([][]uint64, i+1-len(c.Callees))...)
	}
	c.Callees[i] = g
}

// CalleesOf returns the callee GUIDs of call site i (nil if none).
func (c *Compact) CalleesOf(i int) []uint64 {
	if i < len(c.Callees) {
		return c.Callees[i]
	}
	return nil
}

// Merge combines MemProf profiles in dense form (converted, YAML and
// indexed): records with the same GUID are merged by appending alloc
// sites (as LLVM's IndexedMemProfRecord::merge does) and call sites not
// already present; records keep first-seen order. With contexts, an
// alloc site whose call stack the record has already is merged into it
// (MemInfoBlock.Merge, or MergePartial for a partial profile: one whose
// First is set) instead. One profile without First is returned unchanged
// unless first is wanted. With first, the result's First holds the states
// of its call stacks' first blocks.
//
// The result numbers frames and call stacks as llvm-profdata's writer
// does for records added one by one: every allocation stack in record
// order, then every call-site stack. It shares the MemInfoBlocks of the
// inputs it does not merge into.
func Merge(cs []*Compact, contexts, wantFirst bool) *Compact {
	if len(cs) == 1 && cs[0].First == nil && !wantFirst {
		return cs[0]
	}
	type alloc struct {
		stack int32 // in g
		info  *MemInfoBlock
	}
	type call struct {
		stack   int32 // in g
		callees []uint64
	}
	type rec struct {
		guid   uint64
		allocs []alloc
		calls  []call
		sites  map[int32]int // stack -> alloc index, with contexts
	}
	g := newInterner() // every input's stacks, numbered once
	var recs []*rec
	byGUID := map[uint64]*rec{}
	first := map[int32]PartialState{} // stack -> its first block's state
	var frames, gstack, sc []int32
	for _, c := range cs {
		frames = frames[:0]
		for _, f := range c.Frames {
			frames = append(frames, g.frame(f))
		}
		gstack = gstack[:0]
		for s := range c.NumStacks() {
			sc = sc[:0]
			for _, f := range c.Stack(int32(s)) {
				sc = append(sc, frames[f])
			}
			gstack = append(gstack, g.stackOf(sc))
		}
		for _, r := range c.Records {
			m, ok := byGUID[r.GUID]
			if !ok {
				m = &rec{guid: r.GUID}
				if contexts {
					m.sites = map[int32]int{}
				}
				byGUID[r.GUID] = m
				recs = append(recs, m)
			}
			for _, a := range c.AllocSites[r.AllocStart:r.AllocEnd] {
				s := gstack[a.Stack]
				if !contexts {
					m.allocs = append(m.allocs, alloc{s, a.Info})
					continue
				}
				st, partial := FirstState(a.Info), false
				if c.First != nil {
					st, partial = c.First[a.Stack], true
				}
				if _, ok := first[s]; !ok {
					first[s] = st
				}
				if j, ok := m.sites[s]; ok {
					if partial {
						m.allocs[j].info.MergePartial(a.Info, st)
					} else {
						m.allocs[j].info.Merge(a.Info)
					}
					continue
				}
				m.sites[s] = len(m.allocs)
				b := *a.Info
				b.Histogram = slices.Clone(b.Histogram) // Merge adds into it
				m.allocs = append(m.allocs, alloc{s, &b})
			}
			for k := r.CallStart; k < r.CallEnd; k++ {
				cl := call{gstack[c.CallSites[k]], c.CalleesOf(int(k))}
				if !slices.ContainsFunc(m.calls, func(x call) bool {
					return x.stack == cl.stack && slices.Equal(x.callees, cl.callees)
				}) {
					m.calls = append(m.calls, cl)
				}
			}
		}
	}
	// Number the result's frames and stacks in record order.
	o := newInterner()
	out := o.c
	var fs []Frame
	stackOf := func(s int32) int32 {
		fs = fs[:0]
		for _, f := range g.c.Stack(s) {
			fs = append(fs, g.c.Frames[f])
		}
		return o.stack(fs)
	}
	out.Records = make([]CompactRecord, len(recs))
	for i, m := range recs {
		r := &out.Records[i]
		r.GUID = m.guid
		r.AllocStart = int32(len(out.AllocSites))
		for _, a := range m.allocs {
			out.AllocSites = append(out.AllocSites, CompactAlloc{Stack: stackOf(a.stack), Info: a.info})
		}
		r.AllocEnd = int32(len(out.AllocSites))
	}
	for i, m := range recs {
		r := &out.Records[i]
		r.CallStart = int32(len(out.CallSites))
		for _, cl := range m.calls {
			out.CallSites = append(out.CallSites, stackOf(cl.stack))
			if cl.callees != nil {
				out.setCallees(len(out.CallSites)-1, cl.callees)
			}
		}
		r.CallEnd = int32(len(out.CallSites))
	}
	if wantFirst {
		out.First = make([]PartialState, out.NumStacks())
		k := 0
		for _, m := range recs {
			for _, a := range m.allocs {
				out.First[out.AllocSites[k].Stack] = first[a.stack]
				k++
			}
		}
	}
	return out
}

// StackFrameList returns the frames of call stack s, leaf first.
func (c *Compact) StackFrameList(s int32) []Frame {
	st := c.Stack(s)
	fs := make([]Frame, len(st))
	for i, f := range st {
		fs[i] = c.Frames[f]
	}
	return fs
}
