package profview

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
)

// InstrInput is one instrumented profile as llvm-profdata's readers give
// it: its records in the reader's order (a raw file's as stored, an
// indexed file's in on-disk order) and whether it is an IR-level profile.
type InstrInput struct {
	Name    string // as given on the command line, for the report
	Records []instrprof.FuncRecord
	IR      bool
}

// OverlapOptions are llvm-profdata overlap's options for instrumented
// profiles.
type OverlapOptions struct {
	// Function (--function) shows the function-level overlap of the
	// functions whose name contains it; ValueCutoff (--value-cutoff,
	// default: none) of those whose largest test counter reaches it.
	Function    string
	ValueCutoff uint64
	// CS (--cs) sums the context-sensitive records of IR profiles instead
	// of the others.
	CS bool
}

// countSum is CountSumOrPercent: sums (or shares) of edge and value counts.
type countSum struct {
	numEntries uint64
	countSum   float64
	values     [instrprof.NumValueKinds]float64
}

// overlapStats is OverlapStats at the program or function level.
type overlapStats struct {
	base, test, overlap, mismatch, unique countSum
	valid                                 bool
}

// accumulate is InstrProfRecord::accumulateCounts.
func (s *countSum) accumulate(r *instrprof.FuncRecord) {
	s.numEntries += uint64(len(r.Counts))
	var sum uint64
	for _, c := range r.Counts {
		sum += c
	}
	s.countSum += float64(sum)
	for k := range r.Values {
		var ks uint64
		for _, site := range r.Values[k] {
			for _, v := range site {
				ks += v.Count
			}
		}
		s.values[k] += float64(ks)
	}
}

// fileSum is InstrProfReader::accumulateCounts: the sums over the records
// of one kind (CS or not, for IR profiles), entries counting functions.
func fileSum(in *InstrInput, cs bool) countSum {
	var s countSum
	n := uint64(0)
	for i := range in.Records {
		r := &in.Records[i]
		if in.IR && (r.Hash>>60&1 != 0) != cs {
			continue
		}
		s.accumulate(r)
		n++
	}
	s.numEntries = n
	return s
}

// score is OverlapStats::score.
func score(a, b uint64, sumA, sumB float64) float64 {
	if sumA < 1 || sumB < 1 {
		return 0
	}
	return min(float64(a)/sumA, float64(b)/sumB)
}

// addShare adds a function's sums, as shares of the test profile's, to
// dst (addOneMismatch, addOneUnique).
func (s *overlapStats) addShare(dst *countSum, f *countSum) {
	dst.numEntries++
	dst.countSum += f.countSum / s.test.countSum
	for k := range dst.values {
		if s.test.values[k] >= 1 {
			dst.values[k] += f.values[k] / s.test.values[k]
		}
	}
}

// WriteInstrOverlap writes what llvm-profdata overlap (LLVM 22) prints
// for two instrumented profiles: the function-level overlap of the
// functions o selects, in the test profile's order, then the program
// level. Base records with the same name and hash are merged first, as
// llvm-profdata loads the base into its writer.
//
// When a profile's edge counts (of the kind o.CS selects) sum to 0, the
// report is one line saying so and compared is false. (llvm-profdata 22
// means to print that line but exits before flushing it: it prints
// nothing.)
func WriteInstrOverlap(out io.Writer, base, test *InstrInput, o OverlapOptions) (compared bool, err error) {
	w := bufio.NewWriter(out)
	p := overlapStats{base: fileSum(base, o.CS), test: fileSum(test, o.CS), valid: true}
	for _, z := range []struct {
		s    *countSum
		name string
	}{{&p.base, base.Name}, {&p.test, test.Name}} {
		if z.s.countSum < 1 {
			fmt.Fprintf(w, "Sum of edge counts for profile %s is 0.\n", z.name)
			return false, w.Flush()
		}
	}
	merged := instrprof.NewFuncProfile()
	for i := range base.Records {
		merged.Add(&base.Records[i], 1)
	}
	byName := map[string]map[uint64]*instrprof.FuncRecord{}
	for _, r := range merged.Records() {
		if byName[r.Name] == nil {
			byName[r.Name] = map[uint64]*instrprof.FuncRecord{}
		}
		byName[r.Name][r.Hash] = r
	}
	for i := range test.Records {
		t := &test.Records[i]
		var f overlapStats
		f.test.accumulate(t)
		hashes, ok := byName[t.Name]
		switch {
		case !ok:
			p.addShare(&p.unique, &f.test)
			continue
		case f.test.countSum < 1:
			p.overlap.numEntries++
			continue
		}
		b := hashes[t.Hash]
		if b == nil {
			// llvm-profdata's try_emplace leaves an empty record behind.
			hashes[t.Hash] = &instrprof.FuncRecord{Name: t.Name, Hash: t.Hash}
			p.addShare(&p.mismatch, &f.test)
			continue
		}
		cutoff := o.ValueCutoff
		if o.Function != "" && strings.Contains(t.Name, o.Function) {
			cutoff = 0
		}
		overlapRecord(b, t, &p, &f, cutoff)
		if f.valid {
			writeOverlap(w, &f, fmt.Sprintf("Function level:\n  Function: %s (Hash=%d)\n", t.Name, t.Hash), "edge counters")
		}
	}
	writeOverlap(w, &p, fmt.Sprintf("Profile overlap information for base_profile: %s and test_profile: %s\nProgram level:\n", base.Name, test.Name), "functions")
	return true, w.Flush()
}

// overlapRecord is InstrProfRecord::overlap of base record b with test
// record t.
func overlapRecord(b, t *instrprof.FuncRecord, p, f *overlapStats, cutoff uint64) {
	f.base.accumulate(b)
	mismatch := len(b.Counts) != len(t.Counts)
	for k := range b.Values {
		mismatch = mismatch || len(b.Values[k]) != len(t.Values[k])
	}
	if mismatch {
		p.addShare(&p.mismatch, &f.test)
		return
	}
	for k := range b.Values {
		for s := range b.Values[k] {
			bs, ts := sortedByValue(b.Values[k][s]), sortedByValue(t.Values[k][s])
			var sc, fsc float64
			for i, j := 0, 0; i < len(bs) && j < len(ts); {
				switch {
				case bs[i].Value == ts[j].Value:
					sc += score(bs[i].Count, ts[j].Count, p.base.values[k], p.test.values[k])
					fsc += score(bs[i].Count, ts[j].Count, f.base.values[k], f.test.values[k])
					i++
					j++
				case bs[i].Value < ts[j].Value:
					i++
				default:
					j++
				}
			}
			p.overlap.values[k] += sc
			f.overlap.values[k] += fsc
		}
	}
	var sc float64
	var maxCount uint64
	for i := range t.Counts {
		sc += score(b.Counts[i], t.Counts[i], p.base.countSum, p.test.countSum)
		maxCount = max(maxCount, t.Counts[i])
	}
	p.overlap.countSum += sc
	p.overlap.numEntries++
	if maxCount >= cutoff {
		var fsc float64
		for i := range t.Counts {
			fsc += score(b.Counts[i], t.Counts[i], f.base.countSum, f.test.countSum)
		}
		f.overlap.countSum = fsc
		f.overlap.numEntries = uint64(len(t.Counts))
		f.valid = true
	}
}

func sortedByValue(vs []instrprof.ValueData) []instrprof.ValueData {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b instrprof.ValueData) int {
		switch {
		case a.Value < b.Value:
			return -1
		case a.Value > b.Value:
			return 1
		}
		return 0
	})
	return out
}

// valueKindNames are OverlapStats::dump's names of the value kinds.
var valueKindNames = [instrprof.NumValueKinds]string{"IndirectCall", "MemOP", "VTable"}

// writeOverlap is OverlapStats::dump.
func writeOverlap(w *bufio.Writer, s *overlapStats, header, entries string) {
	w.WriteString(header)
	fmt.Fprintf(w, "  # of %s overlap: %d\n", entries, s.overlap.numEntries)
	if s.mismatch.numEntries > 0 {
		fmt.Fprintf(w, "  # of %s mismatch: %d\n", entries, s.mismatch.numEntries)
	}
	if s.unique.numEntries > 0 {
		fmt.Fprintf(w, "  # of %s only in test_profile: %d\n", entries, s.unique.numEntries)
	}
	fmt.Fprintf(w, "  Edge profile overlap: %.3f%%\n", s.overlap.countSum*100)
	if s.mismatch.numEntries > 0 {
		fmt.Fprintf(w, "  Mismatched count percentage (Edge): %.3f%%\n", s.mismatch.countSum*100)
	}
	if s.unique.numEntries > 0 {
		fmt.Fprintf(w, "  Percentage of Edge profile only in test_profile: %.3f%%\n", s.unique.countSum*100)
	}
	fmt.Fprintf(w, "  Edge profile base count sum: %.0f\n  Edge profile test count sum: %.0f\n", s.base.countSum, s.test.countSum)
	for k, name := range valueKindNames {
		if s.base.values[k] < 1 && s.test.values[k] < 1 {
			continue
		}
		fmt.Fprintf(w, "  %s profile overlap: %.3f%%\n", name, s.overlap.values[k]*100)
		if s.mismatch.numEntries > 0 {
			fmt.Fprintf(w, "  Mismatched count percentage (%s): %.3f%%\n", name, s.mismatch.values[k]*100)
		}
		if s.unique.numEntries > 0 {
			fmt.Fprintf(w, "  Percentage of %s profile only in test_profile: %.3f%%\n", name, s.unique.values[k]*100)
		}
		fmt.Fprintf(w, "  %s profile base count sum: %.0f\n  %s profile test count sum: %.0f\n", name, s.base.values[k], name, s.test.values[k])
	}
}
