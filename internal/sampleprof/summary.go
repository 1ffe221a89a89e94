package sampleprof

import (
	"math/bits"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// Summary is the profile summary (LLVM's ProfileSummary of kind Sample).
type Summary struct {
	TotalCount, MaxCount, MaxFunctionCount uint64
	NumCounts, NumFunctions                uint64
	Detailed                               []SummaryEntry
}

// SummaryEntry is one detailed-summary entry: the smallest count among the
// hottest counts that make up Cutoff parts per million of the total.
type SummaryEntry struct {
	Cutoff, MinCount, NumCounts uint64
}

// DefaultCutoffs are LLVM's ProfileSummaryBuilder::DefaultCutoffs.
var DefaultCutoffs = []uint32{10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000,
	800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999}

type summaryBuilder struct {
	total, max, maxFunc uint64
	numCounts, numFuncs uint32
	counts              []uint64 // every count added (sorted at the end)
}

func (b *summaryBuilder) addCount(c uint64) {
	b.total += c
	b.max = max(b.max, c)
	b.numCounts++
	b.counts = append(b.counts, c)
}

func (b *summaryBuilder) addRecord(fs *FunctionSamples, callsite bool) {
	if !callsite {
		b.numFuncs++
		b.maxFunc = max(b.maxFunc, fs.HeadSamples)
	} else if fs.Attributes&ContextDuplicatedIntoBase != 0 {
		return
	}
	for i := range fs.Body {
		b.addCount(fs.Body[i].Samples)
	}
	for _, c := range fs.Callsites {
		b.addRecord(c.Callee, true)
	}
}

// ComputeSummary computes the summary of p as llvm-profdata-22 does when
// it writes p: CS profiles are first flattened to one profile per
// function.
func (p *Profile) ComputeSummary() *Summary { return p.ComputeSummaryFor(22) }

// ComputeSummaryFor is ComputeSummary as llvm-profdata of release llvm
// computes it. (Releases differ only in the order the contexts of a
// function of a CS profile are merged in, which decides which one's
// checksum wins when they differ.)
func (p *Profile) ComputeSummaryFor(llvm llvmrelease.Release) *Summary {
	return p.computeSummary(p.mapOrder(llvm))
}

// computeSummary computes the summary of top-level profiles funcs, in the
// order LLVM's profile map holds them.
func (p *Profile) computeSummary(funcs []*FunctionSamples) *Summary {
	var b summaryBuilder
	if p.CS {
		// Keyed as LLVM's SampleProfileMap: by the MD5 of the name, so
		// that a function named in one context and hashed in another
		// (merged inputs) is one. Only what the summary reads is merged
		// (mergeCounts), and a function of one context is taken as it is.
		key := md5Memo()
		type group struct {
			first, flat *FunctionSamples
		}
		flat := map[uint64]*group{}
		var order []*group
		for _, fs := range funcs {
			k := key(fs.Name)
			g := flat[k]
			switch {
			case g == nil:
				g = &group{first: fs}
				flat[k] = g
				order = append(order, g)
				continue
			case g.flat == nil:
				g.flat = &FunctionSamples{Name: g.first.Name}
				g.flat.mergeCounts(g.first, true)
			}
			g.flat.mergeCounts(fs, true)
		}
		for _, g := range order {
			if g.flat != nil {
				b.addRecord(g.flat, false)
			} else {
				b.addRecord(g.first, false)
			}
		}
	} else {
		n := 0
		for _, fs := range funcs {
			n += countRecords(fs, false)
		}
		b.counts = make([]uint64, 0, n)
		for _, fs := range funcs {
			b.addRecord(fs, false)
		}
	}
	s := &Summary{TotalCount: b.total, MaxCount: b.max, MaxFunctionCount: b.maxFunc,
		NumCounts: uint64(b.numCounts), NumFunctions: uint64(b.numFuncs)}
	// Distinct counts from the largest, each with how often it occurs.
	counts := sortCounts(b.counts)
	var seen uint32
	var sum, count uint64
	next := len(counts) // counts[:next] are left
	for _, cut := range DefaultCutoffs {
		hi, lo := bits.Mul64(b.total, uint64(cut))
		desired, _ := bits.Div64(hi, lo, 1000000)
		for sum < desired && next > 0 {
			count = counts[next-1]
			var f uint32
			for next > 0 && counts[next-1] == count {
				f++
				next--
			}
			sum += count * uint64(f)
			seen += f
		}
		s.Detailed = append(s.Detailed, SummaryEntry{Cutoff: uint64(cut), MinCount: count, NumCounts: uint64(seen)})
	}
	return s
}

// countRecords is the number of counts addRecord adds for fs.
func countRecords(fs *FunctionSamples, callsite bool) int {
	if callsite && fs.Attributes&ContextDuplicatedIntoBase != 0 {
		return 0
	}
	n := len(fs.Body)
	for _, c := range fs.Callsites {
		n += countRecords(c.Callee, true)
	}
	return n
}

// sortCounts sorts counts ascending: a least-significant-byte-first radix
// sort, skipping the bytes every count shares (counts are mostly small),
// for long slices; it returns the sorted slice (counts or a new one).
func sortCounts(counts []uint64) []uint64 {
	if len(counts) < 1024 {
		slices.Sort(counts)
		return counts
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, c := range counts {
		or |= c
		and &= c
	}
	diff := or ^ and // the bits that differ between some counts
	tmp := make([]uint64, len(counts))
	src, dst := counts, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		var pos [256]int
		for _, c := range src {
			pos[(c>>shift)&0xff]++
		}
		sum := 0
		for i, k := range pos {
			pos[i] = sum
			sum += k
		}
		for _, c := range src {
			d := (c >> shift) & 0xff
			dst[pos[d]] = c
			pos[d]++
		}
		src, dst = dst, src
	}
	return src
}

// mergeCounts is merge (Merge when top) with weight 1 of what the summary
// reads: head, total and body counts, attributes and checksums, and the
// same of the inlinees; call targets and vtable types are left out.
// Overflowing counts saturate.
func (fs *FunctionSamples) mergeCounts(o *FunctionSamples, top bool) {
	switch {
	case fs.Checksum == 0:
		fs.Checksum = o.Checksum
	case fs.Checksum != o.Checksum && (top || o.Checksum != 0):
		return // Merge's and merge's hash mismatch
	}
	if fs.Attributes == 0 && fs.TotalSamples == 0 && len(fs.Body) == 0 && len(fs.Callsites) == 0 {
		fs.Attributes = o.Attributes
	}
	var ovf bool
	fs.addTotal(o.TotalSamples, 1, &ovf)
	fs.addHead(o.HeadSamples, 1, &ovf)
	j := 0
	for i := range o.Body {
		ob := &o.Body[i]
		for j < len(fs.Body) && fs.Body[j].Loc.Compare(ob.Loc) < 0 {
			j++
		}
		if j == len(fs.Body) || fs.Body[j].Loc != ob.Loc {
			fs.Body = slices.Insert(fs.Body, j, BodySample{Loc: ob.Loc})
		}
		fs.Body[j].Samples, _ = satMulAdd(fs.Body[j].Samples, ob.Samples, 1)
	}
	for _, c := range o.Callsites {
		fs.CalleeAt(c.Loc, c.Callee.Name).mergeCounts(c.Callee, false)
	}
}
