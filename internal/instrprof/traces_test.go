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
// Beyond the reservoir llvm-profdata samples with its writer's
// default-seeded std::mt19937, so with one thread (--num-threads=1, one
// writer, inputs added in the order given) its output is deterministic,
// and ours equals llvm-profdata-N --num-threads=1's, each release with its
// own algorithm (traces.go): at the default reservoir, at 7 with traces cut
// to 4 functions, and when an indexed profile that was itself sampled is
// merged between raws (19: the draws of a sampled source, then the
// shuffle; 22: the reservoir filled from it, the rest shuffled and drawn).
// The sampled cases depend on the input order in LLVM; we compare with
// llvm-profdata given the inputs in the order this test adds them. The
// CLI always adds them in sorted path order, whatever the command line
// or -j (TestInstrDeterminism, tools/merge).
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
				f.Traces22 = rel >= 20
				got := addRaws(t, f, raws)
				want := llvmMerge(t, rel, append(args, raws...)...)
				compareFuncs(t, rel, writeFuncsAt(t, rel, got), want)
				if c.name == "keep-all" && (len(got.Traces) != 150 || got.TraceStreamSize != 150) {
					t.Errorf("kept %d of %d traces, want all 150", len(got.Traces), got.TraceStreamSize)
				}
			})
		}
		// Indexed profiles sampled by llvm-profdata-N (120 traces seen, 100
		// kept) merged with raws and with each other, in several orders.
		tmp := t.TempDir()
		var idx [2]string
		var files [2]*File
		for k, in := range [][]string{raws[:120], raws[30:]} {
			data := llvmMerge(t, rel, in...)
			idx[k] = filepath.Join(tmp, fmt.Sprintf("sampled%d.profdata", k))
			writeFile(t, idx[k], data)
			fi, err := ReadFuncs(idx[k], data)
			if err != nil {
				t.Fatal(err)
			}
			files[k] = fi
		}
		t.Run(fmt.Sprintf("llvm%d/weighted-indexed", rel), func(t *testing.T) {
			// Traces of weight 3 and 1 in an indexed input given weight 5:
			// llvm-profdata keeps the stored weights.
			idxW := filepath.Join(tmp, "weighted.profdata")
			writeFile(t, idxW, llvmMerge(t, rel, "--weighted-input=3,"+raws[0], raws[1]))
			data := readFile(t, idxW)
			fi, err := ReadFuncs(idxW, data)
			if err != nil {
				t.Fatal(err)
			}
			f := NewFuncProfile()
			f.Traces22 = rel >= 20
			// llvm-profdata loads the plain inputs first, then the
			// --weighted-input ones.
			addRaws(t, f, raws[2:3])
			f.AddIndexed(fi, 5)
			compareFuncs(t, rel, writeFuncsAt(t, rel, f), llvmMerge(t, rel, "--weighted-input=5,"+idxW, raws[2]))
		})
		for _, c := range []struct {
			name   string
			inputs [][2]int // {-1, k}: indexed k; {lo, hi}: raws[lo:hi]
		}{
			{"raws-indexed-raws", [][2]int{{120, 135}, {-1, 0}, {135, 150}}},
			{"indexed-raws", [][2]int{{-1, 0}, {120, 150}}},
			{"indexed-indexed", [][2]int{{-1, 0}, {-1, 1}}},
			{"full-then-indexed", [][2]int{{30, 140}, {-1, 1}}},
		} {
			t.Run(fmt.Sprintf("llvm%d/sampled-%s", rel, c.name), func(t *testing.T) {
				f := NewFuncProfile()
				f.Traces22 = rel >= 20
				var args []string
				for _, in := range c.inputs {
					if in[0] < 0 {
						f.AddIndexed(files[in[1]], 1)
						args = append(args, idx[in[1]])
						continue
					}
					addRaws(t, f, raws[in[0]:in[1]])
					args = append(args, raws[in[0]:in[1]]...)
				}
				compareFuncs(t, rel, writeFuncsAt(t, rel, f), llvmMerge(t, rel, args...))
			})
		}
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
