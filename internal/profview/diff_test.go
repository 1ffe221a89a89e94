package profview_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
)

// TestDiff diffs the profiles of two runs of one program: the pairs
// cover both profiles' contexts once, a profile against itself has no
// change, and the pprof form (B minus A) sums to B's bytes minus A's and
// shows in go tool pprof -top the same flat values as -diff_base with the
// two profiles of show --format=pprof.
func TestDiff(t *testing.T) {
	const n = 19
	dir := memproftest.Fixtures(t)
	bin := filepath.Join(dir, "app-llvm19-nopie")
	pathA, pathB := memproftest.Fixture(t, "app-llvm19-nopie-a.memprofraw"), memproftest.Fixture(t, "app-llvm19-nopie-b.memprofraw")
	th := profview.DefaultThresholds(n)
	load := func(path string) []profview.Context {
		p, err := profmerge.LoadMemProf(path, bin, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		return profview.Contexts(p, th)
	}
	a, b := load(pathA), load(pathB)
	var inA, inB, both int
	for _, d := range profview.Diff(a, b) {
		switch {
		case d.A == nil:
			inB++
		case d.B == nil:
			inA++
		default:
			both++
			if d.A.ID != d.B.ID {
				t.Errorf("paired contexts %d and %d", d.A.ID, d.B.ID)
			}
		}
	}
	if both+inA != len(a) || both+inB != len(b) || both == 0 {
		t.Errorf("%d paired, %d only in A, %d only in B; A has %d contexts, B %d", both, inA, inB, len(a), len(b))
	}
	var self bytes.Buffer
	if err := profview.WriteDiff(&self, "a", "a", a, a, th, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Added (only in B): 0", "Removed (only in A): 0", "Hint changed: 0", "Same hint, other size or count: 0"} {
		if !strings.Contains(self.String(), want) {
			t.Errorf("A against itself: no %q in\n%s", want, self.String())
		}
	}

	tmp := t.TempDir()
	write := func(name string, fn func(w *os.File) error) string {
		p := filepath.Join(tmp, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	o := profmerge.MemoryShowOptions{Binary: bin, Release: n, Format: "pprof"}
	delta := write("delta.pb.gz", func(w *os.File) error { return profmerge.DiffMemory(w, pathA, pathB, o) })
	pa := write("a.pb.gz", func(w *os.File) error { return profmerge.ShowMemoryView(w, pathA, o) })
	pb := write("b.pb.gz", func(w *os.File) error { return profmerge.ShowMemoryView(w, pathB, o) })
	data, err := os.ReadFile(delta)
	if err != nil {
		t.Fatal(err)
	}
	d, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, s := range d.Sample {
		sum += s.Value[1] // alloc_space
	}
	if want := int64(profview.Summarize(b).TotalBytes) - int64(profview.Summarize(a).TotalBytes); sum != want {
		t.Errorf("the diff's alloc_space sums to %d, want %d", sum, want)
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	flat := func(out string) string { // the table, without the header's totals
		return out[strings.Index(out, "      flat"):]
	}
	ours := runPprof(t, goTool, "-top", "-unit=B", "-nodefraction=0", delta)
	theirs := runPprof(t, goTool, "-top", "-unit=B", "-nodefraction=0", "-diff_base", pa, pb)
	// Percentages differ (pprof's -diff_base divides by the base's total);
	// compare flat and cum values per function.
	strip := func(table string) string {
		var b strings.Builder
		for _, l := range strings.Split(table, "\n")[1:] {
			if f := strings.Fields(l); len(f) >= 6 {
				b.WriteString(f[0] + " " + f[3] + " " + strings.Join(f[5:], " ") + "\n")
			}
		}
		return b.String()
	}
	if strip(flat(ours)) == "" {
		t.Errorf("pprof -top of the diff shows no function:\n%s", ours)
	}
	if strip(flat(ours)) != strip(flat(theirs)) {
		t.Errorf("pprof -top of the diff:\n%s\nwant that of -diff_base:\n%s", ours, theirs)
	}
}
