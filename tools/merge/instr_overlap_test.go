package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestInstrDiffOverlap: `merge diff A B` of instrumented profiles opens
// with llvm-profdata-22 overlap A B's report, byte for byte (program and
// function level, edge and value-profile overlaps, mismatched and
// test-only functions), for pairs of gen.sh's fixture profiles: raw
// against raw, indexed against raw, each mode (IR, front end, entry,
// vtable with its value profiles, no value profiling, context-sensitive
// with --cs), with --function and --value-cutoff, and two programs
// against each other. Where a profile's counts sum to 0, llvm-profdata
// prints nothing (it exits before flushing) and the diff says so.
func TestInstrDiffOverlap(t *testing.T) {
	dir := instrFixtures(t)
	tool := testenv.Tool(t, "llvm-profdata-22")
	raw := func(prog, mode, i string) string {
		return filepath.Join(dir, fmt.Sprintf("%s-llvm22-%s-%s.profraw", prog, mode, i))
	}
	compared, zero := 0, 0
	for _, prog := range []string{"app", "shapes"} {
		for _, mode := range []string{"ir", "fe", "entry", "vtable", "novp", "cs"} {
			indexed := llvmPartial(t, "22", t.TempDir(), "a.profdata", raw(prog, mode, "3"), raw(prog, mode, "10"))
			var extra []string
			if mode == "cs" {
				extra = []string{"--cs"}
			}
			for _, c := range [][]string{
				{raw(prog, mode, "3"), raw(prog, mode, "50")},
				{raw(prog, mode, "50"), raw(prog, mode, "10")},
				{indexed, raw(prog, mode, "50")},
				{"--value-cutoff=3", raw(prog, mode, "10"), indexed},
				{"--function=a", raw(prog, mode, "50"), raw(prog, mode, "3")},
				{"--cs", raw(prog, mode, "3"), raw(prog, mode, "50")},
			} {
				args := append(append([]string{}, extra...), c...)
				want, err := exec.Command(tool, append([]string{"overlap"}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("llvm-profdata-22 overlap %v: %v\n%s", args, err, want)
				}
				got, stderr, code := runTool(t, append([]string{"diff"}, args...)...)
				if code != 0 {
					t.Fatalf("diff %v: exit %d: %s", args, code, stderr)
				}
				if len(want) == 0 {
					zero++
					if !strings.HasPrefix(got, "Sum of edge counts for profile ") || strings.Count(got, "\n") != 1 {
						t.Errorf("diff %v: llvm-profdata prints nothing (counts sum to 0); got %q", args, got)
					}
					continue
				}
				compared++
				if ov, stderr, code := runTool(t, append([]string{"overlap"}, args...)...); code != 0 || ov != string(want) {
					t.Errorf("overlap %v (exit %d, %s) differs from llvm-profdata-22 overlap:\n%s", args, code, stderr, lineDiff(string(want), ov))
				}
				if !strings.HasPrefix(got, string(want)) || len(got) > len(want) && got[len(want)] != '\n' {
					t.Errorf("diff %v differs from llvm-profdata-22 overlap:\n%s", args, lineDiff(string(want), got[:min(len(got), len(want))]))
				}
				if !strings.Contains(got, "Functions whose share of the edge counts changed most") {
					t.Errorf("diff %v: no list of changed functions", args)
				}
			}
		}
	}
	for _, args := range [][]string{
		{raw("app", "ir", "3"), raw("shapes", "ir", "3")},
		{raw("shapes", "vtable", "50"), raw("app", "vtable", "10")},
	} {
		want, err := exec.Command(tool, append([]string{"overlap"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("llvm-profdata-22 overlap %v: %v\n%s", args, err, want)
		}
		got, _, _ := runTool(t, append([]string{"diff"}, args...)...)
		compared++
		if !strings.HasPrefix(got, string(want)) {
			t.Errorf("diff %v differs from llvm-profdata-22 overlap:\n%s", args, lineDiff(string(want), got[:min(len(got), len(want))]))
		}
	}
	t.Logf("%d pairs byte-identical to llvm-profdata-22 overlap, %d with a zero sum", compared, zero)
}
