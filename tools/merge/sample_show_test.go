package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestSampleShowConformance: `merge show --sample` prints what
// llvm-profdata-N show --sample prints, for each release and option, on
// the generated inputs (text and LLVM-written extbinary, MD5 and raw
// binary) and hand-written cases; -o writes the same bytes; exit status
// and warnings as LLVM's. (internal/sampleprof's TestShowConformance
// covers the whole corpus; this runs the command line.)
func TestSampleShowConformance(t *testing.T) {
	var n int
	for _, rel := range sampleReleases {
		tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
		sets := sampleInputs(t, rel)
		var files []string
		for _, set := range []string{"plain-mixed", "probe-mixed", "corpus"} {
			for _, in := range sets[set] {
				files = append(files, in.path)
			}
		}
		files = append(files, filepath.Join(sampleTestdata, "vtables.txt"), filepath.Join(sampleTestdata, "bad_count.txt"))
		for _, file := range files {
			for _, args := range [][]string{{}, {"--topn=3"}, {"--function=main"}, {"--function", "nothere"},
				{"--show-sec-info-only"}, {"--json"}, {"--show-format=json"}, {"--detailed-summary", "--topn=2"},
				{"--json", "--function=main"}, {"--all-functions", "--function=main"}, {"--show-format=yaml"}} {
				cmd := exec.Command(tool, append(append([]string{"show", "--sample"}, args...), file)...)
				var want, llvmErr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &want, &llvmErr
				err := cmd.Run()
				if _, ok := err.(*exec.ExitError); err != nil && !ok {
					t.Fatal(err)
				}
				ourArgs := append(append([]string{"show", "--sample", "--llvm-version", fmt.Sprint(rel)}, args...), file)
				got, stderr, code := runTool(t, ourArgs...)
				what := fmt.Sprintf("LLVM %d %s %v", rel, filepath.Base(file), args)
				if (err == nil) != (code == 0) {
					t.Errorf("%s: llvm-profdata: %v %s; we exit %d: %s", what, err, llvmErr.Bytes(), code, stderr)
					continue
				}
				if err != nil {
					continue
				}
				w := want.String()
				if got != w {
					t.Errorf("%s:\n%s\nwant\n%s", what, got, want.Bytes())
				}
				if strings.Contains(llvmErr.String(), "warning:") != strings.Contains(stderr, "warning:") {
					t.Errorf("%s: stderr %q, llvm-profdata's %q", what, stderr, llvmErr.Bytes())
				}
				n++
			}
		}
		// -o writes the same bytes.
		out := filepath.Join(t.TempDir(), "show.txt")
		file := filepath.Join(sampleTestdata, "probe.txt")
		if _, stderr, code := runTool(t, "show", "--sample", "--llvm-version", fmt.Sprint(rel), "--topn=2", "-o", out, file); code != 0 {
			t.Fatalf("LLVM %d -o: exit %d: %s", rel, code, stderr)
		}
		want, err := exec.Command(tool, "show", "--sample", "--topn=2", file).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("LLVM %d -o:\n%s\nwant\n%s", rel, got, want)
		}
	}
	// --show-prof-sym-list of a profile with a list; llvm-profdata
	// crashes on one without, where we fail.
	for _, rel := range sampleReleases {
		tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
		dir := t.TempDir()
		syms := filepath.Join(dir, "syms")
		os.WriteFile(syms, []byte("zed\nalpha\nmain\n"), 0o644)
		withList := filepath.Join(dir, "list.prof")
		basic := filepath.Join(sampleTestdata, "basic.txt")
		if out, err := exec.Command(tool, "merge", "--sample", "--extbinary", "--prof-sym-list="+syms, basic, "-o", withList).CombinedOutput(); err != nil {
			t.Fatalf("%s", out)
		}
		want, err := exec.Command(tool, "show", "--sample", "--show-prof-sym-list", "--detailed-summary", withList).Output()
		if err != nil {
			t.Fatal(err)
		}
		got, stderr, code := runTool(t, "show", "--sample", "--llvm-version", fmt.Sprint(rel), "--show-prof-sym-list", "--detailed-summary", withList)
		if code != 0 || got != string(want) {
			t.Errorf("LLVM %d --show-prof-sym-list: exit %d %s\n%s\nwant\n%s", rel, code, stderr, got, want)
		}
		if _, stderr, code := runTool(t, "show", "--sample", "--llvm-version", fmt.Sprint(rel), "--show-prof-sym-list", basic); code != 1 || !strings.Contains(stderr, "no profile symbol list") {
			t.Errorf("LLVM %d --show-prof-sym-list without a list: exit %d, %q", rel, code, stderr)
		}
		n++
	}
	t.Logf("%d outputs identical", n)
	if _, _, code := runTool(t, "show", "--sample", "--llvm-version", "17", filepath.Join(sampleTestdata, "basic.txt")); code != 2 {
		t.Errorf("--llvm-version 17: exit %d, want 2", code)
	}
}
