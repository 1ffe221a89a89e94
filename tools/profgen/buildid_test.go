package main

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// elfBuildID reads the GNU build id note with the standard library (not
// the code under test).
func elfBuildID(t *testing.T, bin string) string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		t.Fatalf("%s: no .note.gnu.build-id", bin)
	}
	d, err := s.Data()
	if err != nil || len(d) < 16 {
		t.Fatalf("%s: build id note: %v", bin, err)
	}
	return hex.EncodeToString(d[16:])
}

// withBuildID rewrites the trace's MMAP2 lines as `perf record
// --buildid-mmap` prints them: "<build id>" in place of "maj:min ino gen".
func withBuildID(t *testing.T, trace, id, out string) {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^(PERF_RECORD_MMAP2 [^\]]* @ (?:0x[0-9a-f]+|0)) [^\]]*\]`)
	n := len(re.FindAll(data, -1))
	if n == 0 {
		t.Fatalf("%s: no PERF_RECORD_MMAP2 line", trace)
	}
	data = re.ReplaceAll(data, []byte("$1 <"+id+">]"))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildID: a trace carrying build ids gives llvm-profgen-19's bytes
// when they match the binary; a trace of another build fails naming both
// ids, as does --trace-build-id with another id; no output is written.
func TestBuildID(t *testing.T) {
	progs := buildPrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-19")
	p, other := progs[0], progs[len(progs)-1]
	id, otherID := elfBuildID(t, p.bin), elfBuildID(t, other.bin)
	if id == otherID {
		t.Fatal("test programs share a build id")
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.script"), filepath.Join(dir, "bad.script")
	withBuildID(t, p.lbr, id, good)
	withBuildID(t, p.lbr, otherID, bad)

	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	if out, err := exec.Command(ref, "--perfscript="+good, "--binary="+p.bin, "--output="+refOut).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profgen-19: %v\n%s", err, out)
	}
	if msg, err := runOurs(t, []string{"--perfscript=" + good, "--binary=" + p.bin, "-o", ourOut, "--trace-build-id=" + strings.ToUpper(id)}); err != nil {
		t.Fatalf("profgen: %v\n%s", err, msg)
	}
	want, _ := os.ReadFile(refOut)
	got, _ := os.ReadFile(ourOut)
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("profile of the build-id trace differs from llvm-profgen-19's (%d vs %d bytes)", len(got), len(want))
	}

	for name, args := range map[string][]string{
		"trace":            {"--perfscript=" + bad},
		"--trace-build-id": {"--perfscript=" + p.lbr, "--trace-build-id=" + otherID},
	} {
		out := filepath.Join(dir, "out-"+strings.Trim(name, "-"))
		_, err := runOurs(t, append(args, "--binary="+p.bin, "-o", out))
		if err == nil {
			t.Errorf("%s: a trace of another build was accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), otherID) {
			t.Errorf("%s: error does not name both build ids %s and %s: %v", name, id, otherID, err)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written", name)
		}
	}
}
