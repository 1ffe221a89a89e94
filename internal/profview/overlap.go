package profview

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleOverlapOptions are the options of `llvm-profdata overlap --sample`.
type SampleOverlapOptions struct {
	// LLVM is the release whose reader gives the summary and map order
	// (0 means 22).
	Release llvmrelease.Release
	// ValueCutoff (--value-cutoff; LLVM's default is the largest count,
	// NoValueCutoff), SimilarityCutoff (--similarity-cutoff, parts per
	// million) and Function (--function) choose the functions of the
	// function-level details.
	ValueCutoff, SimilarityCutoff uint64
	Function                      string
}

// NoValueCutoff is llvm-profdata overlap's default --value-cutoff (-1 as
// an unsigned count): no function's largest count reaches it.
const NoValueCutoff = math.MaxUint64

// overlapEpsilon rounds the sums of doubles as llvm-profdata does (its
// results show 2 to 3 decimals of a percentage).
const overlapEpsilon = 0.000005

// SampleOverlapStats are the counts of one unit compared (the program, a
// function, the hot functions or hot blocks): LLVM's SampleOverlapStats.
type SampleOverlapStats struct {
	// OverlapCount units are in both profiles; OverlapSample is the sum
	// over units of the smaller of their two counts.
	OverlapCount, OverlapSample uint64
	// Units (and their samples) only in base or test.
	BaseUniqueCount, BaseUniqueSample uint64
	TestUniqueCount, TestUniqueSample uint64
	// Units and samples of each profile.
	BaseCount, BaseSample, TestCount, TestSample uint64
	// Units in at least one profile; UnionSample sums the larger count.
	UnionCount, UnionSample uint64
	// Similarity is the weighted similarity, 0 to 1.
	Similarity float64
	// BaseWeight and TestWeight are a function's share of its profile's
	// samples.
	BaseWeight, TestWeight float64
}

// SampleFuncOverlap is the overlap of one top-level profile (a function,
// or a calling context of a CS profile) of either profile.
type SampleFuncOverlap struct {
	SampleOverlapStats
	// Name is the context as LLVM prints it (mangled).
	Name string
	// Base and Test are the profiles; one of them is nil when the
	// function is in one profile only.
	Base, Test *sampleprof.FunctionSamples
	// BaseMax and TestMax are the largest line counts, inlinees included.
	BaseMax, TestMax uint64
}

// SampleOverlap is what `llvm-profdata overlap --sample` computes for a
// base and a test profile.
type SampleOverlap struct {
	BaseName, TestName string
	// ProbeBased says both profiles are probe-based (locations are
	// probe ids, not line offsets).
	ProbeBased bool
	// LLVM is the release whose text WriteText prints.
	Release llvmrelease.Release
	// Program is the program level; HotFunc and HotBlock the hot
	// functions and blocks (a count at least the profile's hot threshold,
	// the summary's minimum count at the 990000 cutoff).
	Program, HotFunc, HotBlock SampleOverlapStats
	BaseHotThreshold           uint64
	TestHotThreshold           uint64
	// Funcs are every function of either profile: test's in the order
	// LLVM's map iterates them, then those only in base.
	Funcs []SampleFuncOverlap
	// Details are the indices in Funcs of the function-level details
	// (chosen by the options), in the order LLVM prints them.
	Details []int
}

// funcSampleStats is getFuncSampleStats: the sum and largest of the line
// counts of a function with its inlinees, and how many reach hot.
type funcSampleStats struct {
	sum, max, hotBlocks uint64
}

func sampleStats(fs *sampleprof.FunctionSamples, hot uint64, st *funcSampleStats) {
	for i := range fs.Body {
		n := fs.Body[i].Samples
		st.sum += n
		st.max = max(st.max, n)
		if n >= hot {
			st.hotBlocks++
		}
	}
	for _, c := range fs.Callsites {
		sampleStats(c.Callee, hot, st)
	}
}

// overlapKey is the SampleContext of a top-level profile as LLVM's maps
// compare it: the context of a CS profile, else the name (a hash and a
// name never equal).
func overlapKey(fs *sampleprof.FunctionSamples) string {
	if fs.Context != nil {
		return "c" + fs.ContextString()
	}
	if fs.Name.IsHash() {
		return "h" + fs.Name.String()
	}
	return "n" + fs.Name.String()
}

// ZeroSampleError is the case where a profile has no samples:
// llvm-profdata prints Message for each such profile and nothing else.
type ZeroSampleError struct{ Message string }

func (e *ZeroSampleError) Error() string { return strings.TrimSuffix(e.Message, "\n") }

// ComputeSampleOverlap computes the overlap of base and test as
// llvm-profdata's SampleOverlapAggregator does, every sum of doubles in
// LLVM's order so that the printed digits are LLVM's. Profiles of which
// one is probe-based (or CS) and the other not are refused with LLVM's
// message; a profile of no samples gives a *ZeroSampleError.
func ComputeSampleOverlap(base, test *sampleprof.Profile, baseName, testName string, o SampleOverlapOptions) (*SampleOverlap, error) {
	if base.ProbeBased != test.ProbeBased {
		return nil, errors.New("cannot compare probe-based profile with non-probe-based profile")
	}
	if base.CS != test.CS {
		return nil, errors.New("cannot compare CS profile with non-CS profile")
	}
	ov := &SampleOverlap{BaseName: baseName, TestName: testName, Release: o.Release, ProbeBased: base.ProbeBased,
		BaseHotThreshold: base.ReaderSummary(o.Release).CountThreshold(sampleprof.HotCutoff),
		TestHotThreshold: test.ReaderSummary(o.Release).CountThreshold(sampleprof.HotCutoff)}
	p := &ov.Program
	stats := func(prof *sampleprof.Profile, hot uint64, count, sum *uint64) map[string]funcSampleStats {
		m := map[string]funcSampleStats{}
		for _, fs := range prof.ReaderOrder(o.Release) {
			*count++
			var st funcSampleStats
			sampleStats(fs, hot, &st)
			*sum += st.sum
			if _, ok := m[overlapKey(fs)]; !ok {
				m[overlapKey(fs)] = st
			}
		}
		return m
	}
	baseStats := stats(base, ov.BaseHotThreshold, &p.BaseCount, &p.BaseSample)
	testStats := stats(test, ov.TestHotThreshold, &p.TestCount, &p.TestSample)
	var zero string
	if p.BaseSample == 0 {
		zero += "Sum of sample counts for profile " + baseName + " is 0.\n"
	}
	if p.TestSample == 0 {
		zero += "Sum of sample counts for profile " + testName + " is 0.\n"
	}
	if zero != "" {
		return nil, &ZeroSampleError{zero}
	}

	baseFuncs := map[string]*sampleprof.FunctionSamples{}
	var baseOrder []*sampleprof.FunctionSamples
	for _, fs := range base.ReaderOrder(o.Release) {
		if _, ok := baseFuncs[overlapKey(fs)]; !ok {
			baseFuncs[overlapKey(fs)] = fs
			baseOrder = append(baseOrder, fs)
		}
	}
	p.UnionCount = uint64(len(baseFuncs))
	lowSimilarity := float64(o.SimilarityCutoff) / 1000000
	type dump struct {
		weight float64
		idx    int
	}
	var dumps []dump
	for _, tf := range test.ReaderOrder(o.Release) {
		key := overlapKey(tf)
		tst := testStats[key]
		f := SampleFuncOverlap{Name: tf.ContextString(), Test: tf, TestMax: tst.max}
		f.TestSample = tst.sum
		bf, matched := baseFuncs[key]
		if !matched {
			p.TestUniqueCount++
			p.TestUniqueSample += tst.sum
			f.TestUniqueSample = tst.sum
			ov.updateHotBlocks(0, tst.sum, tst.hotBlocks)
			p.Similarity += ov.weightByImportance(ov.funcSimilarity(0, 0, tst.sum), 0, tst.sum)
			p.UnionCount++
			p.UnionSample += tst.sum
		} else {
			p.OverlapCount++
			bst := baseStats[key]
			f.Base, f.BaseMax, f.BaseSample = bf, bst.max, bst.sum
			internal := ov.internalOverlap(bf, tf, &f.SampleOverlapStats)
			if math.Abs(internal-0) < overlapEpsilon {
				internal = 0
			}
			f.Similarity = ov.funcSimilarity(internal, f.BaseSample, f.TestSample)
			p.Similarity += ov.weightByImportance(f.Similarity, f.BaseSample, f.TestSample)
			p.OverlapSample += f.OverlapSample
			p.UnionSample += f.UnionSample
			p.BaseUniqueSample += f.BaseUniqueSample
			p.TestUniqueSample += f.TestUniqueSample
			delete(baseFuncs, key)
		}
		if tst.max >= o.ValueCutoff || (matched && f.Similarity < lowSimilarity) ||
			(matched && o.Function != "" && strings.Contains(bf.ContextString(), o.Function)) {
			f.BaseWeight = float64(f.BaseSample) / float64(p.BaseSample)
			f.TestWeight = float64(f.TestSample) / float64(p.TestSample)
			dumps = append(dumps, dump{f.BaseWeight, len(ov.Funcs)})
		}
		ov.Funcs = append(ov.Funcs, f)
	}
	for _, bf := range baseOrder {
		key := overlapKey(bf)
		if baseFuncs[key] == nil {
			continue
		}
		bst := baseStats[key]
		p.BaseUniqueCount++
		p.BaseUniqueSample += bst.sum
		ov.updateHotBlocks(bst.sum, 0, bst.hotBlocks)
		p.Similarity += ov.weightByImportance(ov.funcSimilarity(0, bst.sum, 0), bst.sum, 0)
		p.UnionSample += bst.sum
		f := SampleFuncOverlap{Name: bf.ContextString(), Base: bf, BaseMax: bst.max}
		f.BaseSample, f.BaseUniqueSample = bst.sum, bst.sum
		f.BaseWeight = float64(bst.sum) / float64(p.BaseSample)
		ov.Funcs = append(ov.Funcs, f)
	}
	if math.Abs(p.Similarity-1) < overlapEpsilon {
		p.Similarity = 1
	}
	// A std::multimap by base weight, largest first: equal weights keep
	// the order they were inserted in.
	slices.SortStableFunc(dumps, func(x, y dump) int { return cmp.Compare(y.weight, x.weight) })
	for _, d := range dumps {
		ov.Details = append(ov.Details, d.idx)
	}
	ov.hotFuncs(baseStats, testStats)
	return ov, nil
}

// hotFuncs is computeHotFuncOverlap: a function is hot when its largest
// count reaches its profile's hot threshold.
func (ov *SampleOverlap) hotFuncs(baseStats, testStats map[string]funcSampleStats) {
	h := &ov.HotFunc
	testHot := map[string]bool{}
	for k, st := range testStats {
		if st.max >= ov.TestHotThreshold {
			testHot[k] = true
		}
	}
	h.TestCount = uint64(len(testHot))
	h.UnionCount = h.TestCount
	for k, st := range baseStats {
		if st.max < ov.BaseHotThreshold {
			continue
		}
		h.BaseCount++
		if testHot[k] {
			h.OverlapCount++
		} else {
			h.UnionCount++
		}
	}
}

func (ov *SampleOverlap) updateHotBlocks(baseSample, testSample, hotBlocks uint64) {
	baseHot, testHot := baseSample >= ov.BaseHotThreshold, testSample >= ov.TestHotThreshold
	if !baseHot && !testHot {
		return
	}
	h := &ov.HotBlock
	h.UnionCount += hotBlocks
	if baseHot {
		h.BaseCount += hotBlocks
	}
	if testHot {
		h.TestCount += hotBlocks
	}
	if baseHot && testHot {
		h.OverlapCount += hotBlocks
	}
}

// blockSimilarity is 1 - |BB/SB - BT/ST| for a line counted BB and BT
// in functions of SB and ST samples.
func blockSimilarity(baseSample, testSample uint64, f *SampleOverlapStats) float64 {
	var baseFrac, testFrac float64
	if f.BaseSample > 0 {
		baseFrac = float64(baseSample) / float64(f.BaseSample)
	}
	if f.TestSample > 0 {
		testFrac = float64(testSample) / float64(f.TestSample)
	}
	return 1.0 - math.Abs(baseFrac-testFrac)
}

type matchStatus int

const (
	matchBoth matchStatus = iota
	baseOnly
	testOnly
)

// updateFunc is updateOverlapStatsForFunction.
func (ov *SampleOverlap) updateFunc(baseSample, testSample, hotBlocks uint64, f *SampleOverlapStats, diff *float64, st matchStatus) {
	switch st {
	case baseOnly:
		testSample = 0
		f.BaseUniqueSample += baseSample
	case testOnly:
		baseSample = 0
		f.TestUniqueSample += testSample
	default:
		f.OverlapCount++
	}
	f.UnionSample += max(baseSample, testSample)
	f.OverlapSample += min(baseSample, testSample)
	*diff += 1.0 - blockSimilarity(baseSample, testSample, f)
	ov.updateHotBlocks(baseSample, testSample, hotBlocks)
}

// unmatchedCallee is updateForUnmatchedCallee.
func (ov *SampleOverlap) unmatchedCallee(fs *sampleprof.FunctionSamples, f *SampleOverlapStats, diff *float64, st matchStatus) {
	var s funcSampleStats
	if st == baseOnly {
		sampleStats(fs, ov.BaseHotThreshold, &s)
		ov.updateFunc(s.sum, 0, s.hotBlocks, f, diff, st)
	} else {
		sampleStats(fs, ov.TestHotThreshold, &s)
		ov.updateFunc(0, s.sum, s.hotBlocks, f, diff, st)
	}
}

// mergeStep walks two sorted sequences of lengths n and m as LLVM's
// MatchStep does: cmp(i, j) orders the i-th of the first and the j-th of
// the second; visit gets each step's indices and status.
func mergeStep(n, m int, cmp func(i, j int) int, visit func(i, j int, st matchStatus)) {
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && (j == m || cmp(i, j) < 0):
			visit(i, j, baseOnly)
			i++
		case j < m && (i == n || cmp(i, j) > 0):
			visit(i, j, testOnly)
			j++
		default:
			visit(i, j, matchBoth)
			i++
			j++
		}
	}
}

// callsiteGroups splits callsites into runs of one location.
func callsiteGroups(cs []sampleprof.Callsite) [][]sampleprof.Callsite {
	var out [][]sampleprof.Callsite
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].Loc == cs[i].Loc {
			j++
		}
		out = append(out, cs[i:j])
		i = j
	}
	return out
}

// internalOverlap is computeSampleFunctionInternalOverlap.
func (ov *SampleOverlap) internalOverlap(b, t *sampleprof.FunctionSamples, f *SampleOverlapStats) float64 {
	var diff float64
	mergeStep(len(b.Body), len(t.Body), func(i, j int) int { return b.Body[i].Loc.Compare(t.Body[j].Loc) },
		func(i, j int, st matchStatus) {
			var bs, ts uint64
			if i < len(b.Body) {
				bs = b.Body[i].Samples
			}
			if j < len(t.Body) {
				ts = t.Body[j].Samples
			}
			ov.updateFunc(bs, ts, 1, f, &diff, st)
		})
	bg, tg := callsiteGroups(b.Callsites), callsiteGroups(t.Callsites)
	mergeStep(len(bg), len(tg), func(i, j int) int { return bg[i][0].Loc.Compare(tg[j][0].Loc) },
		func(i, j int, st matchStatus) {
			switch st {
			case baseOnly:
				for _, c := range bg[i] {
					ov.unmatchedCallee(c.Callee, f, &diff, st)
				}
			case testOnly:
				for _, c := range tg[j] {
					ov.unmatchedCallee(c.Callee, f, &diff, st)
				}
			default:
				bc, tc := bg[i], tg[j]
				mergeStep(len(bc), len(tc), func(x, y int) int { return bc[x].Callee.Name.Compare(tc[y].Callee.Name) },
					func(x, y int, st matchStatus) {
						switch st {
						case baseOnly:
							ov.unmatchedCallee(bc[x].Callee, f, &diff, st)
						case testOnly:
							ov.unmatchedCallee(tc[y].Callee, f, &diff, st)
						default:
							diff += 2.0 - 2*ov.internalOverlap(bc[x].Callee, tc[y].Callee, f)
						}
					})
			}
		})
	return (2.0 - diff) / 2
}

// funcSimilarity is weightForFuncSimilarity.
func (ov *SampleOverlap) funcSimilarity(internal float64, baseSample, testSample uint64) float64 {
	baseFrac := float64(baseSample) / float64(ov.Program.BaseSample)
	testFrac := float64(testSample) / float64(ov.Program.TestSample)
	return internal * (1 - math.Abs(baseFrac-testFrac))
}

// weightByImportance weighs a function's similarity by its mean share.
func (ov *SampleOverlap) weightByImportance(sim float64, baseSample, testSample uint64) float64 {
	baseFrac := float64(baseSample) / float64(ov.Program.BaseSample) / 2.0
	testFrac := float64(testSample) / float64(ov.Program.TestSample) / 2.0
	return sim * (baseFrac + testFrac)
}

// pct formats x as LLVM's format("%.<prec>f%%", x*100) does, a NaN as
// glibc prints x86's default NaN.
func pct(x float64, prec int) string {
	if math.IsNaN(x) {
		return "-nan%"
	}
	return strconv.FormatFloat(x*100, 'f', prec, 64) + "%"
}

func ratio(a, b uint64) float64 { return float64(a) / float64(b) }

// WriteText writes what `llvm-profdata overlap --sample` of release
// ov.Release prints.
func (ov *SampleOverlap) WriteText(out io.Writer) error {
	w := bufio.NewWriter(out)
	p := &ov.Program
	information := "information"
	if !ov.Release.OrDefault().OverlapSpellsInformation() {
		information = "infomation" // sic, until LLVM 21
	}
	fmt.Fprintf(w, "Profile overlap %s for base_profile: %s and test_profile: %s\nProgram level:\n", information, ov.BaseName, ov.TestName)
	fmt.Fprintf(w, "  Whole program profile similarity: %s\n", pct(p.Similarity, 3))
	fmt.Fprintf(w, "  Whole program sample overlap: %s\n", pct(ratio(p.OverlapSample, p.UnionSample), 3))
	fmt.Fprintf(w, "    percentage of samples unique in base profile: %s\n", pct(ratio(p.BaseUniqueSample, p.BaseSample), 3))
	fmt.Fprintf(w, "    percentage of samples unique in test profile: %s\n", pct(ratio(p.TestUniqueSample, p.TestSample), 3))
	fmt.Fprintf(w, "    total samples in base profile: %d\n    total samples in test profile: %d\n", p.BaseSample, p.TestSample)
	fmt.Fprintf(w, "  Function overlap: %s\n", pct(ratio(p.OverlapCount, p.UnionCount), 3))
	fmt.Fprintf(w, "    overlap functions: %d\n    functions unique in base profile: %d\n    functions unique in test profile: %d\n",
		p.OverlapCount, p.BaseUniqueCount, p.TestUniqueCount)
	for _, h := range []struct {
		what string
		s    *SampleOverlapStats
	}{{"function", &ov.HotFunc}, {"block", &ov.HotBlock}} {
		fmt.Fprintf(w, "  Hot-%s overlap: %s\n", h.what, pct(ratio(h.s.OverlapCount, h.s.UnionCount), 3))
		fmt.Fprintf(w, "    overlap hot %ss: %d\n", h.what, h.s.OverlapCount)
		fmt.Fprintf(w, "    hot %ss unique in base profile: %d\n", h.what, h.s.BaseCount-h.s.OverlapCount)
		fmt.Fprintf(w, "    hot %ss unique in test profile: %d\n", h.what, h.s.TestCount-h.s.OverlapCount)
	}
	if len(ov.Details) > 0 {
		w.WriteString("Function-level details:\n")
		// formatted_raw_ostream's PadToColumn: to the column, at least
		// one space.
		cols := []int{15, 30, 43, 53, 67, 81, 96, 111}
		row := func(cells ...string) {
			col := 0
			for k, c := range cells {
				if k > 0 {
					n := max(cols[k-1]-col, 1)
					w.WriteString(strings.Repeat(" ", n))
					col += n
				}
				w.WriteString(c)
				col += len(c)
			}
			w.WriteString("\n")
		}
		row("Base weight", "Test weight", "Similarity", "Overlap", "Base unique", "Test unique", "Base samples", "Test samples", "Function name")
		for _, i := range ov.Details {
			f := &ov.Funcs[i]
			row(pct(f.BaseWeight, 2), pct(f.TestWeight, 2), pct(f.Similarity, 2),
				pct(fracOf(f.OverlapSample, f.UnionSample), 2), pct(fracOf(f.BaseUniqueSample, f.BaseSample), 2),
				pct(fracOf(f.TestUniqueSample, f.TestSample), 2), strconv.FormatUint(f.BaseSample, 10),
				strconv.FormatUint(f.TestSample, 10), f.Name)
		}
	}
	return w.Flush()
}
