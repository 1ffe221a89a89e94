package memprof

import "fmt"

// Compact is the dense form of a converted profile, as the converter
// builds it and the indexed writers consume it: frames and call stacks
// are numbered, and records refer to call stacks by number. It carries
// exactly what a Profile does (Profile expands it) without a []Frame per
// call stack.
//
// Frames and call stacks are numbered in the first-insertion order of
// llvm-profdata's maps (see Profile.Frames and Profile.CallStacks); call
// stack s is the frame numbers StackFrames[StackOff[s]:StackOff[s+1]],
// leaf first, and no two call stacks are equal.
type Compact struct {
	Frames      []Frame
	StackOff    []int32 // len = number of call stacks + 1; StackOff[0] = 0
	StackFrames []int32
	// Records in on-disk hash table insertion order. Record r's alloc
	// sites are AllocSites[r.AllocStart:r.AllocEnd] and its call sites
	// the call stacks CallSites[r.CallStart:r.CallEnd].
	Records    []CompactRecord
	AllocSites []CompactAlloc
	CallSites  []int32
	// Callees, when not nil, holds call site i's callee GUIDs at i
	// (MemProf V4 and YAML; conversion produces none): CalleesOf.
	Callees [][]uint64
	// FrameRuns and StackRuns are Profile.FrameRuns and CallStackRuns as
	// frame and call-stack numbers.
	FrameRuns   [][]int32
	StackRuns   [][]int32
	SymbolNames map[uint64]string
	// First is, when allocation contexts were merged (or a partial
	// profile's sidecar read: SetStates), the state of each call stack's
	// first block (PartialState; indexed by stack number, zero for stacks
	// without alloc sites): what a partial profile's sidecar holds.
	First []PartialState
}

// SetStates sets c.First from the states of a partial profile's sidecar
// (by StackKey). It fails if one of c's allocation contexts has none.
func (c *Compact) SetStates(st PartialStates) error {
	first := make([]PartialState, c.NumStacks())
	done := make([]bool, len(first))
	for _, r := range c.Records {
		for _, a := range c.AllocSites[r.AllocStart:r.AllocEnd] {
			if done[a.Stack] {
				continue
			}
			done[a.Stack] = true
			s, ok := st[StackKey(c.StackFrameList(a.Stack))]
			if !ok {
				return fmt.Errorf("no entry for an allocation context of function %#x", r.GUID)
			}
			first[a.Stack] = s
		}
	}
	c.First = first
	return nil
}

// CompactRecord is the MemProf record of one function.
type CompactRecord struct {
	GUID                 uint64
	AllocStart, AllocEnd int32
	CallStart, CallEnd   int32
}

// CompactAlloc is one alloc site: a call stack number and its statistics.
type CompactAlloc struct {
	Stack int32
	Info  *MemInfoBlock
}

// NumStacks is the number of call stacks.
func (c *Compact) NumStacks() int { return len(c.StackOff) - 1 }

// Stack returns the frame numbers of call stack s, leaf first.
func (c *Compact) Stack(s int32) []int32 { return c.StackFrames[c.StackOff[s]:c.StackOff[s+1]] }

// Profile expands c (a view for YAML, show and tests; merging and
// writing work on c itself). Call stacks become []Frame slices shared by every
// site that uses them; MemInfoBlocks are copied.
func (c *Compact) Profile() *Profile {
	all := make([]Frame, len(c.StackFrames))
	for i, f := range c.StackFrames {
		all[i] = c.Frames[f]
	}
	stacks := make([][]Frame, c.NumStacks())
	for s := range stacks {
		lo, hi := c.StackOff[s], c.StackOff[s+1]
		stacks[s] = all[lo:hi:hi]
	}
	p := &Profile{Frames: c.Frames, CallStacks: stacks, SymbolNames: c.SymbolNames}
	p.Records = make([]*Record, len(c.Records))
	recs := make([]Record, len(c.Records))
	allocs := make([]AllocationInfo, len(c.AllocSites))
	calls := make([]CallSite, len(c.CallSites))
	for i, a := range c.AllocSites {
		allocs[i] = AllocationInfo{CallStack: stacks[a.Stack], Info: *a.Info}
	}
	for i, s := range c.CallSites {
		calls[i] = CallSite{Frames: stacks[s], CalleeGUIDs: c.CalleesOf(i)}
	}
	for i, r := range c.Records {
		rec := &recs[i]
		rec.GUID = r.GUID
		if r.AllocEnd > r.AllocStart {
			rec.AllocSites = allocs[r.AllocStart:r.AllocEnd:r.AllocEnd]
		}
		if r.CallEnd > r.CallStart {
			rec.CallSites = calls[r.CallStart:r.CallEnd:r.CallEnd]
		}
		p.Records[i] = rec
	}
	for _, run := range c.FrameRuns {
		fs := make([]Frame, len(run))
		for i, f := range run {
			fs[i] = c.Frames[f]
		}
		p.FrameRuns = append(p.FrameRuns, fs)
	}
	for _, run := range c.StackRuns {
		ss := make([][]Frame, len(run))
		for i, s := range run {
			ss[i] = stacks[s]
		}
		p.CallStackRuns = append(p.CallStackRuns, ss)
	}
	return p
}
