package instrprof

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
)

// TestTemporalReservoir: 150 runs of gen-extra.sh's order program, whose
// traces differ from run to run, are more than llvm-profdata's default
// reservoir of 100 traces. For both releases, with a reservoir of 1000 (the
// LLVM setting that keeps every trace; also with
// --temporal-profile-max-trace-length=4) our bytes equal llvm-profdata's.
// Beyond the reservoir llvm-profdata-19 samples with its writer's
// default-seeded std::mt19937, so with one thread (--num-threads=1, one
// writer) its output is deterministic, and ours equals it too: at the
// default reservoir, at 7 with traces cut to 4 functions, and when an
// indexed profile that was itself sampled is merged with more raws
// (addTemporalProfileTraces of a sampled source: the draws, then the
// shuffle). llvm-profdata-22 --num-threads=1 samples differently, not
// reproduced (traces.go): for 22 only the settings that keep every trace
// are compared. Ours is the one-writer result over the inputs in sorted
// order whatever -j is (TestInstrDeterminism, tools/merge).
func TestTemporalReservoir(t *testing.T) {
	dir := instrproftest.Extra(t)
	for _, rel := range []int{19, 22} {
		var raws []string
		for k := range 150 {
			raws = append(raws, filepath.Join(dir, fmt.Sprintf("order-llvm%d-temporal-%d.profraw", rel, k)))
		}
		slices.Sort(raws)
		for _, c := range []struct {
			name           string
			reservoir, max uint64
		}{{"default", 0, 0}, {"keep-all", 1000, 0}, {"keep-all-short", 1000, 4}, {"small", 7, 4}} {
			if rel == 22 && c.reservoir < 150 {
				continue
			}
			t.Run(fmt.Sprintf("llvm%d/%s", rel, c.name), func(t *testing.T) {
				var args []string
				if c.reservoir != 0 {
					args = append(args, fmt.Sprintf("--temporal-profile-trace-reservoir-size=%d", c.reservoir))
				}
				if c.max != 0 {
					args = append(args, fmt.Sprintf("--temporal-profile-max-trace-length=%d", c.max))
				}
				f := NewFuncProfile()
				f.ReservoirSize, f.MaxTraceLength = c.reservoir, c.max
				got := addRaws(t, f, raws)
				want := llvmMerge(t, rel, append(args, raws...)...)
				compareFuncs(t, rel, writeFuncsAt(t, rel, got), want)
				if c.name == "keep-all" && (len(got.Traces) != 150 || got.TraceStreamSize != 150) {
					t.Errorf("kept %d of %d traces, want all 150", len(got.Traces), got.TraceStreamSize)
				}
			})
		}
		if rel == 22 {
			continue
		}
		t.Run(fmt.Sprintf("llvm%d/sampled-indexed", rel), func(t *testing.T) {
			first := llvmMerge(t, rel, raws[:120]...)
			idx := filepath.Join(t.TempDir(), "first.profdata")
			writeFile(t, idx, first)
			f := NewFuncProfile()
			fi, err := ReadFuncs(idx, first)
			if err != nil {
				t.Fatal(err)
			}
			// llvm-profdata loads the inputs in the order given.
			addRaws(t, f, raws[120:135])
			f.AddIndexed(fi, 1)
			addRaws(t, f, raws[135:])
			want := llvmMerge(t, rel, append(append(append([]string{}, raws[120:135]...), idx), raws[135:]...)...)
			compareFuncs(t, rel, writeFuncsAt(t, rel, f), want)
		})
	}
}

func addRaws(t *testing.T, f *FuncProfile, raws []string) *FuncProfile {
	t.Helper()
	var rr RawReader
	for _, p := range raws {
		if _, err := f.AddRawData(&rr, p, readFile(t, p), 1); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
