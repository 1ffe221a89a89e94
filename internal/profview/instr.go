package profview

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// PGOLinkageName splits an instrumented profile's function name (its PGO
// name, "file;linkage" for functions of internal linkage) into the
// linkage name and the file ("" for external functions).
func PGOLinkageName(pgo string) (linkage, file string) {
	if f, l, ok := strings.Cut(pgo, ";"); ok && l != "" {
		return l, f
	}
	return pgo, ""
}

// InstrDisplayName is how views name an instrumented profile's function:
// the linkage name demangled as llvm-symbolizer prints it, with the file
// of an internal function in brackets.
func InstrDisplayName(pgo string) string {
	l, f := PGOLinkageName(pgo)
	if f != "" {
		return demangle.Name(l) + " [" + f + "]"
	}
	return demangle.Name(l)
}

// InstrGUID is the GUID a profiled binary's symbols give the function of
// PGO name pgo: the MD5 of its canonical linkage name.
func InstrGUID(pgo string) uint64 {
	l, _ := PGOLinkageName(pgo)
	return llvmname.GUID(llvmname.Canonical(l))
}

// isCS reports whether r is a context-sensitive record of an IR profile.
func isCS(in *InstrInput, r *instrprof.FuncRecord) bool {
	return in.IR && r.Hash>>60&1 != 0
}

// funcTotals sums the counters of in's records of one kind (CS or not)
// per function name, and over all.
func funcTotals(in *InstrInput, cs bool) (map[string]uint64, uint64) {
	m := map[string]uint64{}
	var total uint64
	for i := range in.Records {
		r := &in.Records[i]
		if isCS(in, r) != cs {
			continue
		}
		for _, c := range r.Counts {
			m[r.Name] += c
			total += c
		}
	}
	return m, total
}

// WriteInstrChanges writes, after the overlap report, the top functions
// (default 20) whose share of all edge counts changed most from A to B,
// with both shares and counts: "which functions got hotter".
func WriteInstrChanges(out io.Writer, a, b *InstrInput, cs bool, top int) error {
	if top <= 0 {
		top = 20
	}
	ma, ta := funcTotals(a, cs)
	mb, tb := funcTotals(b, cs)
	type change struct {
		name       string
		ca, cb     uint64
		sa, sb, dd float64
	}
	var cs2 []change
	seen := map[string]bool{}
	add := func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		c := change{name: n, ca: ma[n], cb: mb[n]}
		if ta > 0 {
			c.sa = float64(c.ca) / float64(ta)
		}
		if tb > 0 {
			c.sb = float64(c.cb) / float64(tb)
		}
		c.dd = c.sb - c.sa
		cs2 = append(cs2, c)
	}
	for n := range ma {
		add(n)
	}
	for n := range mb {
		add(n)
	}
	slices.SortFunc(cs2, func(x, y change) int {
		ax, ay := max(x.dd, -x.dd), max(y.dd, -y.dd)
		if c := cmp.Compare(ay, ax); c != 0 {
			return c
		}
		return strings.Compare(x.name, y.name)
	})
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "\nFunctions whose share of the edge counts changed most (A = %s, B = %s; %d of %d functions):\n", a.Name, b.Name, min(top, len(cs2)), len(cs2))
	fmt.Fprintf(w, "  %9s %9s %9s %14s %14s  %s\n", "A share", "B share", "change", "A count", "B count", "function")
	for _, c := range cs2[:min(top, len(cs2))] {
		fmt.Fprintf(w, "  %8.3f%% %8.3f%% %+8.3f%% %14d %14d  %s\n", c.sa*100, c.sb*100, c.dd*100, c.ca, c.cb, InstrDisplayName(c.name))
	}
	return w.Flush()
}

// InstrProfile converts an instrumented profile to a pprof profile: one
// sample per function record (context-sensitive ones labelled "cs"),
// valued by the sum of its counters ("count") and its largest counter
// ("max_count").
//
// What is approximated: counters are not mapped to source lines (that
// needs the binary's coverage mapping or the IR), so each function is
// one location; with syms (the profiled binary's DWARF), the location's
// line is the function's first line and its file the function's source.
func InstrProfile(in *InstrInput, syms *Symbols) *profile.Profile {
	m := &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p := &profile.Profile{
		Mapping:           []*profile.Mapping{m},
		SampleType:        []*profile.ValueType{{Type: "count", Unit: "count"}, {Type: "max_count", Unit: "count"}},
		DefaultSampleType: "count",
		PeriodType:        &profile.ValueType{Type: "count", Unit: "count"},
		Comments: []string{
			"instrumented profile: one sample per function record; count is the sum of its counters, max_count the largest",
			"approximated: counters are not mapped to source lines; a function's location is its first line when the profiled binary is given",
		},
	}
	if syms == nil || syms.Binary == "" {
		p.Comments = append(p.Comments, NoBinaryNote)
	}
	funcs := functions{p: p}
	locs := map[string]*profile.Location{}
	for i := range in.Records {
		r := &in.Records[i]
		var sum, mx uint64
		for _, c := range r.Counts {
			sum += c
			mx = max(mx, c)
		}
		l := locs[r.Name]
		if l == nil {
			_, file := PGOLinkageName(r.Name)
			f := funcs.get(r.Name)
			f.Name = InstrDisplayName(r.Name)
			f.SystemName = r.Name
			if f.Filename == "" {
				f.Filename = file
			}
			var line int64
			if fn := syms.fn(InstrGUID(r.Name)); fn.Line > 0 {
				f.Filename, f.StartLine, line = fn.File, int64(fn.Line), int64(fn.Line)
			}
			l = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Line: []profile.Line{{Function: f, Line: line}}}
			locs[r.Name] = l
			p.Location = append(p.Location, l)
		}
		s := &profile.Sample{Location: []*profile.Location{l}, Value: []int64{clampInt64(sum), clampInt64(mx)}}
		if isCS(in, r) {
			s.Label = map[string][]string{"cs": {"true"}}
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// clampInt64 is v as a pprof value: counts past 2^63-1 (saturated
// counters) are held at the largest one.
func clampInt64(v uint64) int64 {
	return int64(min(v, uint64(1<<63-1)))
}
