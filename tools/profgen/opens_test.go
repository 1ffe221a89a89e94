package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestOpensBinaryOnce: one profgen run (non-CS and CS, extbinary) opens
// the profiled binary once (internal/profbinary), for a DWARF binary, a
// pseudo-probe binary and a split-DWARF one (plus its .dwp once), as
// strace sees the process.
func TestOpensBinaryOnce(t *testing.T) {
	type tc struct {
		name, bin, trace string
		extra            []string
		also             []string // other files opened once
	}
	var cases []tc
	for _, p := range buildPrograms(t) {
		if p.name == "calls-clang-22-pie" || p.name == "inline-clang++-22-nopie" {
			cases = append(cases, tc{p.name + "/lbr", p.bin, p.lbr, nil, nil}, tc{p.name + "/hybrid", p.bin, p.hyb, nil, nil})
		}
	}
	for _, p := range buildProbePrograms(t) {
		if p.name == "probe-calls-clang-22-pie" {
			cases = append(cases, tc{p.name + "/lbr", p.bin, p.lbr, nil, nil}, tc{p.name + "/hybrid", p.bin, p.hyb, nil, nil})
		}
	}
	dir := t.TempDir()
	for _, p := range tracedPrograms(t, "profgen-split-traces", []tracetest.Source{{File: "testdata/split-inline.cc", CC: "clang++-22"}}, []tracetest.Trace{lbrAndHybrid}) {
		dwos, _ := filepath.Glob(p.bin + "-*.dwo")
		if len(dwos) != 1 {
			t.Fatalf("%s: want one .dwo file beside it, found %v", p.bin, dwos)
		}
		dwp := filepath.Join(dir, p.name+".dwp")
		mustDWP(t, dwos[0], dwp)
		cases = append(cases, tc{p.name + "/dwp/lbr", p.bin, p.lbr, []string{"--dwp=" + dwp}, []string{dwp}},
			tc{p.name + "/dwp/hybrid", p.bin, p.hyb, []string{"--dwp=" + dwp}, []string{dwp}})
	}
	if len(cases) < 7 {
		t.Fatalf("found %d cases, want 7: the fixtures changed", len(cases))
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			argv := append([]string{self, "--perfscript=" + c.trace, "--binary=" + c.bin, "-o", filepath.Join(t.TempDir(), "out"), "--format=extbinary"}, c.extra...)
			opens := testenv.Opens(t, []string{"PROFGEN_TEST_AS_TOOL=1"}, argv...)
			for _, f := range append([]string{c.bin}, c.also...) {
				if opens[f] != 1 {
					t.Errorf("%s opened %d times, want once", f, opens[f])
				}
			}
		})
	}
}

// mustDWP packs the .dwo file dwo into the DWARF package dwp (llvm-dwp).
func mustDWP(t *testing.T, dwo, dwp string) {
	t.Helper()
	if out, err := exec.Command(testenv.Tool(t, "llvm-dwp-22"), dwo, "-o", dwp).CombinedOutput(); err != nil {
		t.Fatalf("llvm-dwp: %v\n%s", err, out)
	}
}
