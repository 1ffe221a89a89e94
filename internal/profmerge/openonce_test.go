package profmerge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// openOnceEnv carries the merge a child of TestOpenOnce runs
// (TestOpenOnceChild), as JSON.
const openOnceEnv = "RULES_PGO_OPEN_ONCE_MERGE"

type openOnceMerge struct {
	Inputs         []string
	Output, Binary string
}

// TestOpenOnceChild is the merge TestOpenOnce traces; it does nothing
// unless run by it.
func TestOpenOnceChild(t *testing.T) {
	spec := os.Getenv(openOnceEnv)
	if spec == "" {
		t.Skip("run by TestOpenOnce")
	}
	var m openOnceMerge
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		t.Fatal(err)
	}
	w, err := instrprof.Defaults(19)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Output: m.Output, ProfiledBinary: m.Binary, Write: w, Jobs: 2}
	for _, p := range m.Inputs {
		opts.Inputs = append(opts.Inputs, Input{Path: p, Weight: 1})
	}
	if err := Run(opts); err != nil {
		t.Fatal(err)
	}
}

// TestOpenOnce runs merges under `strace -f -e trace=openat` and counts
// the opens of each file: every input is opened once (classify reads its
// head from the file it keeps open, and every later read uses that file),
// for N raw MemProf inputs with --profiled-binary and for N .profraw
// inputs beside an indexed profile; the profiled binary once too.
func TestOpenOnce(t *testing.T) {
	strace := testenv.Tool(t, "strace")
	tmp := t.TempDir()
	copyTo := func(name, src string) string {
		t.Helper()
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mem := fixtures(t)
	bin := filepath.Join(mem, "app-llvm19-nopie")
	var raws []string
	for i, s := range []string{"a", "b", "dump", "a", "b"} {
		raws = append(raws, copyTo(fmt.Sprintf("%d-%s.memprofraw", i, s), bin+"-"+s+".memprofraw"))
	}
	instr := instrproftest.Fixtures(t)
	profraws := []string{copyTo("0.profdata", filepath.Join(instr, "app-llvm19-ir.profdata"))}
	for _, s := range []string{"10", "3", "50", "10"} {
		profraws = append(profraws, copyTo(fmt.Sprintf("%d-%s.profraw", len(profraws), s), filepath.Join(instr, "app-llvm19-ir-"+s+".profraw")))
	}
	for _, c := range []struct {
		name   string
		inputs []string
		binary string
	}{
		{"memprofraw", raws, bin},
		{"profraw", profraws, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec, _ := json.Marshal(openOnceMerge{Inputs: c.inputs, Output: filepath.Join(tmp, c.name+".profdata"), Binary: c.binary})
			log := filepath.Join(tmp, c.name+".strace")
			cmd := exec.Command(strace, "-f", "-e", "trace=openat", "-o", log, os.Args[0], "-test.run=^TestOpenOnceChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), openOnceEnv+"="+string(spec))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", cmd, err, out)
			}
			trace, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			opens := func(path string) int {
				return strings.Count(string(trace), "openat(AT_FDCWD, "+strconv.Quote(path)+",")
			}
			for _, p := range c.inputs {
				if n := opens(p); n != 1 {
					t.Errorf("%s opened %d times, want once", filepath.Base(p), n)
				}
			}
			if c.binary != "" {
				if n := opens(c.binary); n != 1 {
					t.Errorf("the profiled binary %s opened %d times, want once", filepath.Base(c.binary), n)
				}
			}
		})
	}
}

// TestOpenBudget: inputs beyond the open-file budget are closed after
// classify and opened again when read; the output is the same bytes.
func TestOpenBudget(t *testing.T) {
	mem := fixtures(t)
	bin := filepath.Join(mem, "app-llvm19-nopie")
	instr := instrproftest.Fixtures(t)
	w, err := instrprof.Defaults(19)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, c := range []struct {
		name   string
		inputs []string
		binary string
	}{
		{"memprofraw", []string{bin + "-a.memprofraw", bin + "-b.memprofraw", bin + "-dump.memprofraw"}, bin},
		{"profraw", []string{filepath.Join(instr, "app-llvm19-ir.profdata"), filepath.Join(instr, "app-llvm19-ir-10.profraw"), filepath.Join(instr, "app-llvm19-ir-3.profraw")}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			merge := func(budget int) []byte {
				t.Helper()
				saved := openBudget
				defer func() { openBudget = saved }()
				if budget >= 0 {
					openBudget = func() int { return budget }
				}
				out := filepath.Join(tmp, fmt.Sprintf("%s-%d.profdata", c.name, budget))
				opts := Options{Output: out, ProfiledBinary: c.binary, Write: w}
				for _, p := range c.inputs {
					opts.Inputs = append(opts.Inputs, Input{Path: p, Weight: 1})
				}
				if err := Run(opts); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			want := merge(-1)
			for _, budget := range []int{0, 1} {
				if got := merge(budget); !bytes.Equal(got, want) {
					t.Errorf("open-file budget %d: output differs", budget)
				}
			}
		})
	}
}
