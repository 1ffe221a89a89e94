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
// `strace -f -e trace=openat` and returns how many times each path was
// opened successfully, by the path as the process named it. The command
// must succeed.
func Opens(t testing.TB, env []string, argv ...string) map[string]int {
	t.Helper()
	strace := Tool(t, "strace")
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, append([]string{"-f", "-qq", "-e", "trace=openat", "-o", log}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, m := range openatRe.FindAllStringSubmatch(string(data), -1) {
		n[m[1]]++
	}
	return n
}
