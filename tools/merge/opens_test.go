package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestOpensBinaryOnce: a merge of raw MemProf profiles against
// --profiled-binary opens the binary once and each input once, as strace
// sees the process (profmerge classifies an input from one read of its
// head and loads it from the same open file).
func TestOpensBinaryOnce(t *testing.T) {
	dir := fixtures(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bin  string
		raws []string
	}{
		{"app-llvm22-nopie", []string{"app-llvm22-nopie-a.memprofraw", "app-llvm22-nopie-b.memprofraw", "app-llvm22-nopie-dump.memprofraw"}},
		{"app-llvm22-pie", []string{"app-llvm22-pie-a.memprofraw"}},
	} {
		t.Run(c.bin, func(t *testing.T) {
			bin := filepath.Join(dir, c.bin)
			argv := []string{self, "--profiled-binary=" + bin, "-o", filepath.Join(t.TempDir(), "out.profdata")}
			for _, r := range c.raws {
				argv = append(argv, filepath.Join(dir, r))
			}
			opens := testenv.Opens(t, []string{"MERGE_TEST_AS_TOOL=1"}, argv...)
			if opens[bin] != 1 {
				t.Errorf("%s opened %d times, want once", bin, opens[bin])
			}
			for _, r := range argv[4:] {
				if opens[r] != 1 {
					t.Errorf("%s opened %d times, want once", r, opens[r])
				}
			}
		})
	}
}
