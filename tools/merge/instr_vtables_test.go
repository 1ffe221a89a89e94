package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestInstrShowVTables: `show --show-vtables` of the programs built with
// vtable value profiling (gen.sh's vtable mode, clang-19 and -22) prints
// byte for byte what llvm-profdata-N show prints, for the raw profile, the
// indexed one llvm-profdata-N merged (no vtable names: values print as
// empty names), the indexed one merged with --keep-vtable-symbols, and
// ours; with and without --all-functions, --function= and the other value
// views.
func TestInstrShowVTables(t *testing.T) {
	dir := instrFixtures(t)
	flagSets := [][]string{
		{"--show-vtables"},
		{"--show-vtables", "--all-functions"},
		{"--show-vtables", "--function=main", "--ic-targets"},
		{"--show-vtables", "--function=area"},
		{"--all-functions", "--counts", "--ic-targets", "--memop-sizes", "--show-vtables"},
	}
	for _, rel := range []int{19, 22} {
		r := fmt.Sprint(rel)
		tool := testenv.Tool(t, "llvm-profdata-"+r)
		for _, prog := range []string{"shapes", "app"} {
			t.Run(fmt.Sprintf("llvm%d/%s", rel, prog), func(t *testing.T) {
				var raws []string
				for _, i := range []string{"10", "3", "50"} {
					raws = append(raws, filepath.Join(dir, fmt.Sprintf("%s-llvm%d-vtable-%s.profraw", prog, rel, i)))
				}
				tmp := t.TempDir()
				indexed := llvmPartial(t, r, tmp, "all.profdata", raws...)
				keep := filepath.Join(tmp, "keep.profdata")
				mustRun(t, tool, append([]string{"merge", "--keep-vtable-symbols", "-o", keep}, raws...)...)
				ours := filepath.Join(tmp, "ours.profdata")
				oursMerge(t, ours, append([]string{"--llvm-version", r}, raws...)...)
				sawVTable := false
				for _, in := range []string{raws[2], indexed, keep, ours} {
					for _, flags := range flagSets {
						args := append(append([]string{"show"}, flags...), in)
						want, err := exec.Command(tool, args...).CombinedOutput()
						if err != nil {
							t.Fatalf("%s %v: %v\n%s", tool, args, err, want)
						}
						sawVTable = sawVTable || bytes.Contains(want, []byte("_ZTV"))
						var got, stderr bytes.Buffer
						if err := runShow(append(append([]string{"--llvm-version", r}, flags...), in), &got, &stderr); err != nil {
							t.Fatalf("show %v: %v", args, err)
						}
						if got.String() != string(want) {
							t.Errorf("show %s %s differs from llvm-profdata-%s:\n%s", strings.Join(flags, " "), filepath.Base(in), r, lineDiff(string(want), got.String()))
						}
					}
				}
				if prog == "shapes" && !sawVTable {
					t.Errorf("no vtable named in any output: the fixture has no vtable profile")
				}
			})
		}
	}
}

// TestInstrShowFormatRefused: --show-format=json|yaml (and --json) on an
// instrumented profile fail with llvm-profdata's words, before reading it;
// --show-vtables before LLVM 19 is a usage error.
func TestInstrShowFormatRefused(t *testing.T) {
	dir := instrFixtures(t)
	in := filepath.Join(dir, "shapes-llvm22-vtable-50.profraw")
	for _, flags := range [][]string{{"--show-format=json"}, {"--show-format=yaml"}, {"--json"}, {"--show-format", "yaml", "--all-functions"}} {
		for _, rel := range []string{"16", "19", "22"} {
			out, err := exec.Command(testenv.Tool(t, "llvm-profdata-"+rel), append(append([]string{"show"}, flags...), in)...).CombinedOutput()
			if err == nil {
				t.Fatalf("llvm-profdata-%s show %v: no error", rel, flags)
			}
			want := strings.TrimSuffix(strings.TrimPrefix(string(out), "error: "), "\n")
			stdout, stderr, code := runTool(t, append(append([]string{"show", "--llvm-version", rel}, flags...), in)...)
			if code != 1 || stdout != "" || !strings.HasSuffix(strings.TrimSpace(stderr), "error: "+want) {
				t.Errorf("show --llvm-version %s %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", rel, flags, code, stdout, stderr, want)
			}
		}
	}
	if _, stderr, code := runTool(t, "show", "--llvm-version", "16", "--show-vtables", in); code != 2 || !strings.Contains(stderr, "--show-vtables") {
		t.Errorf("--show-vtables with LLVM 16: exit %d, %q; want a usage error", code, stderr)
	}
}
