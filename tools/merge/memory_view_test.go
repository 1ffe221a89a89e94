package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestMemoryViews runs the views of `show --memory` on a raw profile: the
// hints on stdout, pprof and HTML into files (the views' content is
// checked against clang, go tool pprof and Chromium in internal/profview).
func TestMemoryViews(t *testing.T) {
	dir := fixtures(t)
	bin, raw := filepath.Join(dir, "app-llvm22-nopie"), filepath.Join(dir, "app-llvm22-nopie-a.memprofraw")
	stdout, stderr, code := runTool(t, "show", "--memory", "--hints", "--llvm-version", "22", "-mllvm", "-memprof-use-hot-hints",
		"--memprof-ave-lifetime-cold-threshold=0", "--profiled-binary", bin, raw)
	if code != 0 {
		t.Fatalf("--hints: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"-memprof-ave-lifetime-cold-threshold=0", "-memprof-use-hot-hints=true", "Summary:", "  total ", "- hint: ", "  why: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--hints output lacks %q:\n%s", want, stdout)
		}
	}
	tmp := t.TempDir()
	pb, html := filepath.Join(tmp, "a.pb.gz"), filepath.Join(tmp, "a.html")
	if _, stderr, code := runTool(t, "show", "--memory", "--format=pprof", "-o", pb, "--llvm-version", "22", "--profiled-binary", bin, raw); code != 0 {
		t.Fatalf("--format=pprof: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := profile.ParseData(data); err != nil || len(p.Sample) == 0 {
		t.Errorf("pprof output: %v (%d samples)", err, len(p.Sample))
	}
	if _, stderr, code := runTool(t, "show", "--memory", "--format", "html", "-o", html, "--llvm-version", "22", "--profiled-binary", bin, raw); code != 0 {
		t.Fatalf("--format=html: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), `id="summary-total-bytes"`) {
		t.Errorf("html output: %v", err)
	}
	rawB := filepath.Join(dir, "app-llvm22-nopie-b.memprofraw")
	stdout, stderr, code = runTool(t, "diff", "--llvm-version", "22", "--profiled-binary", bin, raw, rawB)
	if code != 0 || !strings.Contains(stdout, "Added (only in B): ") || !strings.Contains(stdout, "total bytes") {
		t.Errorf("diff: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestMemoryViewUsage: bad view options exit 2 with a message saying what to do.
func TestMemoryViewUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--memory", "--format=svg", "x"}, `unknown format "svg" (text, hints, pprof, html)`},
		{[]string{"show", "--sample", "--hints", "x"}, "apply to --memory"},
		{[]string{"show", "--sample", "--format=html", "-memprof-ave-lifetime-cold-threshold=1", "x"}, "--sample takes --format=pprof or html"},
		{[]string{"show", "--memory", "-memprof-ave-lifetime-cold-threshold=1", "x"}, "need --hints"},
		{[]string{"show", "--memory", "--hints", "--llvm-version", "19", "-memprof-use-hot-hints", "x"}, "clang 19 has no option -memprof-use-hot-hints"},
		{[]string{"show", "--memory", "--hints", "-mllvm", "-memprof-min-lifetime-cold-threshold=1", "x"}, "clang 22 has no option -memprof-min-lifetime-cold-threshold"},
		{[]string{"show", "--memory", "--hints", "-memprof-ave-lifetime-cold-threshold=soon", "x"}, "not an unsigned 32-bit integer"},
		{[]string{"show", "--memory", "--hints", "--llvm-version", "17", "x"}, "supported are"},
		{[]string{"diff", "a"}, "diff takes exactly two profiles"},
		{[]string{"diff", "--format=html", "a", "b"}, `unknown format "html" (text, pprof)`},
		{[]string{"diff", "--llvm-version", "19", "-memprof-use-hot-hints", "a", "b"}, "clang 19 has no option -memprof-use-hot-hints"},
	} {
		_, stderr, code := runTool(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want exit 2 containing %q", c.args, code, stderr, c.want)
		}
	}
}
