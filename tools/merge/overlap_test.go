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

// TestSampleOverlapCommand: `merge overlap --sample A B` prints what
// llvm-profdata-N overlap --sample prints (16, 19, 22), and exits as it does, on the
// generated inputs (plain, probe-based and CS; text, extbinary, MD5,
// raw binary), the text corpus (against basic.txt, bad files included)
// and pairs of different kinds. (internal/profview's
// TestSampleOverlapLLVM compares profiles of real programs.)
func TestSampleOverlapCommand(t *testing.T) {
	for _, rel := range sampleReleases {
		t.Run(fmt.Sprint(rel), func(t *testing.T) { testSampleOverlapCommand(t, rel) })
	}
}

func testSampleOverlapCommand(t *testing.T, rel int) {
	tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
	sets := sampleInputs(t, rel)
	var pairs [][2]string
	for _, set := range []string{"plain-mixed", "probe-mixed", "cs-mixed", "plain-md5", "cs-text", "corpus"} {
		ins := sets[set]
		for i := range ins {
			pairs = append(pairs, [2]string{ins[i].path, ins[(i+1)%len(ins)].path})
		}
	}
	pairs = append(pairs, [2]string{sets["plain-text"][0].path, sets["cs-text"][0].path},
		[2]string{sets["plain-text"][0].path, sets["probe-text"][0].path})
	files, err := filepath.Glob(filepath.Join(sampleTestdata, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		pairs = append(pairs, [2]string{filepath.Join(sampleTestdata, "basic.txt"), f})
	}
	same := 0
	for _, p := range pairs {
		for _, opts := range [][]string{nil, {"--value-cutoff=1"}} {
			args := append([]string{"overlap", "--sample", p[0], p[1]}, opts...)
			cmd := exec.Command(tool, args...)
			var want, llvmErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &want, &llvmErr
			err := cmd.Run()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatal(err)
			}
			got, stderr, code := runTool(t, append([]string{"overlap", "--llvm-version", fmt.Sprint(rel)}, args[1:]...)...)
			what := filepath.Base(p[0]) + " " + filepath.Base(p[1]) + " " + strings.Join(opts, " ")
			if (err == nil) != (code == 0) {
				t.Errorf("%s: llvm-profdata: %v %s; we exit %d: %s", what, err, llvmErr.Bytes(), code, stderr)
				continue
			}
			if err != nil {
				if m := strings.TrimPrefix(strings.TrimSpace(llvmErr.String()), "error: "); strings.HasPrefix(m, "cannot compare") && !strings.Contains(stderr, m) {
					t.Errorf("%s: stderr %q, want LLVM's %q", what, stderr, m)
				}
				continue
			}
			if got != want.String() {
				t.Errorf("%s:\n%s\nwant (llvm-profdata-%d)\n%s", what, got, rel, want.Bytes())
				continue
			}
			same++
		}
	}
	t.Logf("%d reports equal llvm-profdata-%d's", same, rel)
}

// TestSampleViewUsage: bad overlap and sample diff command lines exit 2
// with a message saying what to do.
func TestSampleViewUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"overlap", "--sample", "a"}, "overlap takes exactly two profiles"},
		{[]string{"overlap", "overlap_test.go", "main.go"}, "two sample profiles (--sample) or two instrumentation profiles"},
		{[]string{"overlap", "--sample", "--llvm-version", "17", "a", "b"}, "supported are"},
		{[]string{"diff", "--sample", "-memprof-ave-lifetime-cold-threshold=1", "a", "b"}, "do not apply to sample profiles"},
		{[]string{"diff", "--sample", "--llvm-version", "17", "a", "b"}, "supported are"},
	} {
		_, stderr, code := runTool(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %q: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
