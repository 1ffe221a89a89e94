package testenv

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// BigTests reports whether the large sizes of the memory tests are wanted
// (RULES_PGO_BIG_TESTS=1): inputs of gigabytes that take more time than
// the CI budget allows on every run. The tests state the size they use
// by default.
func BigTests() bool { return os.Getenv("RULES_PGO_BIG_TESTS") == "1" }

// Run is a finished subprocess: its output, exit code and peak memory.
type Run struct {
	Stdout, Stderr []byte
	Code           int
	// PeakRSS is the child's peak resident set size in bytes
	// (getrusage's ru_maxrss): the whole process, as a user sees it.
	PeakRSS int64
}

// PeakRSS runs cmd (its Stdout and Stderr must be unset) and returns what
// it printed, its exit code and its peak resident set size. A command
// that cannot be started fails the test.
func PeakRSS(t testing.TB, cmd *exec.Cmd) Run {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Run{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	r.Code = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return r
}
