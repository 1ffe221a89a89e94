package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestNotRegularInputs: a perf script that is a pipe is read as
// llvm-profgen-22 reads it (`--perfscript=<(perf script ...)`); a
// character device (/dev/zero, which llvm-profgen reads until memory runs
// out) as --perfscript, and a FIFO or a character device as --binary, are
// refused at once, naming the file.
func TestNotRegularInputs(t *testing.T) {
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "t.c"), filepath.Join(dir, "t")
	os.WriteFile(src, []byte("int work(int x) { return x * 3; }\nint main(void) { return work(1); }\n"), 0o644)
	if out, err := exec.Command(testenv.Tool(t, "clang-22"), "-g", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("clang-22: %v\n%s", err, out)
	}
	odd := testenv.NotRegularFiles(t)
	zero, fifo := odd["chardev"], odd["fifo"]
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--perfscript=" + zero, "--binary=" + bin}, zero + ": not a regular file: a character device"},
		{[]string{"--perfscript=" + src, "--binary=" + zero}, zero + ": not a regular file: a character device"},
		{[]string{"--perfscript=" + src, "--binary=" + fifo}, fifo + ": not a regular file: a FIFO"},
	} {
		_, err := runOurs(t, append(c.args, "-o", out, "--llvm-version", "22"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	// A pipe with a writer: read to its end, by both.
	script := "not a perf script\n"
	feed := func() {
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString(script)
				f.Close()
			}
		}()
	}
	feed()
	_, err := runOurs(t, []string{"--perfscript=" + fifo, "--binary=" + bin, "-o", out, "--llvm-version", "22"})
	feed()
	ref, rerr := exec.Command(testenv.Tool(t, "llvm-profgen-22"), "--perfscript="+fifo, "--binary="+bin, "--output="+out).CombinedOutput()
	if err == nil || rerr == nil || !strings.Contains(err.Error(), "Invalid perf script input!") || !strings.Contains(string(ref), "Invalid perf script input!") {
		t.Errorf("a pipe with a bad script: ours %v; llvm-profgen-22 %v: %s", err, rerr, ref)
	}
}
