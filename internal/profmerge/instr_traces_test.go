package profmerge

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestInstrTraceOptions: Run passes --temporal-profile-trace-reservoir-size
// and --temporal-profile-max-trace-length on, and its output depends
// neither on -j nor on the order of the inputs: 150 traces of gen-extra.sh's
// order program, given in run order, reservoir 1000 (every trace kept) and
// 7 (sampled), against llvm-profdata-N --num-threads=1 with the same options
// and the inputs in sorted path order (llvm-profdata's sample depends on
// the order; ours is the one of sorted paths), for N = 19 and 22, which
// sample differently.
func TestInstrTraceOptions(t *testing.T) {
	for _, rel := range []int{19, 22} {
		t.Run(fmt.Sprintf("llvm%d", rel), func(t *testing.T) { testInstrTraceOptions(t, rel) })
	}
}

func testInstrTraceOptions(t *testing.T, rel int) {
	dir := instrproftest.Extra(t)
	profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
	var ins []Input
	var paths []string
	for k := range 150 {
		p := filepath.Join(dir, fmt.Sprintf("order-llvm%d-temporal-%d.profraw", rel, k))
		ins = append(ins, Input{Path: p, Weight: 1})
		paths = append(paths, p)
	}
	w, err := instrprof.Defaults(llvmrelease.Release(rel))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, c := range []struct{ reservoir, length uint64 }{{1000, 0}, {7, 3}} {
		llvm := filepath.Join(tmp, fmt.Sprintf("llvm-%d.profdata", c.reservoir))
		args := []string{"merge", "--num-threads=1", "-o", llvm, fmt.Sprintf("--temporal-profile-trace-reservoir-size=%d", c.reservoir)}
		if c.length > 0 {
			args = append(args, fmt.Sprintf("--temporal-profile-max-trace-length=%d", c.length))
		}
		// llvm-profdata takes the inputs in the order given; ours are
		// sorted by path, so give it them sorted.
		sorted := append([]string(nil), paths...)
		slices.Sort(sorted)
		if out, err := exec.Command(profdata, append(args, sorted...)...).CombinedOutput(); err != nil {
			t.Fatalf("llvm-profdata-%d merge: %v\n%s", rel, err, out)
		}
		want, err := os.ReadFile(llvm)
		if err != nil {
			t.Fatal(err)
		}
		for _, jobs := range []int{1, 3} {
			ours := filepath.Join(tmp, fmt.Sprintf("ours-%d-%d.profdata", c.reservoir, jobs))
			err := Run(Options{Inputs: ins, Output: ours, Write: w, Jobs: jobs, Warnf: t.Logf,
				TraceReservoirSize: c.reservoir, MaxTraceLength: c.length})
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(ours)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("reservoir %d, length %d, -j%d: differs from llvm-profdata-%d (%d vs %d bytes)", c.reservoir, c.length, jobs, rel, len(got), len(want))
			}
		}
	}
}
