// Package sampleprof reads and writes LLVM sample profiles (SampleFDO,
// AutoFDO and CSSPGO: what llvm-profgen and create_llvm_prof write and
// clang's -fprofile-sample-use reads) in LLVM's text, raw binary and
// extensible binary encodings, byte for byte as llvm-profdata 16, 19 and 22
// write them.
//
// One model serves every encoding: a Profile holds top-level
// FunctionSamples (one per function, or per calling context in CS
// profiles), each with head and total counts, body samples with call
// targets, inlined callsites, a CFG checksum, context attributes and
// vtable type counts per location. The profile summary is computed as
// LLVM's ProfileSummaryBuilder computes it.
//
// Which releases write what: every release writes text, raw binary and
// extbinary the same way, except that llvm-profdata-16's default output of
// `merge --sample` is raw binary (19 and 22 default to extbinary), only
// LLVM 22 reads and writes vtable type counts (text `N: vtables` lines;
// extbinary with -extbinary-write-vtable-type-prof), and only LLVM 22 has
// --split-layout. Decoding checks every count against the bytes that
// remain, so bad input gives a located *decode.Error and never an
// allocation sized by an untrusted number. A line of a text profile is at
// most 16 MiB, an error naming it beyond (llvm-profdata accepts any line,
// a function name of 256 MiB included): reading costs the file and what
// it keeps, whatever the file's shape.
//
// Where this reader rejects what llvm-profdata accepts (each case a mutant
// of internal/mutation's table, testdata/divergences/sample-*.tsv): a line
// offset of 2^32 or more (LLVM checks and keeps it as 32 bits, so 2^63 is
// merged into line 0); a section the section table places outside the
// file (LLVM never checks: it skips a function offset table unread, reads
// a compressed section by its own compressed size, and otherwise reads
// outside its buffer or crashes); a compressed size past its section's
// end (LLVM lets zlib stop where the stream ends). A section type is read,
// as LLVM reads it, from the low 32 bits of its field.
package sampleprof

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// FunctionID names a function: its name, or (MD5 profiles) the 64-bit MD5
// hash of its name. LLVM's FunctionId.
type FunctionID struct {
	name   string
	hash   uint64
	isHash bool
}

// Name returns the FunctionID of a name.
func Name(s string) FunctionID { return FunctionID{name: s} }

// HashID returns the FunctionID of an MD5 hash.
func HashID(h uint64) FunctionID { return FunctionID{hash: h, isHash: true} }

// IsHash reports whether f is a hash rather than a name.
func (f FunctionID) IsHash() bool { return f.isHash }

// String returns the name, or the hash in decimal (how LLVM prints it).
func (f FunctionID) String() string {
	if f.isHash {
		return strconv.FormatUint(f.hash, 10)
	}
	return f.name
}

func (f FunctionID) appendTo(b []byte) []byte {
	if f.isHash {
		return strconv.AppendUint(b, f.hash, 10)
	}
	return append(b, f.name...)
}

// MD5 returns the hash of f: LLVM's MD5Hash of the name (llvmname.GUID),
// or the hash itself.
func (f FunctionID) MD5() uint64 {
	if f.isHash {
		return f.hash
	}
	return llvmname.GUID(f.name)
}

// Compare orders FunctionIDs as LLVM does: hashes numerically before any
// name, names byte-lexicographically.
func (f FunctionID) Compare(g FunctionID) int {
	switch {
	case f.isHash && g.isHash:
		switch {
		case f.hash < g.hash:
			return -1
		case f.hash > g.hash:
			return 1
		}
		return 0
	case f.isHash:
		return -1
	case g.isHash:
		return 1
	}
	return strings.Compare(f.name, g.name)
}

// LineLocation is a body or callsite location: the line offset from the
// function's start line (or the probe index) and the discriminator.
type LineLocation struct {
	Line, Disc uint32
}

// Compare orders locations by line, then discriminator.
func (l LineLocation) Compare(m LineLocation) int {
	switch {
	case l.Line != m.Line:
		if l.Line < m.Line {
			return -1
		}
		return 1
	case l.Disc != m.Disc:
		if l.Disc < m.Disc {
			return -1
		}
		return 1
	}
	return 0
}

func (l LineLocation) appendTo(b []byte) []byte {
	b = strconv.AppendUint(b, uint64(l.Line), 10)
	if l.Disc != 0 {
		b = append(b, '.')
		b = strconv.AppendUint(b, uint64(l.Disc), 10)
	}
	return b
}

// Frame is one frame of a CS context: a function and, for all but the
// leaf, the location of the call in it.
type Frame struct {
	Func FunctionID
	Loc  LineLocation
}

// compareFrames is SampleContext's operator< on two full contexts.
func compareFrames(a, b []Frame) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := a[i].Func.Compare(b[i].Func); c != 0 {
			return c
		}
		if c := a[i].Loc.Compare(b[i].Loc); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// Context attributes (LLVM's ContextAttributeMask).
const (
	ContextWasInlined         = 1
	ContextShouldBeInlined    = 2
	ContextDuplicatedIntoBase = 4
)

// CallTarget is one call target of a body sample.
type CallTarget struct {
	Func  FunctionID
	Count uint64
}

// BodySample is the samples of one location and its call targets,
// ordered by Func.
type BodySample struct {
	Loc     LineLocation
	Samples uint64
	Calls   []CallTarget
}

// SortedCalls returns the call targets in LLVM's output order: count
// descending, then name ascending.
func (b *BodySample) SortedCalls() []CallTarget {
	return b.appendSortedCalls(nil)
}

// appendSortedCalls appends SortedCalls to s.
func (b *BodySample) appendSortedCalls(s []CallTarget) []CallTarget {
	at := len(s)
	s = append(s, b.Calls...)
	slices.SortStableFunc(s[at:], func(x, y CallTarget) int {
		if x.Count != y.Count {
			if x.Count > y.Count {
				return -1
			}
			return 1
		}
		return x.Func.Compare(y.Func)
	})
	return s
}

// TypeCount is the count of one vtable type at a callsite.
type TypeCount struct {
	Type  FunctionID
	Count uint64
}

// VTableSite is the vtable type counts at one location, ordered by Type.
type VTableSite struct {
	Loc   LineLocation
	Types []TypeCount
}

// Callsite is one inlinee: the location of the call and the callee's
// samples (whose Name is the callee).
type Callsite struct {
	Loc    LineLocation
	Callee *FunctionSamples
}

// FunctionSamples is the profile of one function, one context of it, or
// one inlined instance of it.
type FunctionSamples struct {
	Name FunctionID
	// Context is the full calling context of a top-level CS profile,
	// caller first; nil otherwise. Its last frame's Func is Name.
	Context      []Frame
	TotalSamples uint64
	HeadSamples  uint64       // top-level profiles only
	Body         []BodySample // ascending Loc
	Callsites    []Callsite   // ascending (Loc, Callee.Name)
	VTables      []VTableSite // ascending Loc
	Checksum     uint64       // CFG checksum (probe-based profiles)
	Attributes   uint32
}

// Profile is a whole sample profile.
type Profile struct {
	// Funcs are the top-level profiles in the order they were first added
	// (the insertion order LLVM's reader map sees).
	Funcs []*FunctionSamples

	CS         bool // context-sensitive (CSSPGO) profile: Funcs have Context
	ProbeBased bool // pseudo-probe profile: functions carry checksums
	PreInlined bool
	FS         bool // flow-sensitive discriminators
	Partial    bool // extbinary summary flag Partial
	// SymbolList is the profile symbol list (extbinary), sorted.
	SymbolList []string

	byName map[FunctionID]int32
	byCtx  map[uint64][]int32
	// merged: Funcs are in the insertion order of llvm-profdata merge's
	// own map, not of a reader's (see Merger).
	merged bool
	// lmap, once a conversion (convert.go) changed the profile map: the
	// map, whose iteration order Funcs are in.
	lmap *llvmMap
	// summary: the summary a binary profile carries (nil for text), what
	// LLVM's reader reports instead of computing one.
	summary *Summary
	// fromText: read by ReadText, whose reader sets LLVM's global
	// ProfileIsPreInlined to its own value (binary readers only set it).
	fromText bool
}

// Len returns the number of top-level profiles.
func (p *Profile) Len() int { return len(p.Funcs) }

// Lookup returns the top-level profile of a name (non-CS) or nil.
func (p *Profile) Lookup(name FunctionID) *FunctionSamples {
	if i, ok := p.byName[name]; ok {
		return p.Funcs[i]
	}
	return nil
}

// LookupContext returns the top-level profile of a CS context or nil.
func (p *Profile) LookupContext(frames []Frame) *FunctionSamples {
	if p.byCtx == nil {
		p.indexContexts()
	}
	for _, i := range p.byCtx[framesKey(frames)] {
		if compareFrames(p.Funcs[i].Context, frames) == 0 {
			return p.Funcs[i]
		}
	}
	return nil
}

func framesKey(frames []Frame) uint64 {
	// FNV-1a over the frames, for the map only.
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for i := 0; i < 8; i++ {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	for _, f := range frames {
		if f.Func.isHash {
			mix(f.Func.hash)
		} else {
			for i := 0; i < len(f.Func.name); i++ {
				h ^= uint64(f.Func.name[i])
				h *= 1099511628211
			}
			mix(uint64(len(f.Func.name)) | 1<<63)
		}
		mix(uint64(f.Loc.Line) | uint64(f.Loc.Disc)<<32)
	}
	return h
}

// indexContexts builds byCtx (which a Merger leaves nil when it does not
// need it).
func (p *Profile) indexContexts() {
	p.byCtx = map[uint64][]int32{}
	for i, fs := range p.Funcs {
		if fs.Context != nil {
			k := framesKey(fs.Context)
			p.byCtx[k] = append(p.byCtx[k], int32(i))
		}
	}
}

// Get returns the top-level profile of name (non-CS), creating it.
func (p *Profile) Get(name FunctionID) *FunctionSamples {
	if p.byName == nil {
		p.byName = map[FunctionID]int32{}
	}
	if i, ok := p.byName[name]; ok {
		return p.Funcs[i]
	}
	fs := &FunctionSamples{Name: name}
	p.byName[name] = int32(len(p.Funcs))
	p.Funcs = append(p.Funcs, fs)
	return fs
}

// GetContext returns the top-level profile of a CS context, creating it
// (frames are copied).
func (p *Profile) GetContext(frames []Frame) *FunctionSamples {
	if p.byCtx == nil {
		p.indexContexts()
	}
	k := framesKey(frames)
	for _, i := range p.byCtx[k] {
		if compareFrames(p.Funcs[i].Context, frames) == 0 {
			return p.Funcs[i]
		}
	}
	fs := &FunctionSamples{Name: frames[len(frames)-1].Func, Context: slices.Clone(frames)}
	p.byCtx[k] = append(p.byCtx[k], int32(len(p.Funcs)))
	p.Funcs = append(p.Funcs, fs)
	return fs
}

// Add adds a top-level profile, merging it (with weight 1) into an
// existing one of the same name or context.
func (p *Profile) Add(fs *FunctionSamples) error {
	var dst *FunctionSamples
	if fs.Context != nil {
		dst = p.GetContext(fs.Context)
	} else {
		dst = p.Get(fs.Name)
	}
	return dst.Merge(fs, 1)
}

// compareContext is SampleContext's operator< between two top-level
// profiles of one profile.
func compareContext(a, b *FunctionSamples) int {
	if a.Context != nil || b.Context != nil {
		return compareFrames(a.Context, b.Context)
	}
	return a.Name.Compare(b.Name)
}

// Sorted returns the top-level profiles in LLVM's sortFuncProfiles order:
// total samples descending, then context ascending.
func (p *Profile) Sorted() []*FunctionSamples {
	s := slices.Clone(p.Funcs)
	slices.SortStableFunc(s, func(a, b *FunctionSamples) int {
		if a.TotalSamples != b.TotalSamples {
			if a.TotalSamples > b.TotalSamples {
				return -1
			}
			return 1
		}
		return compareContext(a, b)
	})
	return s
}

// satAdd returns a+b·w, saturated, and whether it overflowed.
func satMulAdd(a, b, w uint64) (uint64, bool) {
	hi, lo := bits.Mul64(b, w)
	if hi != 0 {
		return ^uint64(0), true
	}
	s := a + lo
	if s < a {
		return ^uint64(0), true
	}
	return s, false
}

// ErrCounterOverflow and ErrHashMismatch are what Merge reports (LLVM's
// counter_overflow and hash_mismatch); on overflow the counts saturate.
var (
	ErrCounterOverflow = errorString("counter overflow")
	ErrHashMismatch    = errorString("function hash mismatch")
)

type errorString string

func (e errorString) Error() string { return string(e) }

func (fs *FunctionSamples) addTotal(n, w uint64, ovf *bool) {
	var o bool
	fs.TotalSamples, o = satMulAdd(fs.TotalSamples, n, w)
	*ovf = *ovf || o
}

func (fs *FunctionSamples) addHead(n, w uint64, ovf *bool) {
	var o bool
	fs.HeadSamples, o = satMulAdd(fs.HeadSamples, n, w)
	*ovf = *ovf || o
}

// BodyAt returns the body sample at loc, creating it.
func (fs *FunctionSamples) BodyAt(loc LineLocation) *BodySample {
	n := len(fs.Body)
	if n == 0 || fs.Body[n-1].Loc.Compare(loc) < 0 {
		fs.Body = append(fs.Body, BodySample{Loc: loc})
		return &fs.Body[n]
	}
	i, found := searchLoc(fs.Body, loc, bodyLoc)
	if !found {
		fs.Body = slices.Insert(fs.Body, i, BodySample{Loc: loc})
	}
	return &fs.Body[i]
}

// searchLoc is a binary search of s, ordered by location. (It takes the
// elements by pointer: a closure over a copy would move every probed
// element to the heap.)
func searchLoc[T any](s []T, loc LineLocation, locOf func(*T) LineLocation) (int, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if locOf(&s[m]).Compare(loc) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && locOf(&s[lo]) == loc
}

func bodyLoc(b *BodySample) LineLocation { return b.Loc }

// FindBody returns the body sample at loc or nil.
func (fs *FunctionSamples) FindBody(loc LineLocation) *BodySample {
	if i, found := searchLoc(fs.Body, loc, bodyLoc); found {
		return &fs.Body[i]
	}
	return nil
}

// addCall adds to the call target f of b.
func (b *BodySample) addCall(f FunctionID, n, w uint64, ovf *bool) {
	k := len(b.Calls)
	var i int
	if k == 0 || b.Calls[k-1].Func.Compare(f) < 0 {
		b.Calls = append(b.Calls, CallTarget{Func: f})
		i = k
	} else {
		var found bool
		i, found = slices.BinarySearchFunc(b.Calls, f, func(c CallTarget, f FunctionID) int { return c.Func.Compare(f) })
		if !found {
			b.Calls = slices.Insert(b.Calls, i, CallTarget{Func: f})
		}
	}
	var o bool
	b.Calls[i].Count, o = satMulAdd(b.Calls[i].Count, n, w)
	*ovf = *ovf || o
}

// AddCall adds n to the call target f of b (saturating, as LLVM's
// addCalledTarget).
func (b *BodySample) AddCall(f FunctionID, n uint64) {
	var ovf bool
	b.addCall(f, n, 1, &ovf)
}

// addCalls adds targets (ordered by Func; a repeated one adds up) to b's
// call targets: one merge, so that long lists stay linear.
func (b *BodySample) addCalls(targets []CallTarget, w uint64, ovf *bool) {
	if len(targets) <= 4 {
		for _, c := range targets {
			b.addCall(c.Func, c.Count, w, ovf)
		}
		return
	}
	out := make([]CallTarget, 0, len(b.Calls)+len(targets))
	i, j := 0, 0
	for i < len(b.Calls) || j < len(targets) {
		var c int
		switch {
		case i == len(b.Calls):
			c = 1
		case j == len(targets):
			c = -1
		default:
			c = b.Calls[i].Func.Compare(targets[j].Func)
		}
		switch {
		case c < 0:
			out = append(out, b.Calls[i])
			i++
		default:
			t := CallTarget{Func: targets[j].Func}
			if c == 0 {
				t.Count = b.Calls[i].Count
				i++
			}
			for ; j < len(targets) && targets[j].Func == t.Func; j++ {
				var o bool
				t.Count, o = satMulAdd(t.Count, targets[j].Count, w)
				*ovf = *ovf || o
			}
			out = append(out, t)
		}
	}
	b.Calls = out
}

// CalleeAt returns the inlinee profile of callee at loc, creating it.
func (fs *FunctionSamples) CalleeAt(loc LineLocation, callee FunctionID) *FunctionSamples {
	return fs.calleeAt(loc, callee, nil)
}

// calleeAt is CalleeAt; a new inlinee is taken from *slab when slab is
// not nil (refilled with slabSize profiles when empty).
func (fs *FunctionSamples) calleeAt(loc LineLocation, callee FunctionID, slab *[]FunctionSamples) *FunctionSamples {
	i, found := fs.calleeIndex(loc, callee)
	if found {
		return fs.Callsites[i].Callee
	}
	var c *FunctionSamples
	if slab != nil {
		if len(*slab) == 0 {
			*slab = make([]FunctionSamples, slabSize)
		}
		c = &(*slab)[0]
		*slab = (*slab)[1:]
		c.Name = callee
	} else {
		c = &FunctionSamples{Name: callee}
	}
	fs.Callsites = slices.Insert(fs.Callsites, i, Callsite{Loc: loc, Callee: c})
	return c
}

// calleeIndex finds the inlinee of callee at loc, or where it goes.
func (fs *FunctionSamples) calleeIndex(loc LineLocation, callee FunctionID) (int, bool) {
	cmp := func(c Callsite, _ struct{}) int {
		if r := c.Loc.Compare(loc); r != 0 {
			return r
		}
		return c.Callee.Name.Compare(callee)
	}
	n := len(fs.Callsites)
	if n == 0 || cmp(fs.Callsites[n-1], struct{}{}) < 0 {
		return n, false
	}
	return slices.BinarySearchFunc(fs.Callsites, struct{}{}, cmp)
}

// addBodyLocs adds empty body samples for the locations of body (ordered)
// that fs lacks, in one allocation.
func (fs *FunctionSamples) addBodyLocs(body []BodySample) {
	missing, j := 0, 0
	for i := range body {
		for j < len(fs.Body) && fs.Body[j].Loc.Compare(body[i].Loc) < 0 {
			j++
		}
		if j == len(fs.Body) || fs.Body[j].Loc != body[i].Loc {
			missing++
		}
	}
	if missing == 0 {
		return
	}
	out := make([]BodySample, 0, len(fs.Body)+missing)
	j = 0
	for i := range body {
		for j < len(fs.Body) && fs.Body[j].Loc.Compare(body[i].Loc) < 0 {
			out = append(out, fs.Body[j])
			j++
		}
		if j < len(fs.Body) && fs.Body[j].Loc == body[i].Loc {
			out = append(out, fs.Body[j])
			j++
		} else {
			out = append(out, BodySample{Loc: body[i].Loc})
		}
	}
	fs.Body = append(out, fs.Body[j:]...)
}

// VTablesAt returns the vtable counts at loc, creating them.
func (fs *FunctionSamples) VTablesAt(loc LineLocation) *VTableSite {
	i, found := searchLoc(fs.VTables, loc, vtableLoc)
	if !found {
		fs.VTables = slices.Insert(fs.VTables, i, VTableSite{Loc: loc})
	}
	return &fs.VTables[i]
}

// FindVTables returns the vtable counts at loc or nil.
func (fs *FunctionSamples) FindVTables(loc LineLocation) *VTableSite {
	if i, found := searchLoc(fs.VTables, loc, vtableLoc); found {
		return &fs.VTables[i]
	}
	return nil
}

func vtableLoc(v *VTableSite) LineLocation { return v.Loc }

// add adds to the count of type t; insert reports whether t was new.
func (v *VTableSite) add(t FunctionID, n, w uint64, ovf *bool) (isNew bool) {
	i, found := slices.BinarySearchFunc(v.Types, t, func(c TypeCount, f FunctionID) int { return c.Type.Compare(f) })
	if !found {
		v.Types = slices.Insert(v.Types, i, TypeCount{Type: t})
	}
	var o bool
	v.Types[i].Count, o = satMulAdd(v.Types[i].Count, n, w)
	*ovf = *ovf || o
	return !found
}

// Merge adds o, its counts multiplied by weight, into fs (LLVM's
// FunctionSamples::merge). Profiles with different nonzero checksums are
// not merged (ErrHashMismatch); overflowing counts saturate
// (ErrCounterOverflow, after the merge).
func (fs *FunctionSamples) Merge(o *FunctionSamples, weight uint64) error {
	return fs.mergeTop(o, weight, false)
}

// mergeTop is Merge; with take, o is not used afterwards and fs may adopt
// parts of it (what merging them into empty ones would copy, with weight 1).
func (fs *FunctionSamples) mergeTop(o *FunctionSamples, weight uint64, take bool) error {
	if fs.Checksum == 0 {
		fs.Checksum = o.Checksum
	} else if fs.Checksum != o.Checksum {
		return ErrHashMismatch
	}
	var ovf bool
	fs.merge(o, weight, &ovf, take)
	if ovf {
		return ErrCounterOverflow
	}
	return nil
}

func (fs *FunctionSamples) merge(o *FunctionSamples, w uint64, ovf *bool, take bool) {
	if fs.Checksum == 0 {
		fs.Checksum = o.Checksum
	} else if o.Checksum != 0 && fs.Checksum != o.Checksum {
		// LLVM's merge of a nested profile reports the mismatch and
		// stops there; the caller keeps going.
		return
	}
	if fs.Attributes == 0 && fs.TotalSamples == 0 && len(fs.Body) == 0 && len(fs.Callsites) == 0 {
		fs.Attributes = o.Attributes
	}
	fs.addTotal(o.TotalSamples, w, ovf)
	fs.addHead(o.HeadSamples, w, ovf)
	take = take && w == 1
	if take && len(fs.Body) == 0 {
		fs.Body, o.Body = o.Body, nil
	}
	fs.addBodyLocs(o.Body)
	// Both lists are ordered, and fs has every location of o now.
	j := 0
	for i := range o.Body {
		ob := &o.Body[i]
		for fs.Body[j].Loc != ob.Loc {
			j++
		}
		b := &fs.Body[j]
		if take && len(b.Calls) == 0 {
			b.Calls = ob.Calls
		} else {
			b.addCalls(ob.Calls, w, ovf)
		}
		var of bool
		b.Samples, of = satMulAdd(b.Samples, ob.Samples, w)
		*ovf = *ovf || of
	}
	for _, c := range o.Callsites {
		i, found := fs.calleeIndex(c.Loc, c.Callee.Name)
		switch {
		case found:
			fs.Callsites[i].Callee.merge(c.Callee, w, ovf, take)
		case take:
			fs.Callsites = slices.Insert(fs.Callsites, i, c)
		default:
			callee := &FunctionSamples{Name: c.Callee.Name}
			fs.Callsites = slices.Insert(fs.Callsites, i, Callsite{Loc: c.Loc, Callee: callee})
			callee.merge(c.Callee, w, ovf, false)
		}
	}
	for _, v := range o.VTables {
		site := fs.VTablesAt(v.Loc)
		for _, t := range v.Types {
			site.add(t.Type, t.Count, w, ovf)
		}
	}
}

// Clone returns a deep copy of fs.
func (fs *FunctionSamples) Clone() *FunctionSamples {
	c := *fs
	c.Context = slices.Clone(fs.Context)
	c.Body = slices.Clone(fs.Body)
	for i := range c.Body {
		c.Body[i].Calls = slices.Clone(c.Body[i].Calls)
	}
	c.Callsites = slices.Clone(fs.Callsites)
	for i := range c.Callsites {
		c.Callsites[i].Callee = c.Callsites[i].Callee.Clone()
	}
	c.VTables = slices.Clone(fs.VTables)
	for i := range c.VTables {
		c.VTables[i].Types = slices.Clone(c.VTables[i].Types)
	}
	return &c
}

// ContextString returns the context as LLVM prints it (without brackets):
// `main:3 @ foo:2.1 @ bar`, or the name of a non-CS profile.
func (fs *FunctionSamples) ContextString() string {
	return string(fs.appendContext(nil))
}

func (fs *FunctionSamples) appendContext(b []byte) []byte {
	if fs.Context == nil {
		return fs.Name.appendTo(b)
	}
	for i, f := range fs.Context {
		if i > 0 {
			b = append(b, " @ "...)
		}
		b = f.Func.appendTo(b)
		if i < len(fs.Context)-1 {
			b = append(b, ':')
			b = f.Loc.appendTo(b)
		}
	}
	return b
}
