package profmerge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// shardFixtures returns testdata/memprof/shard.sh's directory: six runs of
// one program, each a raw MemProf profile and a .profraw, whose
// allocation lifetimes overlap across runs and whose CPUs differ.
func shardFixtures(t *testing.T) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	return testenv.Script{
		Key:     "memprof-shard-fixtures",
		Dir:     filepath.Join(filepath.Dir(here), "../../testdata/memprof"),
		Sources: []string{"shard.sh", "shard.cc"},
		Tools:   []string{"clang++-19", "ld.lld-19"},
	}.Build(t)
}

// TestShardedMemProf: merging contiguous runs of the sorted inputs into
// partial profiles with their partial states, then the partials in order,
// gives the bytes of one merge of every input, for every split into 2 and
// 3 shards and for a 2-level tree; for MemProf alone and for IR PGO +
// MemProf in one file (instr_profile). Without the states some split
// differs (the fixture makes the order-dependent counters matter), so the
// test would catch a merge that ignores them.
func TestShardedMemProf(t *testing.T) {
	dir := shardFixtures(t)
	bin := filepath.Join(dir, "shard")
	w, err := instrprof.Defaults(19)
	if err != nil {
		t.Fatal(err)
	}
	w.FullSchema = true
	for _, kind := range []struct {
		name string
		exts []string // per run, in sorted path order
	}{{"memprof", []string{".memprofraw"}}, {"instr", []string{".memprofraw", ".profraw"}}} {
		t.Run(kind.name, func(t *testing.T) {
			var inputs []string
			for k := range 6 {
				for _, e := range kind.exts {
					inputs = append(inputs, filepath.Join(dir, fmt.Sprintf("shard-run-%d%s", k, e)))
				}
			}
			tmp := t.TempDir()
			n := 0
			// merge merges ins (each a path, or a partial: path and state)
			// and returns the output and its state.
			merge := func(ins []Input, wantState bool) (string, string) {
				t.Helper()
				n++
				out := filepath.Join(tmp, fmt.Sprintf("m%03d.profdata", n))
				state := ""
				if wantState {
					state = out + ".state"
				}
				err := Run(Options{Inputs: ins, Output: out, ProfiledBinary: bin, Write: w,
					MergeContexts: true, PartialStateOutput: state})
				if err != nil {
					t.Fatal(err)
				}
				return out, state
			}
			plain := func(paths []string) []Input {
				var ins []Input
				for _, p := range paths {
					ins = append(ins, Input{Path: p, Weight: 1})
				}
				return ins
			}
			read := func(p string) []byte {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			oneOut, _ := merge(plain(inputs), false)
			want := read(oneOut)
			// sharded merges inputs split at cuts; withStates false drops
			// the states (a plain merge of the partials).
			sharded := func(cuts []int, withStates bool) []byte {
				var parts []Input
				lo := 0
				for _, hi := range append(cuts, len(inputs)) {
					p, st := merge(plain(inputs[lo:hi]), true)
					in := Input{Path: p, Weight: 1}
					if withStates {
						in.State = st
					}
					parts = append(parts, in)
					lo = hi
				}
				out, _ := merge(parts, false)
				return read(out)
			}
			differs := 0
			splits := 0
			for i := 1; i < len(inputs); i++ {
				splits++
				if got := sharded([]int{i}, true); !bytes.Equal(got, want) {
					t.Errorf("2 shards split at %d: output differs from the one-action merge", i)
				}
				if !bytes.Equal(sharded([]int{i}, false), want) {
					differs++
				}
				for j := i + 1; j < len(inputs); j++ {
					splits++
					if got := sharded([]int{i, j}, true); !bytes.Equal(got, want) {
						t.Errorf("3 shards split at %d, %d: output differs from the one-action merge", i, j)
					}
				}
			}
			if differs == 0 {
				t.Errorf("no 2-shard split without the partial states differs from the one-action merge: the fixture does not exercise the cross terms")
			}
			// A tree (as rules/private/merge_tree.bzl plans one): shards of
			// two inputs, then the partials merged two by two into
			// partials of their own, then the final merge. Merges read
			// their inputs in path order, so each level's partials are
			// named in order, as the rules name them.
			level := plain(inputs)
			for len(level) > 2 {
				var next []Input
				for lo := 0; lo < len(level); lo += 2 {
					p, st := merge(level[lo:min(lo+2, len(level))], true)
					next = append(next, Input{Path: p, Weight: 1, State: st})
				}
				level = next
			}
			final, _ := merge(level, false)
			if !bytes.Equal(read(final), want) {
				t.Errorf("tree: output differs from the one-action merge")
			}
			t.Logf("%d inputs: %d splits into 2 and 3 shards and a tree match the one-action merge; %d of %d 2-shard splits differ without the states",
				len(inputs), splits, differs, len(inputs)-1)
		})
	}
}
