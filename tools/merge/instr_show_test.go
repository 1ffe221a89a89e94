package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestInstrShow: `merge show` of .profraw and indexed profiles prints what
// llvm-profdata-N show prints (N = 16, 19, 22), for every fixture mode and
// the flags that select functions, counts, value sites, the detailed
// summary (also at --detailed-summary-cutoffs given unsorted, repeated and
// above 10^6), binary ids and the hottest functions (ties included),
// --text, --covered, --value-cutoff, --list-below-cutoff,
// --profile-version (a raw file's whole version field, an indexed file's
// index version) and, from 19, --temporal-profile-traces (every mode: the
// temporal one's traces, the others' empty list).
func TestInstrShow(t *testing.T) {
	dir := instrFixtures(t)
	flagSets := [][]string{
		nil,
		{"--all-functions", "--counts", "--ic-targets", "--memop-sizes"},
		{"--topn=2", "--detailed-summary", "--binary-ids", "--function=a"},
		{"--topn=5", "--showcs", "--all-functions", "--counts"},
		{"--text", "--all-functions"},
		{"--covered"},
		{"--value-cutoff=10", "--list-below-cutoff"},
		{"--value-cutoff=5", "--topn=3", "--function=a", "--detailed-summary"},
		{"--profile-version", "--detailed-summary", "--detailed-summary-cutoffs=990000,100000,100000,2000000"},
	}
	for _, rel := range instrproftest.Releases {
		r := fmt.Sprint(rel)
		tool := testenv.Tool(t, "llvm-profdata-"+r)
		for _, mode := range instrproftest.Modes(llvmrelease.Release(rel)) {
			for _, prog := range []string{"app", "shapes"} {
				t.Run(fmt.Sprintf("llvm%d/%s-%s", rel, prog, mode), func(t *testing.T) {
					var raws []string
					for _, i := range []string{"10", "3", "50"} {
						raws = append(raws, filepath.Join(dir, fmt.Sprintf("%s-llvm%d-%s-%s.profraw", prog, rel, mode, i)))
					}
					indexed := llvmPartial(t, r, t.TempDir(), "all.profdata", raws...)
					for _, in := range []string{raws[2], indexed} {
						sets := flagSets
						if rel >= 19 {
							sets = append(sets[:len(sets):len(sets)], []string{"--temporal-profile-traces", "--profile-version", "--topn=1"})
						}
						for _, flags := range sets {
							args := append(append([]string{"show"}, flags...), in)
							want, err := exec.Command(tool, args...).CombinedOutput()
							if err != nil {
								t.Fatalf("%s %v: %v\n%s", tool, args, err, want)
							}
							var got, stderr bytes.Buffer
							if err := runShow(append(append([]string{"--llvm-version", r}, flags...), in), &got, &stderr); err != nil {
								t.Fatalf("show %v: %v", args, err)
							}
							if got.String() != string(want) {
								t.Errorf("show %s %s differs from llvm-profdata-%s:\n%s", strings.Join(flags, " "), filepath.Base(in), r, lineDiff(string(want), got.String()))
							}
						}
					}
				})
			}
		}
	}
}

// TestInstrShowTraces: --temporal-profile-traces of profiles whose traces
// were sampled (150 runs of gen-extra.sh's order program merged by
// llvm-profdata-N at the default reservoir and at 7), and of one raw,
// prints what llvm-profdata-N show prints, N = 19, 22.
func TestInstrShowTraces(t *testing.T) {
	dir := instrproftest.Extra(t)
	for _, rel := range []int{19, 22} {
		r := fmt.Sprint(rel)
		tool := testenv.Tool(t, "llvm-profdata-"+r)
		var raws []string
		for k := range 150 {
			raws = append(raws, filepath.Join(dir, fmt.Sprintf("order-llvm%d-temporal-%d.profraw", rel, k)))
		}
		tmp := t.TempDir()
		ins := []string{raws[7], llvmPartial(t, r, tmp, "all.profdata", raws...),
			llvmPartial(t, r, tmp, "seven.profdata", append([]string{"--temporal-profile-trace-reservoir-size=7"}, raws...)...)}
		for _, in := range ins {
			args := []string{"show", "--temporal-profile-traces", in}
			want, err := exec.Command(tool, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", tool, args, err, want)
			}
			var got, stderr bytes.Buffer
			if err := runShow([]string{"--llvm-version", r, "--temporal-profile-traces", in}, &got, &stderr); err != nil {
				t.Fatalf("show %v: %v", args, err)
			}
			if got.String() != string(want) {
				t.Errorf("llvm%d: show --temporal-profile-traces %s differs from llvm-profdata-%s:\n%s", rel, filepath.Base(in), r, lineDiff(string(want), got.String()))
			}
		}
	}
}

// lineDiff names the first line where got differs from want.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  llvm: %q\n  ours: %q", i+1, a, b)
		}
	}
	return ""
}

// TestInstrShowCLI: `merge show` picks the instrumented view for a
// .profraw and for an indexed profile without MemProf data, --instr
// forces it, and instr flags with --memory are a usage error.
func TestInstrShowCLI(t *testing.T) {
	dir := instrFixtures(t)
	raw := filepath.Join(dir, "app-llvm22-ir-3.profraw")
	out, stderr, code := runTool(t, "show", "--counts", "--all-functions", raw)
	if code != 0 || !strings.Contains(out, "Block counts: [") {
		t.Errorf("show of a .profraw: exit %d, %q %q", code, out, stderr)
	}
	if _, stderr, code := runTool(t, "show", "--memory", "--counts", raw); code != 2 || !strings.Contains(stderr, "--instr") {
		t.Errorf("--memory --counts: exit %d, %q; want a usage error", code, stderr)
	}
	if _, stderr, code := runTool(t, "show", "--llvm-version", "16", "--temporal-profile-traces", raw); code != 2 || !strings.Contains(stderr, "17 and later") {
		t.Errorf("--llvm-version 16 --temporal-profile-traces: exit %d, %q; want a usage error", code, stderr)
	}
	if _, stderr, code := runTool(t, "show", "--detailed-summary-cutoffs=1,x", raw); code != 2 || !strings.Contains(stderr, "parts per million") {
		t.Errorf("--detailed-summary-cutoffs=1,x: exit %d, %q; want a usage error", code, stderr)
	}
	bin := filepath.Join(dir, "shapes-llvm22-mem")
	both := filepath.Join(t.TempDir(), "both.profdata")
	oursMerge(t, both, "--profiled-binary", bin, bin+".profraw", bin+".memprofraw")
	if out, stderr, code := runTool(t, "show", "--instr", both); code != 0 || !strings.Contains(out, "Instrumentation level: IR") {
		t.Errorf("show --instr of PGO+MemProf: exit %d, %q %q", code, out, stderr)
	}
	if out, _, code := runTool(t, "show", both); code != 0 || strings.Contains(out, "Instrumentation level") {
		t.Errorf("show of PGO+MemProf without --instr should stay the MemProf YAML (exit %d)", code)
	}
}
