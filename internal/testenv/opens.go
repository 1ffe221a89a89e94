package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// openatRe matches a successful openat line of `strace -f -e trace=openat`
// (with or without the pid column): the path and the descriptor.
var openatRe = regexp.MustCompile(`openat\((?:AT_FDCWD|\d+), "((?:[^"\\]|\\.)*)", [^)]*\) = (\d+)`)

// Opens runs argv (with env added to the environment) under
// `strace -ff -e trace=openat` and returns how many times each path was
// opened successfully, by the path as the process named it. The command
// must succeed.
func Opens(t testing.TB, env []string, argv ...string) map[string]int {
	t.Helper()
	strace := Tool(t, "strace")
	// -ff: one log per thread, so a call is never split into
	// "<unfinished ...>" and "<... openat resumed>" lines by another
	// thread's (which -f alone does, and which hid opens from the count).
	dir := t.TempDir()
	cmd := exec.Command(strace, append([]string{"-ff", "-qq", "-e", "trace=openat", "-o", filepath.Join(dir, "trace")}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	logs, err := filepath.Glob(filepath.Join(dir, "trace.*"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("strace wrote no log in %s: %v", dir, err)
	}
	var data []byte
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	n := map[string]int{}
	for _, m := range openatRe.FindAllStringSubmatch(string(data), -1) {
		n[m[1]]++
	}
	return n
}
