package profview

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleDiffOptions say what WriteSampleDiff shows.
type SampleDiffOptions struct {
	// Top is how many functions (largest change first) are listed with
	// their lines; all functions are listed (default 10).
	Top int
	// Symbols, holding the profiled binary's functions (SampleGUID
	// keys), print lines as source lines; Probe says the profiles are
	// probe-based (ids are then shown as they are).
	Symbols *Symbols
	Probe   bool
}

// ContextName is a top-level profile's context as people read it: every
// frame's name demangled as llvm-symbolizer prints it, frames joined as
// LLVM joins them ("main:3 @ foo(int)").
func ContextName(fs *sampleprof.FunctionSamples) string {
	if fs.Context == nil {
		return demangle.Name(fs.Name.String())
	}
	var b strings.Builder
	for i, f := range fs.Context {
		if i > 0 {
			b.WriteString(" @ ")
		}
		b.WriteString(demangle.Name(f.Func.String()))
		if i < len(fs.Context)-1 {
			b.WriteString(":" + locString(f.Loc))
		}
	}
	return b.String()
}

func locString(l sampleprof.LineLocation) string {
	s := strconv.FormatUint(uint64(l.Line), 10)
	if l.Disc != 0 {
		s += "." + strconv.FormatUint(uint64(l.Disc), 10)
	}
	return s
}

// funcName is the display name of an overlap row.
func (f *SampleFuncOverlap) funcName() string {
	if f.Test != nil {
		return ContextName(f.Test)
	}
	return ContextName(f.Base)
}

// share returns a function's share of each profile's samples.
func (ov *SampleOverlap) share(f *SampleFuncOverlap) (a, b float64) {
	return ratio(f.BaseSample, ov.Program.BaseSample), ratio(f.TestSample, ov.Program.TestSample)
}

// SampleLine is one line of a function (or of an inlinee, Path naming
// the callsites from the function down) with its counts in A and B.
type SampleLine struct {
	Path string // "" for the function's own lines, else "3 foo() > 2.1 bar()"
	// Func is the function whose line Loc is (the inlinee's for an
	// inlinee's line): its offsets count from Func's first line.
	Func sampleprof.FunctionID
	Loc  sampleprof.LineLocation
	A, B uint64
}

// sampleLines returns the lines of a and b (either nil) with their
// counts, inlinees' lines after the function's, in location order.
func sampleLines(a, b *sampleprof.FunctionSamples, loc func(sampleprof.FunctionID, sampleprof.LineLocation) string) []SampleLine {
	idx := map[string]int{}
	var out []SampleLine
	var walk func(fs *sampleprof.FunctionSamples, path string, inB bool)
	walk = func(fs *sampleprof.FunctionSamples, path string, inB bool) {
		for _, s := range fs.Body {
			k := path + "\x00" + locString(s.Loc)
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, SampleLine{Path: path, Func: fs.Name, Loc: s.Loc})
			}
			if inB {
				out[i].B += s.Samples
			} else {
				out[i].A += s.Samples
			}
		}
		for _, c := range fs.Callsites {
			p := loc(fs.Name, c.Loc) + " " + demangle.Name(c.Callee.Name.String())
			if path != "" {
				p = path + " > " + p
			}
			walk(c.Callee, p, inB)
		}
	}
	if a != nil {
		walk(a, "", false)
	}
	if b != nil {
		walk(b, "", true)
	}
	slices.SortStableFunc(out, func(x, y SampleLine) int {
		if c := cmp.Compare(x.Path, y.Path); c != 0 {
			return c
		}
		return x.Loc.Compare(y.Loc)
	})
	return out
}

// WriteSampleDiff writes what changed from profile A (base) to B (test):
// llvm-profdata overlap's numbers, every function with its share of each
// profile's samples (the normalisation overlap uses), largest change
// first, and the lines of the Top functions that changed most (those
// with samples in A or B), each as a share of its function's samples.
func WriteSampleDiff(out io.Writer, ov *SampleOverlap, o SampleDiffOptions) error {
	if o.Top <= 0 {
		o.Top = 10
	}
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "# Sample profile diff: A = %s, B = %s\n", ov.BaseName, ov.TestName)
	fmt.Fprintf(w, "# shares are of each profile's total samples, as llvm-profdata overlap --sample normalises them;\n")
	fmt.Fprintf(w, "# a line's share is of its function's samples; lines are %s\n", o.Symbols.sampleLineNote(o.Probe))
	for _, f := range ov.Funcs {
		if fs := cmp.Or(f.Test, f.Base); fs.Name.IsHash() {
			fmt.Fprintf(w, "# names are MD5 hashes where a profile holds no function names (a hash never matches a name)\n")
			break
		}
	}
	w.WriteString("\n")
	if err := ov.WriteText(w); err != nil {
		return err
	}
	order := make([]int, len(ov.Funcs))
	for i := range order {
		order[i] = i
	}
	change := func(i int) float64 {
		a, b := ov.share(&ov.Funcs[i])
		return math.Abs(b - a)
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if c := cmp.Compare(change(y), change(x)); c != 0 {
			return c
		}
		return cmp.Compare(ov.Funcs[x].Name, ov.Funcs[y].Name)
	})
	fmt.Fprintf(w, "\nFunctions (largest change of share first): %d\n", len(order))
	fmt.Fprintf(w, "  %12s %8s %12s %8s %9s %10s  %s\n", "A samples", "A %", "B samples", "B %", "B-A pp", "similarity", "function")
	for _, i := range order {
		f := &ov.Funcs[i]
		a, b := ov.share(f)
		sim := "-"
		switch {
		case f.Base == nil:
			sim = "new"
		case f.Test == nil:
			sim = "gone"
		default:
			sim = pct(f.Similarity, 2)
		}
		fmt.Fprintf(w, "  %12d %8s %12d %8s %+9.3f %10s  %s\n", f.BaseSample, pct(a, 3), f.TestSample, pct(b, 3), (b-a)*100, sim, f.funcName())
	}
	top := order[:min(o.Top, len(order))]
	loc := func(id sampleprof.FunctionID, l sampleprof.LineLocation) string {
		return o.Symbols.sampleLoc(id, l, o.Probe)
	}
	fmt.Fprintf(w, "\nLines of the %d functions that changed most (share of the function's samples):\n", len(top))
	for _, i := range top {
		f := &ov.Funcs[i]
		fs := cmp.Or(f.Test, f.Base)
		if where := o.Symbols.sampleWhere(fs.Name); where != "" {
			fmt.Fprintf(w, "\n  %s  %s\n", f.funcName(), where)
		} else {
			fmt.Fprintf(w, "\n  %s\n", f.funcName())
		}
		fmt.Fprintf(w, "    %-12s %12s %8s %12s %8s %9s  %s\n", "line", "A", "A %", "B", "B %", "B-A pp", "in (callsite line, inlined function > ...)")
		for _, l := range sampleLines(f.Base, f.Test, loc) {
			if l.A == 0 && l.B == 0 {
				continue
			}
			a, b := fracOf(l.A, f.BaseSample), fracOf(l.B, f.TestSample)
			row := fmt.Sprintf("    %-12s %12d %8s %12d %8s %+9.3f  %s", loc(l.Func, l.Loc), l.A, pct(a, 3), l.B, pct(b, 3), (b-a)*100, l.Path)
			w.WriteString(strings.TrimRight(row, " ") + "\n")
		}
	}
	return w.Flush()
}

func fracOf(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return ratio(a, b)
}

// SampleDiffProfile is B's pprof profile (SampleProfile) minus A's with
// A's counts first scaled to B's total samples, so that a location's
// value is how many more samples it has in B than it would with A's
// distribution: what `go tool pprof -normalize -diff_base A B` shows of
// the two SampleProfile outputs, but in B's units (pprof scales B to
// A's total instead).
//
// syms (nil for none) give source lines as SampleProfileLines does.
func SampleDiffProfile(a, b *sampleprof.Profile, syms *Symbols) (*profile.Profile, error) {
	pa, pb := SampleProfileLines(a, syms), SampleProfileLines(b, syms)
	ta, tb := sampleTotal(pa), sampleTotal(pb)
	base := pa.Copy()
	if ta > 0 {
		base.Scale(-float64(tb) / float64(ta))
	}
	d, err := profile.Merge([]*profile.Profile{pb, base})
	if err != nil {
		return nil, err
	}
	d.Comments = append(d.Comments, fmt.Sprintf("diff: B minus A scaled to B's total samples (A %d, B %d)", ta, tb))
	return d, nil
}

func sampleTotal(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0]
	}
	return n
}
