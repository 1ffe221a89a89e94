package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// instrFixtures returns testdata/instrprof/gen.sh's programs and raws.
func instrFixtures(t *testing.T) string {
	t.Helper()
	for _, v := range []string{"16", "19", "22"} {
		testenv.Tool(t, "llvm-profdata-"+v)
	}
	return instrproftest.Fixtures(t)
}

// compareInstr runs `merge [ours...] -o OUT inputs` and `llvm-profdata-rel
// merge [llvm...] -o OUT inputs` and requires the same bytes.
func compareInstr(t *testing.T, rel string, ours, llvm, inputs []string) {
	t.Helper()
	tmp := t.TempDir()
	want, got := filepath.Join(tmp, "llvm.profdata"), filepath.Join(tmp, "ours.profdata")
	mustRun(t, "llvm-profdata-"+rel, append(append(append([]string{"merge"}, llvm...), "-o", want), inputs...)...)
	if _, stderr, code := runTool(t, append(append(ours, "-o", got), inputs...)...); code != 0 {
		t.Fatalf("merge exited %d: %s", code, stderr)
	}
	w, g := readFile(t, want), readFile(t, got)
	if !bytes.Equal(w, g) {
		t.Errorf("output differs from llvm-profdata-%s (%d vs %d bytes); first difference at offset %#x",
			rel, len(w), len(g), firstDiff(w, g))
	}
}

// TestInstrConformance: .profraw inputs merged by the tool give the bytes
// llvm-profdata-N merge gives (one thread, inputs in sorted order), for
// N = 16, 19, 22, and `merge -o OUT a b` those of `llvm-profdata-D merge
// -o OUT a b` at its defaults (two inputs: one thread), D the default
// release (llvmrelease.Default).
func TestInstrConformance(t *testing.T) {
	dir := instrFixtures(t)
	for _, rel := range []string{"16", "19", "22"} {
		for _, prog := range []string{"app", "shapes"} {
			t.Run("llvm"+rel+"/"+prog, func(t *testing.T) {
				var raws []string
				for _, i := range []string{"10", "3", "50"} {
					raws = append(raws, filepath.Join(dir, fmt.Sprintf("%s-llvm%s-ir-%s.profraw", prog, rel, i)))
				}
				compareInstr(t, rel, []string{"--llvm-version", rel}, []string{"--num-threads=1"}, raws)
			})
		}
	}
	for _, rel := range []string{"16", "19", "22"} {
		t.Run("llvm"+rel+"/sparse", func(t *testing.T) {
			// Front-end raws keep never_called's record, all zeros.
			raws := []string{filepath.Join(dir, "app-llvm"+rel+"-fe-3.profraw"), filepath.Join(dir, "shapes-llvm"+rel+"-fe-3.profraw")}
			compareInstr(t, rel, []string{"--llvm-version", rel, "--sparse"}, []string{"--num-threads=1", "--sparse"}, raws)
		})
	}
	t.Run("default", func(t *testing.T) {
		d := fmt.Sprint(llvmrelease.Default)
		raws := []string{filepath.Join(dir, "app-llvm"+d+"-ir-3.profraw"), filepath.Join(dir, "app-llvm"+d+"-ir-10.profraw")}
		compareInstr(t, d, nil, nil, raws)
	})
}

// TestInstrWithMemProf: the .profraw and the MemProf raw of one run of one
// binary go into one indexed file, as llvm-profdata-N merge
// --profiled-binary writes it (N = 19, 22).
func TestInstrWithMemProf(t *testing.T) {
	dir := instrFixtures(t)
	for _, rel := range []string{"19", "22"} {
		t.Run("llvm"+rel, func(t *testing.T) {
			bin := filepath.Join(dir, "shapes-llvm"+rel+"-mem")
			inputs := []string{bin + ".memprofraw", bin + ".profraw"}
			compareInstr(t, rel, []string{"--llvm-version", rel, "--profiled-binary", bin},
				[]string{"--profiled-binary", bin}, inputs)
		})
	}
}

// TestInstrDeterminism: input order and -j do not change the bytes.
func TestInstrDeterminism(t *testing.T) {
	dir := instrFixtures(t)
	var raws []string
	for _, i := range []string{"3", "10", "50"} {
		raws = append(raws, filepath.Join(dir, "shapes-llvm22-temporal-"+i+".profraw"))
	}
	tmp := t.TempDir()
	var outs [][]byte
	for k, c := range [][]string{
		{"-j", "1", raws[0], raws[1], raws[2]},
		{"-j", "4", raws[2], raws[0], raws[1]},
		{raws[1], raws[2], raws[0]},
	} {
		out := filepath.Join(tmp, fmt.Sprint(k))
		if _, stderr, code := runTool(t, append([]string{"-o", out}, c...)...); code != 0 {
			t.Fatalf("merge %v: exit %d: %s", c, code, stderr)
		}
		outs = append(outs, readFile(t, out))
	}
	for k := 1; k < len(outs); k++ {
		if !bytes.Equal(outs[0], outs[k]) {
			t.Errorf("run %d differs from run 0", k)
		}
	}
}

// TestInstrBadInputs: broken .profraw files fail with an error naming the
// file and no output; --failure-mode=all|warn merge the good ones and name
// the bad ones.
func TestInstrBadInputs(t *testing.T) {
	dir := instrFixtures(t)
	good := filepath.Join(dir, "app-llvm22-ir-3.profraw")
	gb := readFile(t, good)
	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badVersion := bytes.Clone(gb)
	binary.LittleEndian.PutUint64(badVersion[8:], 1<<56|99)
	lie := bytes.Clone(gb)
	binary.LittleEndian.PutUint64(lie[24:], 1<<40) // NumData
	inputs := map[string]struct{ path, want string }{
		"truncated":   {write("truncated.profraw", gb[:len(gb)/2]), "truncated"},
		"badversion":  {write("badversion.profraw", badVersion), "unsupported raw profile version 99"},
		"lyingcounts": {write("lying.profraw", lie), "offset 0x0"},
		"headeronly":  {write("header.profraw", gb[:16]), "truncated"},
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(tmp, name+".profdata")
			_, stderr, code := runTool(t, "-o", out, in.path)
			if code != 1 || !strings.Contains(stderr, in.path) || !strings.Contains(stderr, in.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 naming %s and %q", code, stderr, in.path, in.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output %s was written despite the failure", out)
			}
			if strings.Contains(stderr, "panic") {
				t.Errorf("tool panicked: %s", stderr)
			}
		})
	}
	for _, mode := range []string{"warn", "all"} {
		t.Run("failure-mode="+mode, func(t *testing.T) {
			out := filepath.Join(tmp, mode+".profdata")
			_, stderr, code := runTool(t, "--failure-mode="+mode, "-o", out, good, inputs["truncated"].path, inputs["badversion"].path)
			if code != 0 {
				t.Fatalf("exit %d, want 0: %s", code, stderr)
			}
			for _, p := range []string{inputs["truncated"].path, inputs["badversion"].path} {
				if !strings.Contains(stderr, p) {
					t.Errorf("bad input %s not reported: %s", p, stderr)
				}
			}
			alone := filepath.Join(tmp, mode+"-alone.profdata")
			if _, stderr, code := runTool(t, "-o", alone, good); code != 0 {
				t.Fatal(stderr)
			}
			if !bytes.Equal(readFile(t, out), readFile(t, alone)) {
				t.Errorf("good + bad inputs under --failure-mode=%s differ from the good input alone", mode)
			}
		})
	}
}

// TestInstrLargeCounter: a counter above 2^56 makes llvm-profdata report
// the input ("excessively large counter value") and fail by default, yet
// merge it under --failure-mode=warn; the tool does both the same way.
func TestInstrLargeCounter(t *testing.T) {
	dir := instrFixtures(t)
	gb := readFile(t, filepath.Join(dir, "app-llvm22-ir-3.profraw"))
	le := binary.LittleEndian
	ctrs := 128 + le.Uint64(gb[16:]) + 64*le.Uint64(gb[24:]) + le.Uint64(gb[32:])
	big := bytes.Clone(gb)
	le.PutUint64(big[ctrs:], 1<<60)
	tmp := t.TempDir()
	p := filepath.Join(tmp, "big.profraw")
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "app-llvm22-ir-10.profraw")
	_, stderr, code := runTool(t, "--llvm-version", "22", "-o", filepath.Join(tmp, "x.profdata"), p, good)
	if code != 1 || !strings.Contains(stderr, "excessively large counter value") || !strings.Contains(stderr, p) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming %s and the large counter", code, stderr, p)
	}
	compareInstr(t, "22", []string{"--llvm-version", "22", "--failure-mode=warn"}, []string{"--failure-mode=warn"}, []string{p, good})
}
