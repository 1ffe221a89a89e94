package instrprof

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/stdheap"
)

// ShowOptions are the options of `llvm-profdata show` for instrumented
// profiles (showInstrProfile, llvm-profdata.cpp).
type ShowOptions struct {
	Release         llvmrelease.Release
	AllFunctions    bool   // --all-functions
	Function        string // --function: functions whose name contains it
	Counts          bool   // --counts
	ICTargets       bool   // --ic-targets
	MemOPSizes      bool   // --memop-sizes
	VTables         bool   // --show-vtables (LLVM 19+): the vtable value profiles
	DetailedSummary bool   // --detailed-summary
	BinaryIDs       bool   // --binary-ids
	TopN            int    // --topn
	ShowCS          bool   // --showcs: the context-sensitive records of an IR profile
	// Text is --text: the functions shown in llvm-profdata's text format
	// (writeRecordInText), nothing else.
	Text bool
	// Covered is --covered: the names of the functions with a nonzero
	// counter, nothing else.
	Covered bool
	// ValueCutoff is --value-cutoff: functions whose largest counter is
	// below it are neither shown nor in --topn, and counted.
	ValueCutoff uint64
	// OnlyListBelow is --list-below-cutoff: list only the functions below
	// the cutoff, with their largest counter and sum.
	OnlyListBelow bool
	// Cutoffs is --detailed-summary-cutoffs: the cutoffs (parts per
	// million) of the detailed summary, in place of the default ones.
	Cutoffs []uint64
	// ProfileVersion is --profile-version: print the reader's version
	// (a raw file's whole version field, an indexed file's index version).
	ProfileVersion bool
	// TemporalTraces is --temporal-profile-traces (LLVM 17+): the
	// temporal profiling traces, their functions by name.
	TemporalTraces bool
}

// ShowInput is what show reads from a profile: its records in the order
// the reader yields them (a raw file's data order, an indexed file's
// on-disk order), the variant flags, the binary ids and the names the
// indirect-call targets resolve to.
type ShowInput struct {
	Records   []FuncRecord
	Variant   uint64
	BinaryIDs [][]byte
	Names     []string // the symbol table: every function name the file has
	// Version is what the reader's getVersion returns: a raw file's
	// version field with its variant flags, an indexed file's index
	// version without them.
	Version uint64
	// Traces and TraceStreamSize are the temporal profiling traces (a raw
	// file's one trace, weight 1) and how many traces were seen.
	Traces          []TemporalTrace
	TraceStreamSize uint64
}

// ShowRawInput returns what show of the LLVM release reads from a raw
// profile: LLVM 16 only the binary ids of a file's last profile (see
// FuncProfile.LastProfileBinaryIDs); the names are the functions' and
// the vtables' (raw v10), which --text names value targets by.
func ShowRawInput(r *RawProfile, release llvmrelease.Release) ShowInput {
	ids := r.BinaryIDs
	if !release.KeepsAllRawBinaryIDs() {
		ids = ids[r.LastIDs:]
	}
	names := r.Names
	if len(r.VTableNames) > 0 {
		names = append(slices.Clip(names), r.VTableNames...)
	}
	in := ShowInput{Records: r.Records, Variant: r.Variant, BinaryIDs: ids, Names: names, Version: r.Variant | uint64(r.Version)}
	if len(r.Trace) > 0 {
		in.Traces, in.TraceStreamSize = []TemporalTrace{{Weight: 1, NameRefs: r.Trace}}, 1
	}
	return in
}

// ShowIndexedInput returns what show reads from an indexed profile read by
// ReadFuncs.
func ShowIndexedInput(f *File) ShowInput {
	in := ShowInput{Records: f.Funcs, Variant: f.Header.Version, BinaryIDs: f.BinaryIDs,
		Version: f.Header.Version & 0xffffffff, Traces: f.Traces, TraceStreamSize: f.TraceStreamSize}
	for i, r := range f.Funcs {
		if i == 0 || f.Funcs[i-1].Name != r.Name {
			in.Names = append(in.Names, r.Name)
		}
	}
	return in
}

// valueStats is ValueSitesStats.
type valueStats struct {
	sites, sitesWithValues, values uint64
	histogram                      []uint64
}

// Show writes what llvm-profdata show of release o.Release prints for
// the profile.
func Show(out io.Writer, in ShowInput, o ShowOptions) error {
	w := bufio.NewWriter(out)
	isIR := in.Variant&VariantIRProf != 0
	names := make(map[uint64]string, len(in.Names))
	for _, n := range in.Names {
		names[llvmname.GUID(n)] = n
	}
	var sb summaryBuilder
	var stats [NumValueKinds]valueStats
	shown, below := 0, uint64(0)
	top := newHotHeap(o.Release.ShowSummary20())
	if !o.Text && o.OnlyListBelow {
		fmt.Fprintf(w, "The list of functions with the maximum counter less than %d:\n", o.ValueCutoff)
	}
	if o.Text && isIR {
		w.WriteString(":ir\n")
	}
	for i := range in.Records {
		r := &in.Records[i]
		if isIR && (r.Hash>>60&1 != 0) != o.ShowCS {
			continue
		}
		show := o.AllFunctions || (o.Function != "" && strings.Contains(r.Name, o.Function))
		if show && o.Text {
			writeRecordText(w, r, names)
			continue
		}
		if len(r.Counts) == 0 {
			continue
		}
		sb.addRecord(r.Counts)
		if o.Covered {
			if slices.ContainsFunc(r.Counts, func(c uint64) bool { return c != 0 }) {
				w.WriteString(r.Name + "\n")
			}
			continue
		}
		if pk := pseudoKind(r.Counts); pk != 0 {
			if show {
				if shown == 0 {
					w.WriteString("Counters:\n")
				}
				shown++
				kind := "<PseudoHot>"
				if pk != ^uint64(0) {
					kind = "<PseudoWarm>"
				}
				fmt.Fprintf(w, "  %s:\n    Hash: 0x%016x\n    Counters: %d    %s\n", r.Name, r.Hash, len(r.Counts), kind)
			}
			continue
		}
		var fmax, fsum uint64
		for _, c := range r.Counts {
			fmax = max(fmax, c)
			fsum += c
		}
		if fmax < o.ValueCutoff {
			below++
			if o.OnlyListBelow {
				fmt.Fprintf(w, "  %s: (Max = %d Sum = %d)\n", r.Name, fmax, fsum)
			}
			continue
		} else if o.OnlyListBelow {
			continue
		}
		if o.TopN > 0 {
			top.offer(r.Name, fmax, o.TopN)
		}
		if !show {
			continue
		}
		if shown == 0 {
			w.WriteString("Counters:\n")
		}
		shown++
		fmt.Fprintf(w, "  %s:\n    Hash: 0x%016x\n    Counters: %d\n", r.Name, r.Hash, len(r.Counts))
		if !isIR {
			fmt.Fprintf(w, "    Function count: %d\n", r.Counts[0])
		}
		if o.ICTargets {
			fmt.Fprintf(w, "    Indirect Call Site Count: %d\n", len(r.Values[IPVKIndirectCallTarget]))
		}
		if o.VTables {
			fmt.Fprintf(w, "    Number of instrumented vtables: %d\n", len(r.Values[IPVKVTableTarget]))
		}
		nmem := len(r.Values[IPVKMemOPSize])
		if o.MemOPSizes && nmem > 0 {
			fmt.Fprintf(w, "    Number of Memory Intrinsics Calls: %d\n", nmem)
		}
		if o.Counts {
			start := 1
			if isIR {
				start = 0
			}
			w.WriteString("    Block counts: [")
			for i := start; i < len(r.Counts); i++ {
				if i > start {
					w.WriteString(", ")
				}
				fmt.Fprint(w, r.Counts[i])
			}
			w.WriteString("]\n")
		}
		if o.ICTargets {
			w.WriteString("    Indirect Target Results:\n")
			showSites(w, r.Values[IPVKIndirectCallTarget], &stats[IPVKIndirectCallTarget], names)
		}
		if o.VTables {
			w.WriteString("    VTable Results:\n")
			showSites(w, r.Values[IPVKVTableTarget], &stats[IPVKVTableTarget], names)
		}
		if o.MemOPSizes && nmem > 0 {
			w.WriteString("    Memory Intrinsic Size Results:\n")
			showSites(w, r.Values[IPVKMemOPSize], &stats[IPVKMemOPSize], nil)
		}
	}
	if o.Text || o.Covered {
		return w.Flush()
	}
	cutoffs := summaryCutoffs[:]
	if len(o.Cutoffs) > 0 {
		cutoffs = slices.Sorted(slices.Values(o.Cutoffs))
	}
	fields, entries := sb.resultAt(cutoffs)
	if isIR {
		fmt.Fprintf(w, "Instrumentation level: IR  entry_first = %d", in.Variant>>58&1)
		if o.Release.HasInstrumentLoopEntries() {
			fmt.Fprintf(w, "  instrument_loop_entries = %d", in.Variant>>55&1)
		}
		w.WriteString("\n")
	} else {
		w.WriteString("Instrumentation level: Front-end\n")
	}
	if o.AllFunctions || o.Function != "" {
		fmt.Fprintf(w, "Functions shown: %d\n", shown)
	}
	fmt.Fprintf(w, "Total functions: %d\n", fields[0])
	cutoffCounts := func() {
		if o.ValueCutoff > 0 {
			fmt.Fprintf(w, "Number of functions with maximum count (< %d): %d\n", o.ValueCutoff, below)
			fmt.Fprintf(w, "Number of functions with maximum count (>= %d): %d\n", o.ValueCutoff, fields[0]-below)
		}
	}
	if !o.Release.ShowSummary20() {
		cutoffCounts() // before 20 right after the function count
	}
	fmt.Fprintf(w, "Maximum function count: %d\n", fields[2])
	fmt.Fprintf(w, "Maximum internal block count: %d\n", fields[4])
	totals := func() {
		fmt.Fprintf(w, "Total number of blocks: %d\n", fields[1])
		fmt.Fprintf(w, "Total count: %d\n", fields[5])
	}
	if o.Release.ShowSummary20() {
		totals()
		cutoffCounts()
	}
	if o.TopN > 0 {
		fmt.Fprintf(w, "Top %d functions with the largest internal block counts: \n", o.TopN)
		for _, h := range top.drain() {
			fmt.Fprintf(w, "  %s, max count = %d\n", h.name, h.max)
		}
	}
	if shown > 0 && o.ICTargets {
		w.WriteString("Statistics for indirect call sites profile:\n")
		showStats(w, &stats[IPVKIndirectCallTarget])
	}
	if shown > 0 && o.VTables {
		w.WriteString("Statistics for vtable profile:\n")
		showStats(w, &stats[IPVKVTableTarget])
	}
	if shown > 0 && o.MemOPSizes {
		w.WriteString("Statistics for memory intrinsic calls sizes profile:\n")
		showStats(w, &stats[IPVKMemOPSize])
	}
	if o.DetailedSummary {
		if !o.Release.ShowSummary20() {
			totals()
		}
		w.WriteString("Detailed summary:\n")
		for _, e := range entries {
			pct := fmt.Sprintf("%.6g", float64(float32(e.Cutoff)/1e6*100))
			if o.Release.ShowSummary20() {
				fmt.Fprintf(w, "%d blocks (%.2f%%) with count >= %d account for %s%% of the total counts.\n",
					e.NumCounts, share(e.NumCounts, fields[1]), e.MinCount, pct)
			} else {
				fmt.Fprintf(w, "%d blocks with count >= %d account for %s percentage of the total counts.\n", e.NumCounts, e.MinCount, pct)
			}
		}
	}
	if o.BinaryIDs {
		w.WriteString("Binary IDs: \n")
		for _, id := range in.BinaryIDs {
			w.WriteString(hex.EncodeToString(id) + "\n")
		}
	}
	if o.ProfileVersion {
		fmt.Fprintf(w, "Profile version: %d\n", in.Version)
	}
	if o.TemporalTraces {
		fmt.Fprintf(w, "Temporal Profile Traces (samples=%d seen=%d):\n", len(in.Traces), in.TraceStreamSize)
		for i, t := range in.Traces {
			fmt.Fprintf(w, "  Temporal Profile Trace %d (weight=%d count=%d):\n", i, t.Weight, len(t.NameRefs))
			for _, ref := range t.NameRefs {
				w.WriteString("    " + names[ref] + "\n")
			}
		}
	}
	return w.Flush()
}

// valueKindNames are InstrProfData.inc's value kinds, as --text names
// them.
var valueKindNames = [NumValueKinds]string{"IPVK_IndirectCallTarget", "IPVK_MemOPSize", "IPVK_VTableTarget"}

// writeRecordText is InstrProfWriter::writeRecordInText: the record's
// name, hash, counters, bitmap bytes and value sites, indirect-call and
// vtable targets by name ("** External Symbol **" for a NameRef the
// profile does not name).
func writeRecordText(w *bufio.Writer, r *FuncRecord, names map[uint64]string) {
	fmt.Fprintf(w, "%s\n# Func Hash:\n%d\n# Num Counters:\n%d\n# Counter Values:\n", r.Name, r.Hash, len(r.Counts))
	for _, c := range r.Counts {
		fmt.Fprintf(w, "%d\n", c)
	}
	if len(r.Bitmap) > 0 {
		fmt.Fprintf(w, "# Num Bitmap Bytes:\n$%d\n# Bitmap Byte Values:\n", len(r.Bitmap))
		for _, b := range r.Bitmap {
			fmt.Fprintf(w, "0x%x\n", b)
		}
		w.WriteString("\n")
	}
	kinds := 0
	for k := range r.Values {
		if len(r.Values[k]) > 0 {
			kinds++
		}
	}
	if kinds == 0 {
		w.WriteString("\n")
		return
	}
	fmt.Fprintf(w, "# Num Value Kinds:\n%d\n", kinds)
	for k, sites := range r.Values {
		if len(sites) == 0 {
			continue
		}
		fmt.Fprintf(w, "# ValueKind = %s:\n%d\n# NumValueSites:\n%d\n", valueKindNames[k], k, len(sites))
		for _, vs := range sites {
			fmt.Fprintf(w, "%d\n", len(vs))
			for _, v := range vs {
				if k == IPVKMemOPSize {
					fmt.Fprintf(w, "%d:%d\n", v.Value, v.Count)
					continue
				}
				name, ok := names[v.Value]
				if !ok {
					name = "** External Symbol **"
				}
				fmt.Fprintf(w, "%s:%d\n", name, v.Count)
			}
		}
	}
	w.WriteString("\n")
}

// showSites is traverseAllValueSites: every value of every site, with its
// share of the site's total.
func showSites(w *bufio.Writer, sites [][]ValueData, st *valueStats, names map[uint64]string) {
	st.sites += uint64(len(sites))
	for s, vs := range sites {
		st.values += uint64(len(vs))
		if n := len(vs); n > 0 {
			st.sitesWithValues++
			for len(st.histogram) < n {
				st.histogram = append(st.histogram, 0)
			}
			st.histogram[n-1]++
		}
		var sum uint64
		for _, v := range vs {
			sum += v.Count
		}
		if sum == 0 {
			sum = 1
		}
		for _, v := range vs {
			val := fmt.Sprintf("%4d", v.Value)
			if names != nil {
				val = names[v.Value]
			}
			fmt.Fprintf(w, "\t[ %2d, %s, %10d ] (%.2f%%)\n", s, val, int64(v.Count), float64(v.Count)*100/float64(sum))
		}
	}
}

// showStats is showValueSitesStats.
func showStats(w *bufio.Writer, st *valueStats) {
	fmt.Fprintf(w, "  Total number of sites: %d\n", st.sites)
	fmt.Fprintf(w, "  Total number of sites with values: %d\n", st.sitesWithValues)
	fmt.Fprintf(w, "  Total number of profiled values: %d\n", st.values)
	w.WriteString("  Value sites histogram:\n\tNumTargets, SiteCount\n")
	for i, n := range st.histogram {
		if n > 0 {
			fmt.Fprintf(w, "\t%d, %d\n", i+1, n)
		}
	}
}

// hotHeap is show's std::priority_queue of (name, max count) with the
// smallest count on top, kept at TopN entries, in libstdc++'s heap order so
// that ties come out in LLVM's order. LLVM 22 (20 and 21 unverified) lists
// the functions as a stable sort by count, descending, would: of equal
// counts the first seen first (the queue's comparator then also compares
// the order seen).
type hotHeap struct {
	q    *stdheap.Queue[hotFunc]
	seen int
}

type hotFunc struct {
	name string
	max  uint64
	seq  int // order seen
}

func newHotHeap(stable bool) *hotHeap {
	// a is "less" than b when its count is greater: the top is the
	// smallest count.
	return &hotHeap{q: stdheap.New(func(a, b hotFunc) bool {
		return a.max > b.max || stable && a.max == b.max && a.seq < b.seq
	})}
}

func (h *hotHeap) offer(name string, m uint64, n int) {
	h.seen++
	f := hotFunc{name, m, h.seen}
	if h.q.Len() == n {
		if h.q.Top().max < m {
			h.q.Pop()
			h.q.Push(f)
		}
		return
	}
	h.q.Push(f)
}

// drain empties the queue and returns its entries largest count first, as
// show prints them.
func (h *hotHeap) drain() []hotFunc {
	var out []hotFunc
	for h.q.Len() > 0 {
		out = append(out, h.q.Pop())
	}
	slices.Reverse(out)
	return out
}

// share is n as a percentage of total, 0 when total is.
func share(n, total uint64) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) * 100 / float64(total)
}

// VTableNames decodes an indexed profile's vtable-name section (File.VTableNames,
// written by llvm-profdata merge --keep-vtable-symbols), the names show
// prints vtable values by; file names the profile in errors.
func VTableNames(file string, blob []byte) ([]string, error) {
	if len(blob) == 0 {
		return nil, nil
	}
	return readNames(file, "vtable names", blob, 0)
}
