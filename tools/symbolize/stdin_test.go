package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// stdinRequests are lines that llvm-symbolizer's fgets into 1024 bytes
// cuts or ends where a line reader would not: a request is at most 1023
// bytes, a C string up to a NUL, without its '\r' and '\n' bytes.
func stdinRequests(addr string) string {
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	return strings.Join([]string{
		pad(addr, 1023) + addr,           // the second request is the address
		pad(addr, 1022) + "0" + addr[1:], // cut inside a number
		pad(addr, 1022),                  // 1022 bytes and '\n': one request
		pad(addr, 1023),                  // 1023 bytes, then '\n' alone: an empty request
		addr + "\x00garbage",             // the C string ends at the NUL
		addr + "\r",
		"",
		strings.Repeat("y", 3000),
		strings.Repeat(addr+" ", 400), // several requests, cut anywhere
		addr,                          // no newline at the end
	}, "\n")
}

// TestStdinRequestsAsFgets: stdin is cut into requests as llvm-symbolizer
// 19 and 22 cut it, so long lines, NUL bytes and CRs get the same answers.
func TestStdinRequestsAsFgets(t *testing.T) {
	fx := buildFixtures(t)[0]
	in := stdinRequests("0x1139")
	for _, v := range []string{"19", "22"} {
		cmd := exec.Command(testenv.Tool(t, "llvm-symbolizer-"+v), "--obj="+fx.path)
		cmd.Stdin = strings.NewReader(in)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("llvm-symbolizer-%s: %v", v, err)
		}
		got, stderr, code := runTool(t, in, "--obj="+fx.path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got != string(want) {
			t.Errorf("answers differ from llvm-symbolizer-%s:\n--- llvm:\n%s\n--- ours:\n%s", v, want, got)
		}
	}
}

// lineReader is a line of n bytes 'y' and a newline, then an address.
type lineReader struct{ n int }

func (r *lineReader) Read(p []byte) (int, error) {
	if r.n < 0 {
		return 0, io.EOF
	}
	if r.n == 0 {
		r.n = -1
		return copy(p, "\n0x1139\n"), nil
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'y'
	}
	r.n -= k
	return k, nil
}

// TestPeakRSSStdinLongLine: a line of 256 MiB on stdin (streamed through
// a pipe) is answered in requests of 1023 bytes as llvm-symbolizer-22
// answers it, in bounded memory: llvm-symbolizer-22 stays at 63 MB, ours
// took 622 MB for 300 MB before (1.96 GB for 1 GB), 17 MB now. The bound
// is llvm-symbolizer's 63 MB; under the race detector, which multiplies a
// process's memory, only the answers are checked (of a 4 MiB line). 64
// MiB by default, 256 MiB with RULES_PGO_BIG_TESTS=1.
func TestPeakRSSStdinLongLine(t *testing.T) {
	fx := buildFixtures(t)[0]
	n := 64 << 20
	switch {
	case testenv.BigTests():
		n = 256 << 20
	case testenv.Race: // the answers only, at the race detector's pace
		n = 4 << 20
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--obj="+fx.path)
	cmd.Env = append(os.Environ(), "SYMBOLIZE_TEST_AS_TOOL=1")
	cmd.Stdin = &lineReader{n: n}
	r := testenv.PeakRSS(t, cmd)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	// One answer per request: ceil(n/1023) of the line, one for the address.
	if got, want := bytes.Count(r.Stdout, []byte("\n\n")), (n+1022)/1023+1; got != want {
		t.Errorf("%d answers, want %d", got, want)
	}
	t.Logf("%d MiB line: peak RSS %d MiB (llvm-symbolizer-22: 60 MiB)", n>>20, r.PeakRSS>>20)
	if !testenv.Race && r.PeakRSS > 60<<20 {
		t.Errorf("peak RSS %d MiB, want at most llvm-symbolizer-22's 60 MiB", r.PeakRSS>>20)
	}
}
