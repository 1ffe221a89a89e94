package profmerge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
)

// fixtures returns the MemProf fixtures of testdata/memprof/gen.sh (the
// tests here use LLVM 19's), built once and shared through the test cache
// with the other packages that use them.
func fixtures(t *testing.T) string {
	t.Helper()
	return memproftest.Fixtures(t)
}

// TestStreamingBadInputRestart: raw inputs are folded in FoldOrder of the
// good inputs. A bad input found mid-way restarts the fold once (failure
// modes all and warn; counted by the progress reports, one per input
// read), so the result equals merging the good inputs alone, and does not
// depend on -j; mode any fails naming the bad input.
func TestStreamingBadInputRestart(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm19-nopie")
	tmp := t.TempDir()
	copyIn := func(name, src string, truncate bool) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if truncate {
			b = b[:len(b)/2]
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := []string{
		copyIn("0-a.memprofraw", bin+"-a.memprofraw", false),
		copyIn("2-b.memprofraw", bin+"-b.memprofraw", false),
		copyIn("3-dump.memprofraw", bin+"-dump.memprofraw", false),
		copyIn("4-a.memprofraw", bin+"-a.memprofraw", false),
	}
	bad := copyIn("1-bad.memprofraw", bin+"-b.memprofraw", true)
	w, err := instrprof.Defaults(19)
	if err != nil {
		t.Fatal(err)
	}
	var loads int
	run := func(paths []string, mode FailureMode, jobs int) ([]byte, string, error) {
		loads = 0
		var ins []Input
		for _, p := range paths {
			ins = append(ins, Input{Path: p, Weight: 1})
		}
		out := filepath.Join(tmp, fmt.Sprintf("out-%d-%d-%d.profdata", len(paths), mode, jobs))
		var warns strings.Builder
		err := Run(Options{Inputs: ins, Output: out, ProfiledBinary: bin, Write: w, Jobs: jobs, Failure: mode,
			Warnf: func(f string, a ...any) { fmt.Fprintf(&warns, f+"\n", a...) },
			Progress: func(f string, _ ...any) {
				if strings.HasPrefix(f, "converting inputs") {
					loads++
				}
			}})
		if err != nil {
			return nil, warns.String(), err
		}
		b, err := os.ReadFile(out)
		return b, warns.String(), err
	}
	want, _, err := run(good, FailAny, 2)
	if err != nil {
		t.Fatal(err)
	}
	if loads != len(good) {
		t.Errorf("good inputs only: %d inputs read, want %d", loads, len(good))
	}
	for _, jobs := range []int{1, 3} {
		got, _, err := run(good, FailAny, jobs)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("-j %d changed the output (err %v)", jobs, err)
		}
	}
	all := append([]string{bad}, good...)
	for _, mode := range []FailureMode{FailAll, FailWarn} {
		got, warns, err := run(all, mode, 2)
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("mode %d: good inputs + a bad one differ from the good inputs alone", mode)
		}
		if !strings.Contains(warns, bad) {
			t.Errorf("mode %d: bad input not reported: %s", mode, warns)
		}
		if want := len(all) + len(good); loads != want {
			t.Errorf("mode %d: %d inputs read, want %d (each once, then the good ones again)", mode, loads, want)
		}
	}
	if _, _, err := run(all, FailAny, 2); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("mode any: error %v does not name %s", err, bad)
	}
}

// TestRawAndYAMLInputs: raw inputs beside a YAML (or indexed) one take the
// general path (the converter's dense form expanded, then merged by GUID):
// the result equals merging the converted raw profile and the YAML
// profile by hand, and differs from the raw inputs alone.
func TestRawAndYAMLInputs(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm19-nopie")
	tmp := t.TempDir()
	raws := []string{bin + "-a.memprofraw", bin + "-b.memprofraw"}
	w, err := instrprof.Defaults(19)
	if err != nil {
		t.Fatal(err)
	}
	run := func(out string, paths ...string) *memprof.Profile {
		t.Helper()
		var ins []Input
		for _, p := range paths {
			ins = append(ins, Input{Path: p, Weight: 1})
		}
		if err := Run(Options{Inputs: ins, Output: out, ProfiledBinary: bin, Write: w, Jobs: 2}); err != nil {
			t.Fatal(err)
		}
		f, err := instrprof.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		return f.Profile
	}
	rawOnly := run(filepath.Join(tmp, "raw.profdata"), raws...)
	var y bytes.Buffer
	if err := memprofidx.WriteYAML(&y, rawOnly); err != nil {
		t.Fatal(err)
	}
	yamlPath := filepath.Join(tmp, "extra.yaml")
	if err := os.WriteFile(yamlPath, y.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run(filepath.Join(tmp, "mixed.profdata"), append([]string{yamlPath}, raws...)...)
	got, err := os.ReadFile(filepath.Join(tmp, "mixed.profdata"))
	if err != nil {
		t.Fatal(err)
	}
	yp, err := memprof.ReadYAML(yamlPath, y.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// What the general path must do: the raw inputs converted (sorted
	// order, one writer context each), then the YAML profile merged in.
	var rs []*memprof.RawProfile
	for _, p := range raws {
		r, err := memprof.OpenRaw(p)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	b, err := elfsym.Open(bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	conv, err := memprof.Convert(rs, b, memprof.ConvertOptions{Release: 19, NumThreads: len(rs)})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	merged, _ := mergeProfiles([]*memprof.Profile{conv, yp}, []memprof.PartialStates{nil, nil}, false, false)
	if err := instrprof.Write(&want, merged, w); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("raw + YAML inputs: output differs from the converted raw profile merged with the YAML profile")
	}
	rawBytes, _ := os.ReadFile(filepath.Join(tmp, "raw.profdata"))
	if bytes.Equal(got, rawBytes) {
		t.Errorf("raw + YAML inputs: the YAML input was ignored")
	}
}
