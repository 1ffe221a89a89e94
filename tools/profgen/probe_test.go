package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// probeSources are the test programs built with -fpseudo-probe-for-profiling
// (each includes a source of the DWARF-based tests).
var probeSources = []tracetest.Source{
	{File: "testdata/probe-calls.c", CC: "clang-19"},
	{File: "testdata/probe-calls.c", CC: "clang-22"},
	{File: "testdata/probe-shapes.cc", CC: "clang++-22"},
	{File: "testdata/probe-inline.cc", CC: "clang++-19"},
	{File: "testdata/probe-inline.cc", CC: "clang++-22"},
}

// buildProbePrograms compiles the probe programs PIE and non-PIE and
// traces each run as buildPrograms does.
func buildProbePrograms(t *testing.T) []program {
	t.Helper()
	traces := []tracetest.Trace{{
		Args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
		Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
	}}
	var progs []program
	for _, p := range tracetest.Build(t, "profgen-probe-traces", probeSources, traces) {
		progs = append(progs, program{name: p.Name, bin: p.Bin, lbr: p.Traces["lbr"], hyb: p.Traces["hybrid"]})
	}
	return progs
}

// instText is the instruction text of a disassembly line, which comes from
// different printers (LLVM's, golang.org/x/arch's).
var instText = regexp.MustCompile(`(?m)^( *[0-9a-f]+:).*$`)

// TestShowPseudoProbe compares --show-pseudo-probe --show-disassembly-only
// with llvm-profgen-19 and -22: the descriptors, every symbol and section
// header, every instruction address and the probes printed before it.
func TestShowPseudoProbe(t *testing.T) {
	progs := buildProbePrograms(t)
	for _, rel := range []int{19, 22} {
		ref := testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel))
		for _, p := range progs {
			t.Run(fmt.Sprintf("%s/%d", p.name, rel), func(t *testing.T) {
				args := []string{"--binary=" + p.bin, "--show-pseudo-probe", "--show-disassembly-only"}
				want, err := exec.Command(ref, append(args, "--perfscript=/dev/null", "--output=/dev/null")...).Output()
				if err != nil {
					t.Fatalf("llvm-profgen-%d: %v", rel, err)
				}
				var stdout, stderr bytes.Buffer
				if err := run(args, nil, &stdout, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				w, g := instText.ReplaceAllString(string(want), "$1"), instText.ReplaceAllString(stdout.String(), "$1")
				if g != w {
					t.Errorf("differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, w, g)
				}
			})
		}
	}
}
