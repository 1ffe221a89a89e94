package profview

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// ContextDiff pairs a context of profile A with the same context (same
// full stack id) of profile B; either is nil when the context is in one
// profile only.
type ContextDiff struct {
	A, B *Context
}

// Diff matches the contexts of two profiles by their full stack id and
// returns every pair, those of B first in B's order (largest first),
// then the contexts only A has, in A's order.
func Diff(a, b []Context) []ContextDiff {
	inA := map[uint64]*Context{}
	for i := range a {
		inA[a[i].ID] = &a[i]
	}
	inB := map[uint64]bool{}
	var out []ContextDiff
	for i := range b {
		inB[b[i].ID] = true
		out = append(out, ContextDiff{A: inA[b[i].ID], B: &b[i]})
	}
	for i := range a {
		if !inB[a[i].ID] {
			out = append(out, ContextDiff{A: &a[i]})
		}
	}
	return out
}

// WriteDiff writes what changed from A to B: the summaries side by side,
// then the contexts added, removed, with another hint, and with other
// sizes or allocation counts (same hint).
func WriteDiff(out io.Writer, nameA, nameB string, a, b []Context, t Thresholds, syms *Symbols) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "# MemProf diff: A = %s, B = %s\n", nameA, nameB)
	fmt.Fprintf(w, "# hints as clang %d derives them with -mllvm %s\n", t.Release, strings.Join(t.Flags(), " -mllvm "))
	if n := syms.Note(); n != "" {
		fmt.Fprintf(w, "# note: %s\n", n)
	}
	sa, sb := Summarize(a), Summarize(b)
	fmt.Fprintf(w, "\nSummary:\n  %-20s %14s %14s %14s\n", "", "A", "B", "B-A")
	row := func(label string, x, y uint64) {
		fmt.Fprintf(w, "  %-20s %14d %14d %+14d\n", label, x, y, int64(y-x))
	}
	for _, ty := range AllocTypes {
		row(ty.String()+" contexts", sa.Contexts[ty], sb.Contexts[ty])
		row(ty.String()+" bytes", sa.Bytes[ty], sb.Bytes[ty])
	}
	row("total contexts", sa.TotalContexts, sb.TotalContexts)
	row("total bytes", sa.TotalBytes, sb.TotalBytes)

	var added, removed, rehinted, resized []ContextDiff
	for _, d := range Diff(a, b) {
		switch {
		case d.A == nil:
			added = append(added, d)
		case d.B == nil:
			removed = append(removed, d)
		case d.A.Hint != d.B.Hint:
			rehinted = append(rehinted, d)
		case d.A.Info.TotalSize != d.B.Info.TotalSize || d.A.Info.AllocCount != d.B.Info.AllocCount:
			resized = append(resized, d)
		}
	}
	section := func(title string, ds []ContextDiff, line func(d ContextDiff) string) {
		fmt.Fprintf(w, "\n%s: %d\n", title, len(ds))
		for _, d := range ds {
			c := d.B
			if c == nil {
				c = d.A
			}
			fmt.Fprintf(w, "  %s\n    %s\n", line(d), stackLine(c.Frames, syms))
		}
	}
	section("Added (only in B)", added, func(d ContextDiff) string {
		return fmt.Sprintf("+ %s  bytes %d  allocations %d  (%s)", d.B.Hint, d.B.Info.TotalSize, d.B.Info.AllocCount, d.B.Decision.Why)
	})
	section("Removed (only in A)", removed, func(d ContextDiff) string {
		return fmt.Sprintf("- %s  bytes %d  allocations %d", d.A.Hint, d.A.Info.TotalSize, d.A.Info.AllocCount)
	})
	section("Hint changed", rehinted, func(d ContextDiff) string {
		return fmt.Sprintf("~ %s -> %s  bytes %d -> %d  allocations %d -> %d  (B: %s)", d.A.Hint, d.B.Hint,
			d.A.Info.TotalSize, d.B.Info.TotalSize, d.A.Info.AllocCount, d.B.Info.AllocCount, d.B.Decision.Why)
	})
	section("Same hint, other size or count", resized, func(d ContextDiff) string {
		return fmt.Sprintf("= %s  bytes %d -> %d  allocations %d -> %d", d.B.Hint,
			d.A.Info.TotalSize, d.B.Info.TotalSize, d.A.Info.AllocCount, d.B.Info.AllocCount)
	})
	return w.Flush()
}

// stackLine prints a call stack on one line, leaf first.
func stackLine(frames []memprof.Frame, syms *Symbols) string {
	parts := make([]string, len(frames))
	for i, f := range frames {
		parts[i] = syms.Frame(f)
	}
	return strings.Join(parts, " < ")
}

// DiffProfile is B's pprof profile minus A's: A's samples negated and
// merged in, so pprof shows what grew (positive) and shrank (negative),
// as `go tool pprof -diff_base A B` does with the two profiles.
func DiffProfile(a, b *profile.Profile) (*profile.Profile, error) {
	base := a.Copy()
	base.Scale(-1)
	return profile.Merge([]*profile.Profile{b, base})
}
