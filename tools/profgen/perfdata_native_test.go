package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfdata/perfdatatest"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestPerfDataNative is the differential test of --perfdata read
// natively: perf.data files written from lbr-trace's traces
// (perfdatatest.FromScript, which perf itself proves: perf script prints
// them back), read by ours, against LLVM's path on the same files.
//
// LBR: llvm-profgen --perfdata=F with this machine's perf on PATH, LLVM's
// path exactly as users run it. Hybrid: llvm-profgen --perfscript on the
// trace the file was written from. perf 6.1 prints a call-stack frame that
// lies in a mapping it knows as an offset in the file (addr - start +
// pgoff; TestFromScript in perfdatatest shows it), so llvm-profgen reads
// perf 6.1's text of a hybrid recording with the binary's frames turned
// into addresses outside it; the trace is what perf versions that print
// the addresses print, and what the native reader reads.
func TestPerfDataNative(t *testing.T) {
	perf := testenv.Tool(t, "perf")
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	progs := append(buildPrograms(t), buildProbePrograms(t)...)
	picked := []string{"calls-clang-19-pie", "shapes-clang++-22-nopie", "inline-clang++-22-pie", "probe-calls-clang-19-nopie", "probe-inline-clang++-22-pie"}
	type variant struct {
		trace, format string
		extra         []string
		mode          string // "" (file), "pipe" (perf record -o -), "zstd" (perf record -z)
	}
	variants := []variant{
		{"lbr", "text", nil, "pipe"}, {"lbr", "text", nil, "zstd"}, {"hybrid", "text", nil, "zstd"},
		{"lbr", "text", nil, ""}, {"lbr", "extbinary", nil, ""},
		{"hybrid", "text", nil, ""}, {"hybrid", "extbinary", nil, ""},
		{"hybrid", "text", []string{"--ignore-stack-samples"}, ""},
		{"hybrid-modern", "text", nil, ""},
		// Two processes map the binary: both read, or --pid's.
		{"lbr-2pids", "text", nil, ""}, {"lbr-2pids", "text", []string{"--pid=4300"}, ""},
		// The second process has a sample before it maps the binary:
		// read (the two passes' selection, not the single pass's).
		{"lbr-late", "text", nil, ""},
	}
	dir := t.TempDir()
	for _, p := range progs {
		if !slices.Contains(picked, p.name) {
			continue
		}
		for _, v := range variants {
			for _, rel := range []int{19, 22} {
				name := fmt.Sprintf("%s/%s/%s/%d/%v%s", p.name, v.trace, v.format, rel, v.extra, v.mode)
				t.Run(name, func(t *testing.T) {
					trace := map[string]string{"lbr": p.lbr, "lbr-2pids": p.lbr, "lbr-late": p.lbr, "hybrid": p.hyb, "hybrid-modern": p.hybModern}[v.trace]
					text, err := os.ReadFile(trace)
					if err != nil {
						t.Fatal(err)
					}
					switch v.trace {
					case "lbr-2pids":
						text = append(text, bytes.ReplaceAll(text, []byte(" 4242/4242: "), []byte(" 4300/4300: "))...)
					case "lbr-late":
						// Process 4300 maps a library, takes a sample (the
						// middle one of the trace: the first ones may count
						// for nothing) and only then maps the binary (the
						// copy of the trace).
						second := bytes.ReplaceAll(text, []byte(" 4242/4242: "), []byte(" 4300/4300: "))
						var samples [][]byte
						for l := range bytes.Lines(text) {
							if !bytes.HasPrefix(l, []byte("PERF_RECORD")) && len(bytes.TrimSpace(l)) > 0 {
								samples = append(samples, l)
							}
						}
						lib := "PERF_RECORD_MMAP2 4300/4300: [0x7f0000001000(0x1000) @ 0x1000 fe:00 1 0]: r-xp /lib/libearly.so\n"
						text = slices.Concat(text, []byte(lib), samples[len(samples)/2], second)
					}
					f, err := perfdatatest.FromScript(bytes.NewReader(text))
					if err != nil {
						t.Fatal(err)
					}
					b := f.Bytes()
					switch v.mode {
					case "pipe":
						b = f.PipeBytes()
					case "zstd":
						z, err := perfdatatest.Compressed(f, 4096)
						if err != nil {
							t.Fatal(err)
						}
						b = z.Bytes()
					}
					data := filepath.Join(dir, "perf.data")
					if err := os.WriteFile(data, b, 0o644); err != nil {
						t.Fatal(err)
					}
					common := append([]string{"--binary=" + p.bin, "--format=" + v.format}, v.extra...)
					refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
					refArgs := append([]string{"--perfscript=" + trace}, common...)
					if strings.HasPrefix(v.trace, "lbr") {
						refData := data
						if v.mode == "pipe" {
							// perf script adds the symbol ("[unknown]") to
							// each sample of a pipe-mode file whatever -F
							// says, and llvm-profgen then fails ("Invalid
							// perf script input!"): its reference is the
							// file-mode twin.
							refData = filepath.Join(dir, "twin.data")
							if err := os.WriteFile(refData, f.Bytes(), 0o644); err != nil {
								t.Fatal(err)
							}
						}
						refArgs = append([]string{"--perfdata=" + refData}, common...)
					}
					cmd := exec.Command(refs[rel], append(refArgs, "--output="+refOut)...)
					cmd.Dir = t.TempDir() // llvm-profgen's perf-script-*.tmp
					cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(perf)+string(os.PathListSeparator)+os.Getenv("PATH"))
					var refErr bytes.Buffer
					cmd.Stderr = &refErr
					if err := cmd.Run(); err != nil {
						t.Fatalf("llvm-profgen-%d: %v\n%s", rel, err, refErr.String())
					}
					ourErr, err := runOurs(t, append(append([]string{"--perfdata=" + data}, common...), "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
					if err != nil {
						t.Fatalf("profgen: %v\n%s", err, ourErr)
					}
					want, _ := os.ReadFile(refOut)
					got, _ := os.ReadFile(ourOut)
					if rel == 19 && v.format == "extbinary" && strings.HasPrefix(p.name, "probe-") && len(got) == len(want) && !bytes.Equal(got, want) {
						// Function order after malloc's addresses
						// (TestProbeBasedBytes): compare what they hold.
						got, want = showSample(t, ourOut), showSample(t, refOut)
					}
					if !bytes.Equal(got, want) {
						if v.format == "text" {
							t.Errorf("profile differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, want, got)
						} else {
							t.Errorf("%s profile differs from llvm-profgen-%d (%d vs %d bytes)", v.format, rel, len(got), len(want))
						}
					}
					if ourErr != refErr.String() {
						t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, refErr.String(), ourErr)
					}
				})
			}
		}
	}
}

// TestPerfDataNativeErrors: the native reader's refusals, each naming the
// file: a build-id table that names another build of the binary, no
// process of --pid, a file cut short.
func TestPerfDataNativeErrors(t *testing.T) {
	progs := buildPrograms(t)
	p := progs[0]
	text, err := os.ReadFile(p.lbr)
	if err != nil {
		t.Fatal(err)
	}
	f, err := perfdatatest.FromScript(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	own, err := elfsym.ReadBuildID(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plain := write("plain.data", f.Bytes())
	r, err := perfdata.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	var rec perfdata.Record
	if err := r.Next(&rec); err != nil || rec.Type != perfdata.RecordMmap2 {
		t.Fatalf("first record %v, %v", rec.Type, err)
	}
	r.Close()
	run := func(data string, extra ...string) (string, error) {
		return runOurs(t, append([]string{"--perfdata=" + data, "--binary=" + p.bin, "--format=text", "-o", filepath.Join(dir, "out")}, extra...))
	}
	if _, err := run(plain); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "out"))

	f.BuildIDs = []perfdata.BuildID{{PID: -1, CPUMode: perfdata.MiscUser, BuildID: own, Filename: rec.Mmap.Filename}}
	if _, err := run(write("same.data", f.Bytes())); err != nil {
		t.Errorf("the binary's own build id: %v", err)
	} else if got, _ := os.ReadFile(filepath.Join(dir, "out")); !bytes.Equal(got, want) {
		t.Errorf("the build-id table changed the profile")
	}
	f.BuildIDs[0].BuildID = []byte{0xde, 0xad, 0xbe, 0xef}
	if _, err := run(write("other.data", f.Bytes())); !errors.Is(err, perfscript.ErrBuildIDMismatch) || !strings.Contains(err.Error(), "deadbeef") {
		t.Errorf("another build's id: %v", err)
	}
	if _, err := run(plain, "--pid=5"); err == nil || !strings.Contains(err.Error(), "No relevant mmap event is found in perf data") {
		t.Errorf("--pid of no process: %v", err)
	}
	full := f.Bytes()
	cut := write("cut.data", full[:len(full)-100])
	_, err = run(cut)
	var de *decode.Error
	if !errors.As(err, &de) || de.File != cut {
		t.Errorf("a file cut short: %v, want a decode error naming it", err)
	}
}
