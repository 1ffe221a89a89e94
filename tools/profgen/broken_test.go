package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// ourOnly marks the warnings profgen adds to llvm-profgen's: the build-id
// check, which llvm-profgen does not make.
const ourOnly = "build id mismatch at line "

// runBoth runs llvm-profgen (ref, of release rel) and ours with args (no
// output flag) and compares: both fail, or both write the same profile
// with the same warnings, ours allowed the extra lines of ourOnly, which
// it returns.
func runBoth(t *testing.T, ref string, rel int, args []string) (extra []string) {
	t.Helper()
	dir := t.TempDir()
	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	cmd := exec.Command(ref, append(args, "--output="+refOut)...)
	var refErr bytes.Buffer
	cmd.Stderr = &refErr
	refRunErr := cmd.Run()
	ourErr, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
	if (refRunErr != nil) != (err != nil) {
		t.Fatalf("llvm-profgen-%d: %v (%s); ours: %v (%s)", rel, refRunErr, refErr.String(), err, ourErr)
	}
	if err != nil {
		if _, serr := os.Stat(ourOut); !os.IsNotExist(serr) {
			t.Errorf("output written after an error: %v", serr)
		}
		warnings := func(s string) (w []string) {
			for _, l := range strings.SplitAfter(s, "\n") {
				if strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "warning: "+ourOnly) {
					w = append(w, l)
				}
			}
			return w
		}
		if got, want := warnings(ourErr), warnings(refErr.String()); !slices.Equal(got, want) {
			t.Errorf("warnings before the error differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, want, got)
		}
		t.Logf("llvm-profgen-%d: %s\nours: %v", rel, strings.TrimSpace(refErr.String()), err)
		return nil
	}
	var kept []string
	for _, l := range strings.SplitAfter(ourErr, "\n") {
		if strings.HasPrefix(l, "warning: "+ourOnly) {
			extra = append(extra, l)
			continue
		}
		kept = append(kept, l)
	}
	if got, want := strings.Join(kept, ""), refErr.String(); got != want {
		t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, want, got)
	}
	want, _ := os.ReadFile(refOut)
	got, _ := os.ReadFile(ourOut)
	if !bytes.Equal(got, want) {
		t.Errorf("profile differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, want, got)
	}
	return extra
}

var (
	mmapLineRe = regexp.MustCompile(`(?m)^PERF_RECORD_MMAP2 (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+) [^\]]*\]: (\S+) (.*)$`)
	lbrAddrRe  = regexp.MustCompile(`0x([0-9a-f]+)/0x([0-9a-f]+)/`)
)

// traceMutations damage or re-label a real LBR trace the way broken or
// foreign perf output does; each gets the trace and the binary's build id.
var traceMutations = []struct {
	name string
	fn   func(trace string, buildID string) string
}{
	{"cut-mid-line", func(s, _ string) string {
		// The recording was cut: the last line ends inside an entry.
		return s[:len(s)*3/5]
	}},
	{"garbage-events", func(s, _ string) string {
		lines := strings.SplitAfter(s, "\n")
		junk := "PERF_RECORD_COMM 4242/4242: lbr\n" +
			"PERF_RECORD_LOST 0 0: lost 17 events\n" +
			"PERF_RECORD_MMAP2 4242/4242: something perf never printed, long enough\n" +
			"\x00\x01 binary garbage \xff\n" +
			"0x1234/0xzz/P/-/-/0\n"
		for _, i := range []int{len(lines) / 5, len(lines) / 2, len(lines) - 3} {
			lines[i] = junk + lines[i]
		}
		return strings.Join(lines, "")
	}},
	{"shifted-addresses", func(s, _ string) string {
		// Every third sample's addresses moved by 64 KiB: outside every
		// mapping, or inside it but off the instruction boundaries.
		lines := strings.SplitAfter(s, "\n")
		for i := 1; i < len(lines); i += 3 {
			lines[i] = lbrAddrRe.ReplaceAllStringFunc(lines[i], func(m string) string {
				var a, b uint64
				fmt.Sscanf(m, "0x%x/0x%x/", &a, &b)
				return fmt.Sprintf("0x%x/0x%x/", a+0x10000, b+3)
			})
		}
		return strings.Join(lines, "")
	}},
	{"other-process", func(s, _ string) string {
		// Another process maps the same binary 1 MiB higher half-way
		// through: without --pid its samples move the base.
		m := mmapLineRe.FindStringSubmatch(s)
		var addr uint64
		fmt.Sscanf(m[2], "0x%x", &addr)
		other := fmt.Sprintf("PERF_RECORD_MMAP2 777/777: [%#x(%s) @ %s 00:00 0 0]: %s %s\n", addr+1<<20, m[3], m[4], m[5], m[6])
		lines := strings.SplitAfter(s, "\n")
		lines[len(lines)/2] = other + lines[len(lines)/2]
		return strings.Join(lines, "")
	}},
	{"wrong-build-id", func(s, _ string) string {
		// perf record --buildid-mmap prints the build id in place of the
		// device and inode; this one is not the binary's.
		return mmapLineRe.ReplaceAllString(s, "PERF_RECORD_MMAP2 $1/$1: [$2($3) @ $4 <0123456789abcdef0123456789abcdef01234567>]: $5 $6")
	}},
	{"right-build-id", func(s, id string) string {
		return mmapLineRe.ReplaceAllString(s, "PERF_RECORD_MMAP2 $1/$1: [$2($3) @ $4 <"+id+">]: $5 $6")
	}},
}

// TestBrokenInput compares ours with llvm-profgen-19 and -22 on damaged
// and foreign traces of real runs and on binaries that are not what the
// trace was recorded from: the same profile and warnings (what was
// skipped, with counts), or both fail; never a panic, never an output
// after an error. Ours refuses what llvm-profgen reads against the wrong
// code: a trace naming another build id for the binary.
func TestBrokenInput(t *testing.T) {
	progs := buildPrograms(t)
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	byName := programsByName(progs)
	dir := t.TempDir()
	for _, name := range []string{"calls-clang-22-nopie", "shapes-clang++-22-pie"} {
		p := byName[name]
		data, err := os.ReadFile(p.lbr)
		if err != nil {
			t.Fatal(err)
		}
		id := buildIDOf(t, p.bin)
		for _, m := range traceMutations {
			trace := filepath.Join(dir, name+"."+m.name+".script")
			if err := os.WriteFile(trace, []byte(m.fn(string(data), id)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, pid := range []string{"", "--pid=4242"} {
				if pid != "" && m.name != "other-process" {
					continue
				}
				for _, rel := range []int{19, 22} {
					t.Run(fmt.Sprintf("%s/%s%s/%d", name, m.name, pid, rel), func(t *testing.T) {
						args := []string{"--perfscript=" + trace, "--binary=" + p.bin, "--format=text"}
						if pid != "" {
							args = append(args, pid)
						}
						if m.name == "wrong-build-id" {
							oursRefuseBuild(t, refs[rel], rel, args, "0123456789abcdef0123456789abcdef01234567", id)
							return
						}
						runBoth(t, refs[rel], rel, args)
					})
				}
			}
		}
	}

	// Binaries that are not the traced one.
	calls := byName["calls-clang-22-nopie"]
	bins := map[string]func(string) error{
		// Another build of the program under the traced binary's name:
		// llvm-profgen matches by file name and reads the trace against it.
		"other-build": func(out string) error { return copyFile(byName["calls-clang-19-nopie"].bin, out) },
		"no-text": func(out string) error {
			return exec.Command(testenv.Tool(t, "llvm-objcopy-22"), "--remove-section=.text", calls.bin, out).Run()
		},
		"stripped": func(out string) error {
			return exec.Command(testenv.Tool(t, "llvm-objcopy-22"), "--strip-all", calls.bin, out).Run()
		},
		"not-elf":   func(out string) error { return os.WriteFile(out, []byte("#!/bin/sh\necho not a binary\n"), 0o755) },
		"truncated": func(out string) error { return os.WriteFile(out, []byte("\x7fELF\x02\x01\x01"), 0o755) },
		"empty":     func(out string) error { return os.WriteFile(out, nil, 0o755) },
	}
	for kind, mk := range bins {
		bdir := filepath.Join(dir, kind)
		if err := os.MkdirAll(bdir, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(bdir, filepath.Base(calls.bin))
		if err := mk(bin); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("binary-%s/%d", kind, rel), func(t *testing.T) {
				runBoth(t, refs[rel], rel, []string{"--perfscript=" + calls.lbr, "--binary=" + bin, "--format=text"})
			})
		}
	}
	t.Run("missing-files", func(t *testing.T) {
		for _, args := range [][]string{
			{"--perfscript=" + filepath.Join(dir, "nothing"), "--binary=" + calls.bin},
			{"--perfscript=" + calls.lbr, "--binary=" + filepath.Join(dir, "nothing")},
		} {
			runBoth(t, refs[22], 22, args)
		}
	})
	// The other build under the traced name, in a trace that names the
	// traced binary's build id: llvm-profgen reads it against the wrong
	// code; ours refuses.
	t.Run("other-build-with-build-id", func(t *testing.T) {
		data, err := os.ReadFile(calls.lbr)
		if err != nil {
			t.Fatal(err)
		}
		trace := filepath.Join(dir, "with-build-id.script")
		os.WriteFile(trace, []byte(traceMutations[5].fn(string(data), buildIDOf(t, calls.bin))), 0o644)
		bin := filepath.Join(dir, "other-build", filepath.Base(calls.bin))
		for _, rel := range []int{19, 22} {
			oursRefuseBuild(t, refs[rel], rel, []string{"--perfscript=" + trace, "--binary=" + bin, "--format=text"}, buildIDOf(t, calls.bin), buildIDOf(t, bin))
		}
	})
}

func buildIDOf(t *testing.T, bin string) string {
	t.Helper()
	b, err := elfsym.Open(bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.BuildID() == nil {
		t.Fatalf("%s has no build id", bin)
	}
	return hex.EncodeToString(b.BuildID())
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// oursRefuseBuild: llvm-profgen (which matches binaries by file name only)
// writes a profile of a trace whose mmap events name another build id; ours
// fails naming both ids and writes nothing.
func oursRefuseBuild(t *testing.T, ref string, rel int, args []string, traceID, binID string) {
	t.Helper()
	dir := t.TempDir()
	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	if out, err := exec.Command(ref, append(args, "--output="+refOut)...).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profgen-%d: %v\n%s", rel, err, out)
	}
	msg, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
	if err == nil || !strings.Contains(err.Error(), traceID) || !strings.Contains(err.Error(), binID) {
		t.Errorf("ours: %v (%s); want an error naming build ids %s and %s", err, msg, traceID, binID)
	}
	if _, serr := os.Stat(ourOut); !os.IsNotExist(serr) {
		t.Errorf("output written after an error: %v", serr)
	}
}
