package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Inputs and outputs a hostile user gives (issue 21): bad inputs under
// --fatal-warnings, files that are not regular files, empty files, and
// the error messages of bad inputs.

// runToolBounded is runTool with a deadline that only stops a hang (a
// FIFO waited on forever, /dev/zero read without end), reported as exit
// code -1; how long a run takes is never checked.
func runToolBounded(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MERGE_TEST_AS_TOOL=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return stdout.String(), stderr.String(), -1
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// llvmCode runs an LLVM tool and returns its exit code and stderr.
func llvmCode(t *testing.T, tool string, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(testenv.Tool(t, tool), args...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// truncated writes the first n bytes of src to dir/name and returns its path.
func truncated(t *testing.T, src, dir, name string, n int) string {
	t.Helper()
	data := readFile(t, src)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data[:min(n, len(data))], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sampleText is a small text sample profile, the kind a user writes.
const sampleText = "main:100:1\n 1: 50\n 2: 50 work:50\n"

// hostileInputs are a good and a truncated input of each kind of merge
// (instrumented, MemProf, sample), with the arguments each merge needs.
type hostileKind struct {
	name      string
	args      []string // ours (with --llvm-version 22) and llvm-profdata-22's, before the inputs
	good, bad string
}

func hostileKinds(t *testing.T) []hostileKind {
	t.Helper()
	instr := instrFixtures(t)
	mem := fixtures(t)
	tmp := t.TempDir()
	goodRaw := filepath.Join(instr, "app-llvm22-ir-10.profraw")
	bin := filepath.Join(mem, "app-llvm22-nopie")
	goodMem := bin + "-a.memprofraw"
	goodSample, badSample := filepath.Join(tmp, "good.prof"), filepath.Join(tmp, "bad.prof")
	if err := os.WriteFile(goodSample, []byte(sampleText), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not a sample profile in any encoding: a bad input that --failure-mode
	// all and warn skip (one that is but does not decode fails any merge).
	if err := os.WriteFile(badSample, []byte("\x00\x01 not a profile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []hostileKind{
		{"instr", nil, goodRaw, truncated(t, goodRaw, tmp, "trunc.profraw", 100)},
		{"memprof", []string{"--profiled-binary", bin}, goodMem, truncated(t, goodMem, tmp, "trunc.memprofraw", 100)},
		{"sample", []string{"--sample", "--text"}, goodSample, badSample},
	}
}

// TestFailedMergeKeepsOutputs: a merge that fails because warnings are
// errors (--fatal-warnings, with a bad input under --failure-mode=warn or
// all) leaves the existing output, partial state and build id files as
// they were, for instrumented, MemProf and sample merges, and writes no
// state file where there was none.
func TestFailedMergeKeepsOutputs(t *testing.T) {
	for _, k := range hostileKinds(t) {
		for _, mode := range []string{"warn", "all"} {
			t.Run(k.name+"/"+mode, func(t *testing.T) {
				tmp := t.TempDir()
				out, state, id := filepath.Join(tmp, "out"), filepath.Join(tmp, "out.state"), filepath.Join(tmp, "id")
				os.WriteFile(out, []byte("old profile"), 0o644)
				os.WriteFile(id, []byte("old id"), 0o644)
				args := append([]string{"--llvm-version", "22", "--fatal-warnings", "--failure-mode=" + mode, "-o", out}, k.args...)
				if k.name == "memprof" {
					args = append(args, "--build-id-output", id, "--memprof-partial-state-output", state)
				}
				_, stderr, code := runTool(t, append(args, k.good, k.bad)...)
				if code != 1 || !strings.Contains(stderr, "treated as errors") {
					t.Fatalf("exit %d, want 1 with the warnings treated as errors: %s", code, stderr)
				}
				if b := readFile(t, out); string(b) != "old profile" {
					t.Errorf("the failed merge replaced the old output (%d bytes)", len(b))
				}
				if b := readFile(t, id); string(b) != "old id" {
					t.Errorf("the failed merge replaced the old build id file with %q", b)
				}
				if _, err := os.Stat(state); err == nil {
					t.Errorf("the failed merge left a partial state without its profile")
				}
				if ents, _ := os.ReadDir(tmp); len(ents) != 2 {
					t.Errorf("the failed merge left %d files in the output directory, want the 2 old ones", len(ents))
				}
			})
		}
	}
}

// TestNotRegularInputs: a FIFO (no writer), a character device (/dev/zero)
// and a socket given as inputs are skipped as llvm-profdata-22 skips them:
// alone, "no input files" and exit 1; beside a good input, the output is
// llvm-profdata's bytes for the same command line (our warning says what
// was skipped; LLVM says nothing). `show` refuses them at once
// (llvm-profdata show waits on the FIFO forever and reads /dev/zero until
// memory runs out: not compared).
func TestNotRegularInputs(t *testing.T) {
	odd := testenv.NotRegularFiles(t)
	for _, k := range hostileKinds(t) {
		for what, p := range odd {
			t.Run(k.name+"/"+what, func(t *testing.T) {
				tmp := t.TempDir()
				ours, theirs := filepath.Join(tmp, "ours"), filepath.Join(tmp, "llvm")
				_, stderr, code := runToolBounded(t, append(append([]string{"--llvm-version", "22", "-o", ours}, k.args...), p)...)
				lcode, lerr := llvmCode(t, "llvm-profdata-22", append(append([]string{"merge", "-o", theirs}, k.args...), p)...)
				if code != lcode || !strings.Contains(stderr, "no input files") {
					t.Errorf("alone: exit %d (%s), want llvm-profdata's %d (%s)", code, stderr, lcode, lerr)
				}
				_, stderr, code = runToolBounded(t, append(append([]string{"--llvm-version", "22", "-o", ours}, k.args...), p, k.good)...)
				if code != 0 || !strings.Contains(stderr, "skipped: "+map[string]string{"fifo": "a FIFO", "chardev": "a character device", "socket": "a socket"}[what]) {
					t.Fatalf("beside a good input: exit %d, want 0 with a warning: %s", code, stderr)
				}
				if lcode, lerr := llvmCode(t, "llvm-profdata-22", append(append([]string{"merge", "-o", theirs}, k.args...), p, k.good)...); lcode != 0 {
					t.Fatalf("llvm-profdata-22 exited %d: %s", lcode, lerr)
				}
				if !bytes.Equal(readFile(t, ours), readFile(t, theirs)) {
					t.Errorf("beside a good input: output differs from llvm-profdata-22's")
				}
			})
		}
	}
	for what, p := range odd {
		_, stderr, code := runToolBounded(t, "show", p)
		if code != 1 || !strings.Contains(stderr, p+": ") || strings.Count(stderr, p) != 1 {
			t.Errorf("show %s: exit %d, stderr %q; want 1 naming it once", what, code, stderr)
		}
	}
}

// TestEmptyInputs: a 0-byte .profraw and a 0-byte raw MemProf profile are
// skipped as llvm-profdata-16/19/22 skip them (in every failure mode,
// without a word): alone they give its empty profile, beside a good input
// its bytes, exit 0 both. A 0-byte sample profile is a bad sample
// input for both (exit 1, or a warning under --failure-mode=all).
func TestEmptyInputs(t *testing.T) {
	instr := instrFixtures(t)
	mem := fixtures(t)
	tmp := t.TempDir()
	for _, name := range []string{"empty.profraw", "empty.memprofraw"} {
		os.WriteFile(filepath.Join(tmp, name), nil, 0o644)
	}
	emptyRaw, emptyMem := filepath.Join(tmp, "empty.profraw"), filepath.Join(tmp, "empty.memprofraw")
	compare := func(t *testing.T, rel string, args []string, inputs ...string) {
		t.Helper()
		dir := t.TempDir()
		ours, theirs := filepath.Join(dir, "ours"), filepath.Join(dir, "llvm")
		_, stderr, code := runTool(t, append(append([]string{"--llvm-version", rel, "-o", ours}, args...), inputs...)...)
		if code != 0 || strings.Contains(stderr, "empty") {
			t.Fatalf("exit %d, stderr %q; want 0, nothing said", code, stderr)
		}
		lcode, lerr := llvmCode(t, "llvm-profdata-"+rel, append(append([]string{"merge", "--num-threads=1", "-o", theirs}, args...), inputs...)...)
		if lcode != 0 || lerr != "" {
			t.Fatalf("llvm-profdata-%s: exit %d, stderr %q", rel, lcode, lerr)
		}
		if w, g := readFile(t, theirs), readFile(t, ours); !bytes.Equal(w, g) {
			t.Errorf("output differs from llvm-profdata-%s's (%d vs %d bytes)", rel, len(w), len(g))
		}
	}
	for _, rel := range []string{"16", "19", "22"} {
		t.Run("llvm"+rel, func(t *testing.T) {
			compare(t, rel, nil, emptyRaw)
			compare(t, rel, nil, emptyMem)
			compare(t, rel, nil, emptyRaw, emptyMem)
			compare(t, rel, nil, emptyRaw, filepath.Join(instr, "app-llvm"+rel+"-ir-10.profraw"))
			bin := filepath.Join(mem, "app-llvm"+rel+"-nopie")
			compare(t, rel, []string{"--profiled-binary", bin}, emptyMem, bin+"-a.memprofraw")
			// Beside a bad input an empty one still counts as an input
			// that is not bad: under all and warn, llvm-profdata writes an
			// empty profile (the bad input warned about); under any it fails.
			raw := readFile(t, filepath.Join(instr, "app-llvm"+rel+"-ir-10.profraw"))
			badRaw := filepath.Join(t.TempDir(), "bad.profraw")
			os.WriteFile(badRaw, raw[:17], 0o644)
			for _, mode := range []string{"any", "all", "warn"} {
				if mode == "warn" && rel == "16" {
					continue // llvm-profdata-16 has no warn mode
				}
				dir := t.TempDir()
				ours, theirs := filepath.Join(dir, "ours"), filepath.Join(dir, "llvm")
				_, _, code := runTool(t, "--llvm-version", rel, "--failure-mode="+mode, "-o", ours, emptyRaw, badRaw)
				lcode, _ := llvmCode(t, "llvm-profdata-"+rel, "merge", "--failure-mode="+mode, "-o", theirs, emptyRaw, badRaw)
				if code != lcode {
					t.Errorf("--failure-mode=%s, an empty and a bad input: exit %d, llvm-profdata-%s %d", mode, code, rel, lcode)
				} else if code == 0 && !bytes.Equal(readFile(t, ours), readFile(t, theirs)) {
					t.Errorf("--failure-mode=%s, an empty and a bad input: output differs from llvm-profdata-%s's", mode, rel)
				}
			}
			// show: an error in llvm-profdata's words.
			for _, args := range [][]string{{"show", emptyRaw}, {"show", "--instr", emptyRaw}} {
				_, stderr, code := runTool(t, append([]string{"show", "--llvm-version", rel}, args[1:]...)...)
				lcode, lerr := llvmCode(t, "llvm-profdata-"+rel, args...)
				if code != lcode || !strings.Contains(stderr, emptyRaw+": empty raw profile file") || !strings.Contains(lerr, emptyRaw+": empty raw profile file") {
					t.Errorf("%s: exit %d, %q; llvm-profdata-%s exit %d, %q", strings.Join(args, " "), code, stderr, rel, lcode, lerr)
				}
			}
			for _, mode := range []string{"any", "all"} {
				out := filepath.Join(t.TempDir(), "out")
				args := []string{"--sample", "--text", "--failure-mode=" + mode, "-o", out, emptyRaw}
				_, _, code := runTool(t, append([]string{"--llvm-version", rel}, args...)...)
				if lcode, _ := llvmCode(t, "llvm-profdata-"+rel, append([]string{"merge"}, args...)...); code != lcode {
					t.Errorf("--sample --failure-mode=%s, an empty input: exit %d, llvm-profdata-%s %d", mode, code, rel, lcode)
				}
			}
		})
	}
}

// TestErrorsNameFileOnce: the message of every bad input (truncated
// inputs of every kind, a missing file, a directory, a FIFO), through
// merges of every kind and failure mode and through show, names the file
// once.
func TestErrorsNameFileOnce(t *testing.T) {
	tmp := t.TempDir()
	var bad []string
	var sets [][]string
	for _, k := range hostileKinds(t) {
		sets = append(sets, k.args)
		bad = append(bad, k.bad)
		data := readFile(t, k.good)
		for _, n := range []int{1, 9, 17, len(data) / 2, len(data) - 3} {
			bad = append(bad, truncated(t, k.good, tmp, "cut"+strconv.Itoa(n)+"-"+filepath.Base(k.good), n))
		}
	}
	idx := filepath.Join(instrFixtures(t), "app-llvm22-ir.profdata")
	for _, n := range []int{9, 40, 100, len(readFile(t, idx)) - 5} {
		bad = append(bad, truncated(t, idx, tmp, "cut"+strconv.Itoa(n)+".profdata", n))
	}
	bad = append(bad, filepath.Join(tmp, "nonexist"), t.TempDir(), testenv.NotRegularFiles(t)["fifo"])
	checked := 0
	check := func(args []string, p string) {
		t.Helper()
		_, stderr, code := runToolBounded(t, args...)
		if code == -1 {
			t.Errorf("merge %s: hangs", strings.Join(args, " "))
		}
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Count(line, p) > 1 {
				t.Errorf("merge %s: names %s more than once: %s", strings.Join(args, " "), p, line)
			}
		}
		checked++
	}
	for _, p := range bad {
		for _, args := range sets {
			for _, mode := range []string{"any", "all"} {
				check(append(append([]string{"--llvm-version", "22", "--failure-mode=" + mode, "-o", filepath.Join(tmp, "out")}, args...), p), p)
			}
		}
		check([]string{"show", p}, p)
	}
	t.Logf("%d messages about %d bad inputs checked", checked, len(bad))
}

// TestBadDebugSectionWarns: a profiled binary whose .debug_line lies
// outside the file is still used (its functions lose their lines, as
// llvm-profdata's symbolizer loses them), but merge and show say so on
// stderr, naming the binary once, instead of dropping the section silently.
func TestBadDebugSectionWarns(t *testing.T) {
	mem := fixtures(t)
	src := filepath.Join(mem, "app-llvm22-nopie")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var shoff uint64
	idx := -1
	for i, s := range ef.Sections {
		if s.Name == ".debug_line" {
			idx = i
		}
	}
	ef.Close()
	if idx < 0 {
		t.Fatal("fixture has no .debug_line")
	}
	shoff = binary.LittleEndian.Uint64(data[0x28:])
	shent := uint64(binary.LittleEndian.Uint16(data[0x3a:]))
	binary.LittleEndian.PutUint64(data[shoff+uint64(idx)*shent+24:], 1<<32) // sh_offset
	bad := filepath.Join(t.TempDir(), "bad-debug-line")
	if err := os.WriteFile(bad, data, 0o755); err != nil {
		t.Fatal(err)
	}
	raw := src + "-a.memprofraw"
	for _, args := range [][]string{
		{"merge", "--profiled-binary", bad, "-o", filepath.Join(t.TempDir(), "out.profdata"), raw},
		{"show", "--memory", "--profiled-binary", bad, raw},
	} {
		_, stderr, code := runToolBounded(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d, want 0\n%s", args[0], code, stderr)
		}
		if !strings.Contains(stderr, "warning: "+bad+": ") || !strings.Contains(stderr, ".debug_line") {
			t.Errorf("%s: no warning naming %s and .debug_line:\n%s", args[0], bad, stderr)
		}
		if strings.Contains(stderr, bad+": "+bad) {
			t.Errorf("%s: the binary is named twice:\n%s", args[0], stderr)
		}
	}
}
