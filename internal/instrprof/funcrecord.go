package instrprof

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/rules-pgo/rules_pgo/internal/densemap"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/stringmap"
)

// Value kinds (InstrProfValueKind, InstrProfData.inc). Raw version 8
// profiles (LLVM 16) know the first two; raw version 10 adds vtable
// targets.
const (
	IPVKIndirectCallTarget = 0
	IPVKMemOPSize          = 1
	IPVKVTableTarget       = 2
	NumValueKinds          = 3
)

// Version-field variant flags (VARIANT_MASK_*, InstrProfData.inc), shared
// by raw and indexed headers.
const (
	VariantIRProf            = 1 << 56
	VariantCSIRProf          = 1 << 57
	VariantInstrEntry        = 1 << 58
	VariantDbgCorrelate      = 1 << 59
	VariantByteCoverage      = 1 << 60
	VariantFunctionEntryOnly = 1 << 61
	VariantTemporalProf      = 1 << 63
)

// variantKindMask is the variant bits an indexed file inherits from its
// inputs (llvm-profdata's InstrProfKind; debug-info correlation is not one).
const variantKindMask = VariantIRProf | VariantCSIRProf | VariantInstrEntry |
	VariantByteCoverage | VariantFunctionEntryOnly | VariantTemporalProf

// maxCount is getInstrMaxCountValue(): counters saturate here.
const maxCount = ^uint64(0) - 2

// ValueData is InstrProfValueData: a profiled value (an indirect-call
// target's name MD5, a memop size) and how often it was seen.
type ValueData struct {
	Value, Count uint64
}

// FuncRecord is one function's profile (NamedInstrProfRecord): its PGO
// name, the structural hash of its CFG, its counters, MC/DC bitmap bytes and
// value sites.
type FuncRecord struct {
	Name   string
	Hash   uint64
	Counts []uint64
	Bitmap []byte
	// Values[k] holds the value sites of kind k, each a list of values.
	Values [NumValueKinds][][]ValueData
}

// MergeWarning is a problem llvm-profdata reports per function while it
// merges (instrprof_error's count_mismatch, counter_overflow,
// value_site_count_mismatch).
type MergeWarning struct {
	Name string
	Hash uint64
	Msg  string
}

// FuncProfile is a merged set of function records: what InstrProfWriter
// holds before it writes an indexed file.
type FuncProfile struct {
	// Variant is the OR of the inputs' variant flags (the kinds
	// llvm-profdata's Writer.mergeProfileKind accumulates).
	Variant   uint64
	BinaryIDs [][]byte
	records   map[string][]*FuncRecord // by name, hashes in first-seen order
	order     []string                 // names in first-seen order
	Warnings  []MergeWarning
	// Traces are the temporal profiling traces kept (at most the
	// reservoir size), TraceStreamSize how many were seen (traces.go).
	Traces          []TemporalTrace
	TraceStreamSize uint64
	// ReservoirSize and MaxTraceLength are llvm-profdata merge's
	// --temporal-profile-trace-reservoir-size and
	// --temporal-profile-max-trace-length; 0 means LLVM's default
	// (TraceReservoirSize, MaxTraceLength).
	ReservoirSize, MaxTraceLength uint64
	// Traces22 samples traces as LLVM 22 does (traces.go); false, as 19.
	Traces22 bool
	rng      *mt19937                  // the writer's RNG (traces.go)
	layout   *rawLayout                // the last raw's, for AddRawData (rawfast.go)
	shared   atomic.Pointer[rawLayout] // layout, for PrepareRaw
	// LastProfileBinaryIDs is LLVM 16's raw reader: of a file holding
	// several profiles one after the other (the modules of a program with
	// shared libraries writing to one LLVM_PROFILE_FILE), only the last
	// profile's binary ids are kept; LLVM 19 and later keep all.
	LastProfileBinaryIDs bool
	// Sparse is llvm-profdata's --sparse: names none of whose records has
	// a nonzero counter or bitmap byte are not written.
	Sparse bool
}

// TemporalTrace is TemporalProfTraceTy: function NameRefs in the order the
// functions first ran, and the trace's weight.
type TemporalTrace struct {
	Weight   uint64
	NameRefs []uint64
}

// llvm-profdata's defaults for --temporal-profile-trace-reservoir-size and
// --temporal-profile-max-trace-length.
const (
	TraceReservoirSize = 100
	MaxTraceLength     = 10000
)

// NewFuncProfile returns an empty profile.
func NewFuncProfile() *FuncProfile {
	return &FuncProfile{records: map[string][]*FuncRecord{}}
}

// Len returns the number of (name, hash) records.
func (p *FuncProfile) Len() int {
	n := 0
	for _, rs := range p.records {
		n += len(rs)
	}
	return n
}

// Records returns the records sorted by name, then in the order their
// hashes were first seen.
func (p *FuncProfile) Records() []*FuncRecord {
	names := slices.Clone(p.order)
	sort.Strings(names)
	var out []*FuncRecord
	for _, n := range names {
		out = append(out, p.records[n]...)
	}
	return out
}

// writeOrder returns the records in the order llvm-profdata of release
// writes them: names sorted (LLVM 18+) or in StringMap order (LLVM 16),
// the hashes of one name in SmallDenseMap order.
func (p *FuncProfile) writeOrder(release llvmrelease.Release) []*FuncRecord {
	var names []string
	if !release.WritesInstrProfNamesSorted() {
		names = stringmap.Order(p.order)
	} else {
		names = slices.Clone(p.order)
		sort.Strings(names)
	}
	return p.recordsOf(names, release)
}

// recordsOf returns the records of names, in that order; the hashes of a
// name in the iteration order of the writer's per-name
// SmallDenseMap<uint64_t, InstrProfRecord> of release (hashes inserted in
// first-seen order).
func (p *FuncProfile) recordsOf(names []string, release llvmrelease.Release) []*FuncRecord {
	var out []*FuncRecord
	for _, n := range names {
		rs := p.records[n]
		if len(rs) == 1 {
			out = append(out, rs[0])
			continue
		}
		keys := make([]uint64, len(rs))
		for i, r := range rs {
			keys[i] = r.Hash
		}
		m := densemap.NewSmall(release, keys, 4)
		for i := range keys {
			m.Insert(int32(i))
		}
		for _, i := range m.Order() {
			out = append(out, rs[i])
		}
	}
	return out
}

// AddRaw merges a raw profile at weight w (≥ 1), as llvm-profdata merge
// loads one input: its variant flags, binary ids and every record.
func (p *FuncProfile) AddRaw(r *RawProfile, w uint64) {
	p.Variant |= r.Variant & variantKindMask
	ids := r.BinaryIDs
	if p.LastProfileBinaryIDs {
		ids = ids[r.LastIDs:]
	}
	p.BinaryIDs = append(p.BinaryIDs, ids...)
	if len(r.Trace) > 0 {
		p.addTraces([]TemporalTrace{{Weight: w, NameRefs: r.Trace[:min(uint64(len(r.Trace)), p.maxTraceLength())]}}, 1)
	}
	for i := range r.Records {
		p.Add(&r.Records[i], w)
	}
}

// Add merges one record at weight w (InstrProfWriter::addRecord): a new
// (name, hash) is copied and scaled by w; a known one is merged into it
// (InstrProfRecord::merge). Its value sites end sorted by count,
// descending, ties in their previous order (sortValueData).
func (p *FuncProfile) Add(r *FuncRecord, w uint64) {
	if w == 0 {
		w = 1
	}
	if p.layout != nil {
		p.setLayout(nil) // counts change outside the fast path's bound (rawfast.go)
	}
	rs := p.records[r.Name]
	var dst *FuncRecord
	for _, d := range rs {
		if d.Hash == r.Hash {
			dst = d
			break
		}
	}
	if dst == nil {
		dst = cloneRecord(r)
		if rs == nil {
			p.order = append(p.order, r.Name)
		}
		p.records[r.Name] = append(rs, dst)
		if w > 1 {
			p.scale(dst, w)
		}
	} else {
		p.merge(dst, r, w)
	}
	sortValues(dst)
}

// maxValuesPerSite is INSTR_PROF_MAX_NUM_VAL_PER_SITE: a site's value
// count is one byte on disk.
const maxValuesPerSite = 255

// sortValues sorts every value site of d by count, descending, ties kept
// in order, and keeps the first 255 values of each
// (InstrProfRecord::sortValueData, InstrProfValueSiteRecord::sortByCount):
// after every merge step, so a value dropped once does not come back.
func sortValues(d *FuncRecord) {
	for k := range d.Values {
		for s, site := range d.Values[k] {
			if !slices.IsSortedFunc(site, byCount) {
				stableSort(site, true) // stable: a sorted site stays as it is
			}
			if len(site) > maxValuesPerSite {
				d.Values[k][s] = site[:maxValuesPerSite] // its capacity kept: the next merge grows into it
			}
		}
	}
}

// The orders of value sites: by count, descending, and by value.
func byCount(a, b ValueData) int { return cmp.Compare(b.Count, a.Count) }
func byValue(a, b ValueData) int { return cmp.Compare(a.Value, b.Value) }

// stableSort sorts s stably by count, descending (byCount), or by value:
// what slices.SortStableFunc does, by merging sorted runs through a
// buffer rather than rotating them in place (with a comparison function
// call each), which was most of a value fold's time (bench/instr).
func stableSort(s []ValueData, byCount bool) {
	less := func(a, b ValueData) bool {
		if byCount {
			return a.Count > b.Count
		}
		return a.Value < b.Value
	}
	n := len(s)
	const run = 16
	for lo := 0; lo < n; lo += run {
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && less(s[j], s[j-1]); j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
	}
	if n <= run {
		return
	}
	var arr [320]ValueData
	buf := arr[:]
	if n > len(buf) {
		buf = make([]ValueData, n)
	}
	src, dst := s, buf[:n]
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if less(src[j], src[i]) {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

func cloneRecord(r *FuncRecord) *FuncRecord {
	d := &FuncRecord{Name: r.Name, Hash: r.Hash, Counts: slices.Clone(r.Counts), Bitmap: slices.Clone(r.Bitmap)}
	for k := range r.Values {
		if r.Values[k] == nil {
			continue
		}
		d.Values[k] = make([][]ValueData, len(r.Values[k]))
		for s, site := range r.Values[k] {
			d.Values[k][s] = slices.Clone(site)
		}
	}
	return d
}

func (p *FuncProfile) warn(r *FuncRecord, msg string) {
	p.Warnings = append(p.Warnings, MergeWarning{Name: r.Name, Hash: r.Hash, Msg: msg})
}

// countMulAdd is a counter's x*w + acc as InstrProfRecord's merge and
// scale compute it: SaturatingMultiplyAdd, then held at maxCount; o says
// it saturated (a "counter overflow").
func countMulAdd(x, w, acc uint64) (v uint64, o bool) {
	v, o = mulAdd(x, w, acc)
	if v > maxCount {
		v, o = maxCount, true
	}
	return v, o
}

// mulAdd is SaturatingMultiplyAdd(x, w, acc).
func mulAdd(x, w, acc uint64) (uint64, bool) {
	hi, lo := bits.Mul64(x, w)
	if hi != 0 {
		return ^uint64(0), true
	}
	s, c := bits.Add64(lo, acc, 0)
	if c != 0 {
		return ^uint64(0), true
	}
	return s, false
}

func (p *FuncProfile) scale(d *FuncRecord, w uint64) {
	over := false
	for i, c := range d.Counts {
		v, o := countMulAdd(c, w, 0)
		d.Counts[i], over = v, over || o
	}
	for k := range d.Values {
		for _, site := range d.Values[k] {
			for j := range site {
				v, o := mulAdd(site[j].Count, w, 0)
				site[j].Count = v
				over = over || o
			}
		}
	}
	if over {
		p.warn(d, "counter overflow")
	}
}

func (p *FuncProfile) merge(d, r *FuncRecord, w uint64) {
	if len(d.Counts) != len(r.Counts) {
		p.warn(d, "function basic block count change detected (counter mismatch)")
		return
	}
	// A first counter of 2^64−1 (hot) or 2^64−2 (warm) is a pseudo count
	// (profile supplementation); such records only merge with each other,
	// the hotter kind winning.
	if dk, rk := pseudoKind(d.Counts), pseudoKind(r.Counts); dk != 0 || rk != 0 {
		if dk == 0 || rk == 0 {
			p.warn(d, "function basic block count change detected (counter mismatch)")
			return
		}
		d.Counts[0] = max(d.Counts[0], r.Counts[0])
		return
	}
	over := false
	for i, c := range r.Counts {
		v, o := countMulAdd(c, w, d.Counts[i])
		d.Counts[i], over = v, over || o
	}
	if over {
		p.warn(d, "counter overflow")
	}
	if len(d.Bitmap) != len(r.Bitmap) {
		p.warn(d, "function bitmap size change detected (bitmap size mismatch)")
		return
	}
	for i, b := range r.Bitmap {
		d.Bitmap[i] |= b
	}
	p.mergeValues(d, r, w)
}

// mergeValues merges r's value sites into d's (mergeValueProfData).
func (p *FuncProfile) mergeValues(d, r *FuncRecord, w uint64) {
	over := false
	for k := range d.Values {
		if len(d.Values[k]) != len(r.Values[k]) {
			p.warn(d, "function value site count change detected (counter mismatch)")
			continue
		}
		for s := range d.Values[k] {
			var o bool
			d.Values[k][s], o = mergeSite(d.Values[k][s], r.Values[k][s], w)
			over = over || o
		}
	}
	if over {
		p.warn(d, "counter overflow")
	}
}

// pseudoKind is getCountPseudoKind: 2^64−1 hot, 2^64−2 warm, else 0.
func pseudoKind(counts []uint64) uint64 {
	if len(counts) > 0 && counts[0] >= ^uint64(0)-1 {
		return counts[0]
	}
	return 0
}

// mergeSite is InstrProfValueSiteRecord::merge: both lists are sorted by
// value (stably), values of in found in dst get in's count × w added, the
// others are inserted as they are (unscaled, as LLVM does).
func mergeSite(dst, in []ValueData, w uint64) ([]ValueData, bool) {
	if !slices.IsSortedFunc(dst, byValue) {
		stableSort(dst, false)
	}
	if !slices.IsSortedFunc(in, byValue) {
		in = slices.Clone(in)
		stableSort(in, false)
	}
	// The values of in not in dst, and where they go: before dst[at]
	// (InstrProfValueSiteRecord::merge inserts them one at a time, which
	// moves dst's tail for each).
	type insert struct {
		at int
		v  ValueData
	}
	var buf [16]insert
	news := buf[:0]
	over := false
	i := 0
	for _, j := range in {
		for i < len(dst) && dst[i].Value < j.Value {
			i++
		}
		if i < len(dst) && dst[i].Value == j.Value {
			var o bool
			dst[i].Count, o = mulAdd(j.Count, w, dst[i].Count)
			over = over || o
			i++
			continue
		}
		news = append(news, insert{i, j})
	}
	if len(news) == 0 {
		return dst, over
	}
	n := len(dst)
	dst = slices.Grow(dst, len(news))[:n+len(news)]
	to, from := len(dst)-1, n-1
	for k := len(news) - 1; k >= 0; k-- {
		for ; from >= news[k].at; from, to = from-1, to-1 {
			dst[to] = dst[from]
		}
		dst[to] = news[k].v
		to--
	}
	return dst, over
}
