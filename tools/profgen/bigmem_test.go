package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/profgen"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestMain lets the test binary stand in for the tool: with
// PROFGEN_TEST_AS_TOOL=1 it runs main, for the tests that measure the
// whole process. The tests' traces are short, which the tool reads without
// the parser's repeat cache (profgen.ShortTraceBytes): the tests read them
// through it, so that the differential tests check what the cache delivers
// against llvm-profgen (the path without it is --show-detailed-warning's,
// which they check too).
func TestMain(m *testing.M) {
	if os.Getenv("PROFGEN_TEST_AS_TOOL") == "1" {
		main()
		return
	}
	profgen.ShortTraceBytes = 0
	os.Exit(m.Run())
}

const mib = 1 << 20

// TestPeakRSSLongLine: a perf script whose second line is one LBR sample
// of 256 MiB (a real sample's branches repeated) is an error naming the
// line, a line being at most 16 MiB, and memory stays bounded: ours took
// 1.1 GB on it before (1.9 GB on a line of garbage); llvm-profgen-22
// reads it whole (0.58 GB) and accepts it. The bound is
// 128 MiB (76 MiB measured); under the race detector, which multiplies a
// process's memory, only the error is checked.
func TestPeakRSSLongLine(t *testing.T) {
	p := buildPrograms(t)[0]
	trace, err := os.ReadFile(p.lbr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(trace), "\n", 3)
	if len(lines) < 3 {
		t.Fatalf("%s: want at least 3 lines", p.lbr)
	}
	fields := strings.Fields(lines[1])
	entries := []byte(strings.Join(fields[1:], " ") + " ")
	tmp := t.TempDir()
	in := filepath.Join(tmp, "long.script")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(lines[0] + "\n " + fields[0] + " ")
	block := bytes.Repeat(entries, 4*mib/len(entries))
	for n := 0; n < 256*mib && err == nil; n += len(block) {
		_, err = f.Write(block)
	}
	if err == nil {
		_, err = f.WriteString("\n" + lines[2])
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.prof")
	cmd := exec.Command(os.Args[0], "--perfscript="+in, "--binary="+p.bin, "--format=text", "-o", out)
	cmd.Env = append(os.Environ(), "PROFGEN_TEST_AS_TOOL=1")
	r := testenv.PeakRSS(t, cmd)
	if want := "long.script: perfscript: trace at offset 0x"; r.Code != 1 || !strings.Contains(string(r.Stderr), want) ||
		!strings.Contains(string(r.Stderr), ": line 2: longer than 16 MiB") {
		t.Errorf("exit %d, stderr %q; want 1 and the error naming line 2", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("an output was written")
	}
	t.Logf("peak RSS %d MiB (llvm-profgen-22: 551 MiB)", r.PeakRSS/mib)
	if !testenv.Race && r.PeakRSS > 128*mib {
		t.Errorf("peak RSS %d MiB, want at most 128 MiB", r.PeakRSS/mib)
	}
}
