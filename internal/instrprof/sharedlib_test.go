package instrprof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestMergeSharedLibDifferential: programs whose code is partly in an
// instrumented shared library (gen-extra.sh's appso in C, appsoxx in C++
// with virtual calls into the library; IR and front-end PGO), profiled the two ways its users do: one LLVM_PROFILE_FILE per run
// (each module's runtime writes its own profile, one after the other in
// the file) and %m (one file per module, merged online by the runtime
// over the runs). Each set, and all of them together, merged by us and by
// llvm-profdata-N (inputs in sorted order, one thread) must give the same
// bytes, N = 16, 19, 22. LLVM 16 keeps only the binary ids of a file's
// last profile, 19 and 22 all of them.
func TestMergeSharedLibDifferential(t *testing.T) {
	dir := instrproftest.Extra(t)
	for _, rel := range instrproftest.Releases {
		for _, pm := range []string{"appso/ir", "appso/fe", "appsoxx/ir", "appsoxx/fe"} {
			prog, mode, _ := strings.Cut(pm, "/")
			base := filepath.Join(dir, fmt.Sprintf("%s-llvm%d-%s", prog, rel, mode))
			t.Run(filepath.Base(base), func(t *testing.T) {
				runs := []string{base + "-10.profraw", base + "-3.profraw", base + "-50.profraw"}
				perModule, err := filepath.Glob(base + "-m-*.profraw")
				if err != nil || len(perModule) != 2 {
					t.Fatalf("want the two %%m raws of %s, found %v (%v)", base, perModule, err)
				}
				// The fixture is what it claims: a file per run holding
				// both modules' profiles.
				data, err := os.ReadFile(runs[0])
				if err != nil {
					t.Fatal(err)
				}
				var rr RawReader
				r, err := rr.Parse(runs[0], data)
				if err != nil {
					t.Fatal(err)
				}
				if r.profiles != 2 || len(r.BinaryIDs) != 2 {
					t.Fatalf("%s: %d profiles, %d binary ids; want 2 and 2", runs[0], r.profiles, len(r.BinaryIDs))
				}
				for _, in := range [][]string{runs[:1], runs, perModule, append(perModule, runs...)} {
					compareFuncs(t, rel, mergeRaws(t, rel, in...), llvmMerge(t, rel, in...))
				}
				// show of a file with both modules: binary ids (LLVM 16:
				// the last profile's only), value targets named from
				// either module.
				tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
				args := []string{"show", "--binary-ids", "--text", "--all-functions", runs[0]}
				want, err := exec.Command(tool, args...).Output()
				if err != nil {
					t.Fatalf("%s %v: %v", tool, args, err)
				}
				var got bytes.Buffer
				if err := Show(&got, ShowRawInput(r, llvmrelease.Release(rel)), ShowOptions{Release: llvmrelease.Release(rel), BinaryIDs: true, Text: true, AllFunctions: true}); err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want) {
					t.Errorf("show %v differs from llvm-profdata-%d:\nours:\n%s\nllvm:\n%s", args[1:4], rel, got.String(), want)
				}
				args[2] = "--ic-targets"
				want, err = exec.Command(tool, args...).Output()
				if err != nil {
					t.Fatalf("%s %v: %v", tool, args, err)
				}
				got.Reset()
				if err := Show(&got, ShowRawInput(r, llvmrelease.Release(rel)), ShowOptions{Release: llvmrelease.Release(rel), BinaryIDs: true, ICTargets: true, AllFunctions: true}); err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want) {
					t.Errorf("show %v differs from llvm-profdata-%d:\nours:\n%s\nllvm:\n%s", args[1:4], rel, got.String(), want)
				}
			})
		}
	}
}
