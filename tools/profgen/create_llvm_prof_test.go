package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfdata/perfdatatest"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestCreateLLVMProfHotFunctions is a second anchor for perf.data: Debian's
// create_llvm_prof (autofdo 0.19), another reader of perf.data, finds the
// same hot functions, in the same order, in the generated file as ours
// (bench/README.md has its totals and what it needs: no hw_idx, a COMM
// record, DWARF 4).
func TestCreateLLVMProfHotFunctions(t *testing.T) {
	cl := testenv.Tool(t, "create_llvm_prof")
	progs := tracetest.Build(t, "profgen-create-llvm-prof", []tracetest.Source{{File: "testdata/hot.c", CC: "clang-19"}},
		[]tracetest.Trace{{Args: []string{"--start-at-entry", "--period", "97", "--jitter", "10", "--pid", "4242"},
			ProgArg: "3000", Outputs: map[string]string{"lbr": "lbr"}}})
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			text, err := os.ReadFile(p.Traces["lbr"])
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			f, err := perfdatatest.FromScript(bytes.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(dir, "perf.data")
			if err := os.WriteFile(data, f.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			ours := filepath.Join(dir, "ours.txt")
			if msg, err := runOurs(t, []string{"--perfdata=" + data, "--binary=" + p.Bin, "--format=text", "-o", ours}); err != nil {
				t.Fatalf("profgen: %v\n%s", err, msg)
			}
			// For create_llvm_prof: as older perf wrote it, with the
			// build-id feature and the process's COMM.
			old, err := perfdatatest.FromScriptNoHWIndex(bytes.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			mmapFile := ""
			for _, l := range strings.Split(string(text), "\n") {
				if strings.HasPrefix(l, "PERF_RECORD_MMAP2 ") {
					mmapFile = l[strings.LastIndex(l, " ")+1:]
					break
				}
			}
			old.BuildIDs = []perfdata.BuildID{{PID: -1, CPUMode: perfdata.MiscUser, BuildID: buildID(t, p.Bin), Filename: mmapFile}}
			comm := perfdatatest.Comm(old.Attrs[0], perfdata.MiscCommExec, perfdata.Comm{PID: 4242, TID: 4242, Comm: filepath.Base(mmapFile)},
				perfdata.SampleIDTrailer{PID: 4242, TID: 4242})
			old.Records = append([][]byte{comm}, old.Records...)
			oldData := filepath.Join(dir, "old.data")
			if err := os.WriteFile(oldData, old.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			theirs := filepath.Join(dir, "cl.txt")
			cmd := exec.Command(cl, "--profile="+oldData, "--binary="+p.Bin, "--format=text", "--out="+theirs, "--logtostderr")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("create_llvm_prof: %v\n%s", err, out)
			}
			got, want := hotFunctions(t, ours), hotFunctions(t, theirs)
			t.Logf("hot functions: %v", got)
			if len(want) < 3 || !slices.Equal(got, want) {
				t.Errorf("hot functions (≥ 5%% of the hottest, hottest first): ours %v, create_llvm_prof %v", got, want)
			}
		})
	}
}

// buildID is the binary's GNU build id as bytes (elfBuildID's).
func buildID(t *testing.T, bin string) []byte {
	b, err := hex.DecodeString(elfBuildID(t, bin))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hotFunctions lists the functions of a text profile whose total is at
// least 5% of the hottest's, hottest first, names without .__uniq.
// suffixes.
func hotFunctions(t *testing.T, path string) []string {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		name  string
		total uint64
	}
	var fns []fn
	for _, l := range strings.Split(string(text), "\n") {
		if l == "" || l[0] == ' ' {
			continue
		}
		// create_llvm_prof 0.19 sometimes ends with ":0", a function of
		// no name (samples it could not attribute): not a function.
		if strings.HasPrefix(l, ":") {
			continue
		}
		f := strings.Split(l, ":")
		if len(f) < 3 {
			t.Fatalf("%s: line %q", path, l)
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			t.Fatalf("%s: line %q", path, l)
		}
		name, _, _ := strings.Cut(f[0], ".__uniq.")
		fns = append(fns, fn{name, n})
	}
	slices.SortStableFunc(fns, func(a, b fn) int {
		if a.total != b.total {
			if a.total > b.total {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, f := range fns {
		if f.total*20 >= fns[0].total {
			out = append(out, f.name)
		}
	}
	return out
}
