package profmerge

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/mibref"
)

// TestMergeContextsIndexed: with MergeContexts, an indexed input's
// contexts merge into the raw inputs' contexts of the same call stack: a
// raw profile merged with its own indexed conversion has the conversion's
// records, alloc sites and call sites, each MIB merged with itself
// (mibref.Merge; the full schema keeps every field).
func TestMergeContextsIndexed(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm22-nopie")
	raw := bin + "-b.memprofraw"
	tmp := t.TempDir()
	w, err := instrprof.Defaults(22)
	if err != nil {
		t.Fatal(err)
	}
	w.FullSchema = true
	run := func(name string, paths ...string) *instrprof.File {
		t.Helper()
		var ins []Input
		for _, p := range paths {
			ins = append(ins, Input{Path: p, Weight: 1})
		}
		out := filepath.Join(tmp, name)
		if err := Run(Options{Inputs: ins, Output: out, ProfiledBinary: bin, Write: w, MergeContexts: true}); err != nil {
			t.Fatal(err)
		}
		f, err := instrprof.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	one := run("one.profdata", raw)
	both := run("both.profdata", raw, filepath.Join(tmp, "one.profdata"))
	if len(both.Profile.Records) != len(one.Profile.Records) {
		t.Fatalf("%d records, the raw input alone has %d", len(both.Profile.Records), len(one.Profile.Records))
	}
	for i, r := range one.Profile.Records {
		g := both.Profile.Records[i]
		if g.GUID != r.GUID || len(g.AllocSites) != len(r.AllocSites) || len(g.CallSites) != len(r.CallSites) {
			t.Fatalf("record %d: GUID %#x, %d alloc sites, %d call sites; raw alone: %#x, %d, %d",
				i, g.GUID, len(g.AllocSites), len(g.CallSites), r.GUID, len(r.AllocSites), len(r.CallSites))
		}
		for j, a := range r.AllocSites {
			want := fmt.Sprintf("%+v", mibref.Merge(a.Info, a.Info))
			if got := fmt.Sprintf("%+v", g.AllocSites[j].Info); got != want {
				t.Errorf("record %#x alloc site %d:\n got %s\nwant %s", r.GUID, j, got, want)
			}
		}
	}
}
