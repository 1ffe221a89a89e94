package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// fakePerf writes a stand-in for the perf command into dir: a shell
// script that checks it is called the way llvm-profgen calls perf
// (convertPerfDataToTrace) and prints recorded perf script output for each
// call. It logs every command line to dir/calls.
func fakePerf(t *testing.T, dir, data, mmaps, script, pids string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "mmaps.txt"), []byte(mmaps), 0o644); err != nil {
		t.Fatal(err)
	}
	sh := fmt.Sprintf(`#!/bin/sh
echo "$*" >> %[1]s/calls
case "$*" in
"script --show-mmap-events -F comm,pid -i %[2]s")
	cat %[1]s/mmaps.txt ;;
"script --show-mmap-events -F ip,brstack -i %[2]s --pid %[4]s")
	cat %[3]s ;;
*)
	echo "fake perf: unexpected arguments: $*" >&2
	exit 2 ;;
esac
`, dir, data, script, pids)
	if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
}

// commPID turns the mmap events of a perf script (-F ip,brstack) into
// what `perf script --show-mmap-events -F comm,pid` prints for them: the
// sample fields (comm, pid) before each event, and a line per sample.
func commPID(script string) string {
	var b strings.Builder
	pid := regexp.MustCompile(`PERF_RECORD_MMAP2? (\d+)/`)
	for _, l := range strings.SplitAfter(script, "\n") {
		switch {
		case strings.Contains(l, "PERF_RECORD_MMAP"):
			fmt.Fprintf(&b, "            prog %7s %s", pid.FindStringSubmatch(l)[1], l)
		case strings.TrimSpace(l) != "":
			b.WriteString("            prog    4242\n")
		}
	}
	return b.String()
}

// TestPerfData runs --perfdata, ours (--perfdata-via-perf-script) and
// llvm-profgen-22's, with a fake
// perf on PATH that checks its arguments and prints lbr-trace's recording
// of a real run: both call perf the same way and write the same profile
// and warnings (the perf.data itself is never read, by either). Without
// perf on PATH the error says what to install or pass instead.
func TestPerfData(t *testing.T) {
	progs := buildPrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-22")
	p := progs[0]
	script, err := os.ReadFile(p.lbr)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "perf.data")
	if err := os.WriteFile(data, []byte("PERFILE2 (not read by anyone)"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another process maps another binary, and a third one maps ours:
	// both processes of ours are passed to perf, in first-seen order.
	mmaps := "            bash     100 PERF_RECORD_MMAP2 100/100: [0x7f0000001000(0x20000) @ 0x1000 fe:00 1 0]: r-xp /usr/bin/bash\n" +
		commPID(string(script)) +
		strings.Replace(commPID(string(script)), "4242", "4300", -1)
	for _, tc := range []struct {
		name, pids string
		extra      []string
	}{{"all", "4242,4300", nil}, {"pid", "4300", []string{"--pid=4300"}}} {
		t.Run(tc.name, func(t *testing.T) {
			bindir := t.TempDir()
			fakePerf(t, bindir, data, mmaps, p.lbr, tc.pids)
			t.Setenv("PATH", bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out := filepath.Join(bindir, "out.txt")
			args := append([]string{"--perfdata-via-perf-script", "--perfdata=" + data, "--binary=" + p.bin, "--format=text", "-o", out}, tc.extra...)
			msg, err := runOurs(t, args)
			if err != nil {
				t.Fatalf("%v\n%s", err, msg)
			}
			calls, _ := os.ReadFile(filepath.Join(bindir, "calls"))
			want := fmt.Sprintf("script --show-mmap-events -F comm,pid -i %s\nscript --show-mmap-events -F ip,brstack -i %s --pid %s\n", data, data, tc.pids)
			if string(calls) != want {
				t.Errorf("perf called as\n%s\nwant\n%s", calls, want)
			}
			// llvm-profgen-22 with the same fake perf: the same calls.
			refdir := t.TempDir()
			fakePerf(t, refdir, data, mmaps, p.lbr, tc.pids)
			refOut := filepath.Join(refdir, "ref.txt")
			cmd := exec.Command(ref, append([]string{"--perfdata=" + data, "--binary=" + p.bin, "--format=text", "-o", refOut}, tc.extra...)...)
			cmd.Dir = refdir // where llvm-profgen puts its perf-script-*.tmp
			cmd.Env = append(os.Environ(), "PATH="+refdir+string(os.PathListSeparator)+os.Getenv("PATH"))
			var refErr strings.Builder
			cmd.Stderr = &refErr
			if err := cmd.Run(); err != nil {
				t.Fatalf("llvm-profgen-22: %v\n%s", err, refErr.String())
			}
			if refCalls, _ := os.ReadFile(filepath.Join(refdir, "calls")); string(refCalls) != want {
				t.Errorf("llvm-profgen-22 called perf as\n%s\nwant\n%s", refCalls, want)
			}
			got, _ := os.ReadFile(out)
			wantOut, _ := os.ReadFile(refOut)
			if string(got) != string(wantOut) {
				t.Errorf("profile differs from llvm-profgen-22's for the script perf printed")
			}
			if msg != refErr.String() {
				t.Errorf("warnings differ:\nllvm-profgen-22:\n%s\nours:\n%s", refErr.String(), msg)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("temporary files left behind: %v", left)
			}
		})
	}
	t.Run("no-process", func(t *testing.T) {
		bindir := t.TempDir()
		fakePerf(t, bindir, data, mmaps, p.lbr, "4242,4300")
		t.Setenv("PATH", bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
		_, err := runOurs(t, []string{"--perfdata-via-perf-script", "--perfdata=" + data, "--binary=" + p.bin, "-o", filepath.Join(bindir, "out"), "--pid=5"})
		if err == nil || !strings.Contains(err.Error(), "No relevant mmap event is found in perf data") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("perf-fails", func(t *testing.T) {
		bindir := t.TempDir()
		fakePerf(t, bindir, filepath.Join(dir, "other.data"), mmaps, p.lbr, "4242,4300")
		t.Setenv("PATH", bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
		_, err := runOurs(t, []string{"--perfdata-via-perf-script", "--perfdata=" + data, "--binary=" + p.bin, "-o", filepath.Join(bindir, "out")})
		if err == nil || !strings.Contains(err.Error(), "unexpected arguments") {
			t.Errorf("err = %v, want perf's own message", err)
		}
	})
	t.Run("no-perf", func(t *testing.T) {
		empty := t.TempDir()
		t.Setenv("PATH", empty)
		out := filepath.Join(empty, "out")
		_, err := runOurs(t, []string{"--perfdata-via-perf-script", "--perfdata=" + data, "--binary=" + p.bin, "-o", out})
		if err == nil || !strings.Contains(err.Error(), "install perf") || !strings.Contains(err.Error(), "--perfscript") {
			t.Errorf("err = %v, want one that says to install perf or pass --perfscript", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("output written: %v", err)
		}
	})
}
