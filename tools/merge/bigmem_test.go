package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Memory proportional to the data kept, whatever the input's size or
// shape: the tool runs as a subprocess on inputs built here, and its peak
// resident set (the whole process) is held to a bound. The figures of the
// LLVM tools quoted below were measured on this kind of input with
// /usr/bin/time -v.

const mib = 1 << 20

// runToolRSS runs the merge tool as a subprocess and returns its run.
func runToolRSS(t *testing.T, args ...string) testenv.Run {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MERGE_TEST_AS_TOOL=1")
	return testenv.PeakRSS(t, cmd)
}

// sparseCopy writes src to dst, extended with a hole to size bytes (zeros
// that take no disk).
func sparseCopy(t *testing.T, dst string, src []byte, size int64) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(src); err == nil {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestPeakRSSRawMemProf2GiB: a raw MemProf profile of 2 GiB + 4 KiB (a
// real dump whose TotalSize says 2 GiB + 4 KiB, the rest zeros: LLVM's
// reader takes the padding and gives the same output) is read without
// copying it. llvm-profdata-22 reads it into memory: 2.16 GB, 13 s; ours
// maps it and reads only the dump's pages. Before, bytes.Buffer doubled
// past 2^31: 8.4 GB and 54 s.
func TestPeakRSSRawMemProf2GiB(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm22-nopie")
	raw := readFile(t, bin+"-a.memprofraw")
	const size = 1<<31 + 4096
	big := append([]byte(nil), raw...)
	binary.LittleEndian.PutUint64(big[16:], size) // TotalSize
	tmp := t.TempDir()
	in := filepath.Join(tmp, "big.memprofraw")
	sparseCopy(t, in, big, size)
	want := filepath.Join(tmp, "llvm.profdata")
	mustRun(t, "llvm-profdata-22", "merge", "--profiled-binary", bin, "-o", want, bin+"-a.memprofraw")
	got := filepath.Join(tmp, "ours.profdata")
	r := runToolRSS(t, "--llvm-version", "22", "--profiled-binary", bin, "-o", got, in)
	if r.Code != 0 {
		t.Fatalf("merge exited %d: %s", r.Code, r.Stderr)
	}
	if !bytes.Equal(readFile(t, got), readFile(t, want)) {
		t.Errorf("output differs from llvm-profdata-22's for the unpadded profile")
	}
	t.Logf("peak RSS %d MiB (llvm-profdata-22: 2060 MiB)", r.PeakRSS/mib)
	if r.PeakRSS > 128*mib {
		t.Errorf("peak RSS %d MiB, want at most 128 MiB: a 2 GiB input must not be read into memory", r.PeakRSS/mib)
	}
}

// TestPeakRSSProfrawConcatenated: a .profraw of concatenated profiles is
// folded a profile at a time from a mapping, not kept whole: the output is
// llvm-profdata's, the peak RSS at most half LLVM's (which reads the file
// into memory) and 128 MiB. A 500 MB concatenation took 2.94 GB before
// (llvm-profdata-22: 0.63 GB), 65 MB now. The file is 96 MiB by default
// (enough to be mapped), 2 GiB + 4 KiB with RULES_PGO_BIG_TESTS=1.
func TestPeakRSSProfrawConcatenated(t *testing.T) {
	dir := instrFixtures(t)
	var one []byte
	for _, n := range []string{"3", "10", "50"} { // value profiles and different counts
		one = append(one, readFile(t, filepath.Join(dir, "shapes-llvm22-ir-"+n+".profraw"))...)
	}
	size := int64(96 * mib)
	if testenv.BigTests() {
		size = 1<<31 + 4096
	}
	tmp := t.TempDir()
	in := filepath.Join(tmp, "big.profraw")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat(one, int(4*mib)/len(one))
	var written int64
	for written+int64(len(chunk)) <= size && err == nil {
		_, err = f.Write(chunk)
		written += int64(len(chunk))
	}
	for written+int64(len(one)) <= size && err == nil {
		_, err = f.Write(one)
		written += int64(len(one))
	}
	if err == nil {
		err = f.Truncate(size) // zero padding: LLVM skips it as ours does
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(tmp, "llvm.profdata")
	cmd := exec.Command(testenv.Tool(t, "llvm-profdata-22"), "merge", "-o", want, in)
	ref := testenv.PeakRSS(t, cmd)
	if ref.Code != 0 {
		t.Fatalf("llvm-profdata-22 exited %d: %s", ref.Code, ref.Stderr)
	}
	got := filepath.Join(tmp, "ours.profdata")
	r := runToolRSS(t, "--llvm-version", "22", "-o", got, in)
	if r.Code != 0 {
		t.Fatalf("merge exited %d: %s", r.Code, r.Stderr)
	}
	if !bytes.Equal(readFile(t, got), readFile(t, want)) {
		t.Errorf("output differs from llvm-profdata-22's")
	}
	t.Logf("%d MiB input: peak RSS %d MiB, llvm-profdata-22 %d MiB", size/mib, r.PeakRSS/mib, ref.PeakRSS/mib)
	if r.PeakRSS > ref.PeakRSS/2 || r.PeakRSS > 128*mib {
		t.Errorf("peak RSS %d MiB, want at most half llvm-profdata-22's %d MiB and 128 MiB", r.PeakRSS/mib, ref.PeakRSS/mib)
	}
}

// TestConcatenatedProfrawBadTail: a .profraw whose last profile is
// truncated adds nothing under --failure-mode=all, although its first
// profiles were decoded before the error was found (llvm-profdata keeps
// the records it read before the error: ours does not, on purpose).
func TestConcatenatedProfrawBadTail(t *testing.T) {
	dir := instrFixtures(t)
	a := readFile(t, filepath.Join(dir, "shapes-llvm22-ir-3.profraw"))
	b := readFile(t, filepath.Join(dir, "shapes-llvm22-ir-10.profraw"))
	good := filepath.Join(dir, "shapes-llvm22-ir-50.profraw")
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.profraw")
	if err := os.WriteFile(bad, append(append(append([]byte(nil), a...), b...), a[:len(a)/2]...), 0o644); err != nil {
		t.Fatal(err)
	}
	want, got := filepath.Join(tmp, "want.profdata"), filepath.Join(tmp, "got.profdata")
	if r := runToolRSS(t, "-o", want, good); r.Code != 0 {
		t.Fatalf("merge exited %d: %s", r.Code, r.Stderr)
	}
	r := runToolRSS(t, "--failure-mode=all", "-o", got, good, bad)
	if r.Code != 0 {
		t.Fatalf("merge exited %d: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(string(r.Stderr), "bad.profraw") {
		t.Errorf("no warning names the bad input:\n%s", r.Stderr)
	}
	if !bytes.Equal(readFile(t, got), readFile(t, want)) {
		t.Errorf("a bad input changed the output")
	}
}

// TestPeakRSSSampleTextLongLine: a text sample profile with a 256 MiB
// line is an error naming the line (a line is at most 16 MiB), read with
// no copy beyond the file: llvm-profdata-22 takes 0.32 GB for such a file
// (it accepts the line), ours took 1.58 GB before (a quoted copy of the
// line in the error), 0.27 GB now; the bound is llvm-profdata's.
func TestPeakRSSSampleTextLongLine(t *testing.T) {
	tmp := t.TempDir()
	in := filepath.Join(tmp, "long.txt")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	const n = 256 * mib
	_, err = fmt.Fprintf(f, "main:100:10\n 1: 10\n 2: 5 _Z")
	block := bytes.Repeat([]byte("f"), mib)
	for i := 0; i < n/mib && err == nil; i++ {
		_, err = f.Write(block)
	}
	if err == nil {
		_, err = f.WriteString(":5\n")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.txt")
	r := runToolRSS(t, "--sample", "--text", "-o", out, in)
	if r.Code != 1 || !strings.Contains(string(r.Stderr), "long.txt: sampleprof: text at offset 0x13: line 3: longer than 16 MiB") {
		t.Errorf("exit %d, stderr %q; want 1 and the error naming line 3", r.Code, r.Stderr)
	}
	if len(r.Stderr) > 1024 {
		t.Errorf("error message of %d bytes: the line is quoted whole", len(r.Stderr))
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("an output was written")
	}
	t.Logf("peak RSS %d MiB (llvm-profdata-22: 308 MiB)", r.PeakRSS/mib)
	if r.PeakRSS > 308*mib {
		t.Errorf("peak RSS %d MiB, want at most llvm-profdata-22's 308 MiB", r.PeakRSS/mib)
	}
}
