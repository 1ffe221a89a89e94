package profview

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// sortContexts orders ctxs by key, largest first, then by ID.
func sortContexts(ctxs []Context, key func(*Context) uint64) {
	sort.SliceStable(ctxs, func(i, j int) bool {
		a, b := key(&ctxs[i]), key(&ctxs[j])
		if a != b {
			return a > b
		}
		return ctxs[i].ID < ctxs[j].ID
	})
}

// frameString is Symbols.Frame, marked when inlined.
func frameString(f memprof.Frame, syms *Symbols) string {
	s := syms.Frame(f)
	if f.IsInlineFrame {
		s += " (inlined)"
	}
	return s
}

// WriteHints writes the hint report: the thresholds, the summary per
// allocation type, then every context (largest first) with its hint, the
// numbers that decided it and its call stack (demangled names and source
// lines as syms gives them; without a binary, a note says so).
func WriteHints(out io.Writer, ctxs []Context, t Thresholds, syms *Symbols) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "# Allocation hints clang %d derives from this profile (getAllocType)\n", t.Release)
	fmt.Fprintf(w, "# with -mllvm %s\n", strings.Join(t.Flags(), " -mllvm "))
	writeRule(w, t)
	if n := syms.Note(); n != "" {
		fmt.Fprintf(w, "# note: %s\n", n)
	}
	writeSummary(w, Summarize(ctxs))
	fmt.Fprintf(w, "\nContexts (largest total size first):\n")
	for i := range ctxs {
		c := &ctxs[i]
		d := &c.Decision
		fmt.Fprintf(w, "- hint: %s\n", c.Hint)
		if c.HintNote != "" {
			fmt.Fprintf(w, "  note: %s\n", c.HintNote)
		}
		fmt.Fprintf(w, "  context id: %d\n  allocations: %d  total size: %d  ", c.ID, c.Info.AllocCount, c.Info.TotalSize)
		if !t.Release.MemProfColdByDensity() {
			fmt.Fprintf(w, "max accesses: %d  min size: %d  min lifetime: %d ms\n", c.Info.MaxAccessCount, c.Info.MinSize, c.Info.MinLifetime)
		} else {
			fmt.Fprintf(w, "total lifetime: %d ms  total lifetime access density: %d\n", c.Info.TotalLifetime, c.Info.TotalLifetimeAccessDensity)
		}
		fmt.Fprintf(w, "  why: %s\n  stack:\n", d.Why)
		for _, f := range c.Frames {
			fmt.Fprintf(w, "    %s\n", frameString(f, syms))
		}
	}
	return w.Flush()
}

// writeRule prints the classification rule with t's numbers.
func writeRule(w io.Writer, t Thresholds) {
	if !t.Release.MemProfColdByDensity() {
		fmt.Fprintf(w, "# cold: max access count / min size < %s and min lifetime >= %d ms; else notcold\n",
			fmtFloat(t.AccessesPerByteCold), t.MinLifetimeCold*1000)
		return
	}
	fmt.Fprintf(w, "# density = total lifetime access density / allocations / 100 (accesses per byte per second)\n")
	fmt.Fprintf(w, "# lifetime = total lifetime / allocations (ms)\n")
	fmt.Fprintf(w, "# cold: density < %s and lifetime >= %d ms", fmtFloat(t.LifetimeAccessDensityCold), t.AveLifetimeCold*1000)
	if !t.Release.MemProfHotHintsNeedFlag() || t.UseHotHints {
		fmt.Fprintf(w, "; hot: density > %d", t.MinAveLifetimeAccessDensityHot)
	} else {
		fmt.Fprintf(w, "; hot: never (-memprof-use-hot-hints is off)")
	}
	fmt.Fprintf(w, "; else notcold\n")
}

func writeSummary(w io.Writer, s Summary) {
	fmt.Fprintf(w, "\nSummary:\n  %-8s %10s %14s %14s\n", "hint", "contexts", "bytes", "allocations")
	for _, t := range AllocTypes {
		fmt.Fprintf(w, "  %-8s %10d %14d %14d\n", t, s.Contexts[t], s.Bytes[t], s.Allocs[t])
	}
	fmt.Fprintf(w, "  %-8s %10d %14d %14d\n", "total", s.TotalContexts, s.TotalBytes, s.TotalAllocs)
}

// WriteSummary writes only the summary table of the hints.
func WriteSummary(out io.Writer, ctxs []Context, t Thresholds) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "# Allocation hints clang %d derives (-mllvm %s)\n", t.Release, strings.Join(t.Flags(), " -mllvm "))
	writeRule(w, t)
	writeSummary(w, Summarize(ctxs))
	return w.Flush()
}
