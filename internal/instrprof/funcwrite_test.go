package instrprof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// mergeRaws reads the raws and writes them as llvm-profdata of release
// merges them.
func mergeRaws(t *testing.T, release int, paths ...string) []byte {
	t.Helper()
	return mergeWeighted(t, release, paths, nil)
}

// mergeWeighted is mergeRaws with a weight per input (nil: all 1).
func mergeWeighted(t *testing.T, release int, paths []string, weights []uint64) []byte {
	t.Helper()
	f := NewFuncProfile()
	f.LastProfileBinaryIDs = release < 19
	var rr RawReader
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w := uint64(1)
		if weights != nil {
			w = weights[i]
		}
		// The raws after the first of a binary take the same-layout fast
		// path where they can (rawfast.go).
		if _, err := f.AddRawData(&rr, p, data, w); err != nil {
			t.Fatal(err)
		}
	}
	return writeFuncsAt(t, release, f)
}

// writeFuncsAt writes f as llvm-profdata of release writes it.
func writeFuncsAt(t testing.TB, release int, f *FuncProfile) []byte {
	t.Helper()
	opts, err := Defaults(llvmrelease.Release(release))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFuncs(&b, f, nil, nil, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func llvmMerge(t *testing.T, release int, args ...string) []byte {
	t.Helper()
	tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", release))
	out := filepath.Join(t.TempDir(), "llvm.profdata")
	cmd := exec.Command(tool, append([]string{"merge", "--num-threads=1", "-o", out}, args...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func compareFuncs(t *testing.T, release int, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	n := min(len(got), len(want))
	i := 0
	for i < n && got[i] == want[i] {
		i++
	}
	t.Errorf("LLVM %d: ours %d bytes, llvm-profdata %d bytes; first difference at %#x", release, len(got), len(want), i)
	show := func(b []byte) []byte { return b[i&^15 : min(len(b), i&^15+64)] }
	t.Logf("ours:\n%x\nllvm:\n%x", show(got), show(want))
}

// TestMergeRawDifferential: for each release, raws of each program and
// mode, one and several at a time, merged by us and by llvm-profdata-N
// (inputs in sorted order, one thread), compared byte for byte.
func TestMergeRawDifferential(t *testing.T) {
	dir := instrproftest.Fixtures(t)
	for _, rel := range instrproftest.Releases {
		for _, mode := range instrproftest.Modes(llvmrelease.Release(rel)) {
			for _, prog := range []string{"app", "shapes"} {
				name := fmt.Sprintf("%s-llvm%d-%s", prog, rel, mode)
				t.Run(name, func(t *testing.T) {
					var raws []string
					for _, i := range []string{"10", "3", "50"} {
						raws = append(raws, filepath.Join(dir, name+"-"+i+".profraw"))
					}
					for _, in := range [][]string{raws[:1], raws} {
						compareFuncs(t, rel, mergeRaws(t, rel, in...), llvmMerge(t, rel, in...))
					}
				})
			}
		}
		t.Run(fmt.Sprintf("cs-and-ir-llvm%d", rel), func(t *testing.T) {
			raws := []string{
				filepath.Join(dir, fmt.Sprintf("app-llvm%d-cs-10.profraw", rel)),
				filepath.Join(dir, fmt.Sprintf("app-llvm%d-ir-10.profraw", rel)),
				filepath.Join(dir, fmt.Sprintf("app-llvm%d-ir-3.profraw", rel)),
			}
			compareFuncs(t, rel, mergeRaws(t, rel, raws...), llvmMerge(t, rel, raws...))
		})
		t.Run(fmt.Sprintf("weighted-llvm%d", rel), func(t *testing.T) {
			// Weights scale a new record's counters and value counts and
			// multiply later inputs' before they are added; values new to
			// a site are inserted unscaled, as LLVM does.
			raws := []string{
				filepath.Join(dir, fmt.Sprintf("shapes-llvm%d-ir-10.profraw", rel)),
				filepath.Join(dir, fmt.Sprintf("shapes-llvm%d-ir-3.profraw", rel)),
				filepath.Join(dir, fmt.Sprintf("shapes-llvm%d-ir-50.profraw", rel)),
			}
			ws := []uint64{3, 1, 1 << 62}
			var args []string
			for i, r := range raws {
				args = append(args, fmt.Sprintf("--weighted-input=%d,%s", ws[i], r))
			}
			compareFuncs(t, rel, mergeWeighted(t, rel, raws, ws), llvmMerge(t, rel, args...))
		})
		t.Run(fmt.Sprintf("concatenated-llvm%d", rel), func(t *testing.T) {
			// A file holding two profiles one after the other reads as
			// both.
			var cat []byte
			for _, i := range []string{"3", "50"} {
				b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("app-llvm%d-ir-%s.profraw", rel, i)))
				if err != nil {
					t.Fatal(err)
				}
				cat = append(cat, b...)
			}
			p := filepath.Join(t.TempDir(), "cat.profraw")
			if err := os.WriteFile(p, cat, 0o644); err != nil {
				t.Fatal(err)
			}
			compareFuncs(t, rel, mergeRaws(t, rel, p), llvmMerge(t, rel, p))
		})
		t.Run(fmt.Sprintf("two-binaries-llvm%d", rel), func(t *testing.T) {
			raws := []string{
				filepath.Join(dir, fmt.Sprintf("app-llvm%d-ir-3.profraw", rel)),
				filepath.Join(dir, fmt.Sprintf("shapes-llvm%d-ir-3.profraw", rel)),
			}
			compareFuncs(t, rel, mergeRaws(t, rel, raws...), llvmMerge(t, rel, raws...))
		})
	}
}
