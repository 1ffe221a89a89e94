package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/profgen"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// instLine is an instruction line of --show-disassembly-only: the
// address, a colon, the instruction text after a tab.
var instLine = regexp.MustCompile(`^ *[0-9a-f]+:\t`)

// TestShowSourceLocations compares --show-disassembly-only
// --show-source-locations with llvm-profgen-19 and -22 on the DWARF and
// the probe programs, and with --show-pseudo-probe on the probe programs
// (probe indexes for line offsets, the probes before each instruction).
// The instruction text comes from another printer (see TestShowPseudoProbe)
// and so does the padding after it; every other line is compared whole,
// and each instruction line of llvm-profgen's must be its address, text
// padded to 40 columns, then exactly our location.
func TestShowSourceLocations(t *testing.T) {
	type set struct {
		probe bool
		progs []program
	}
	for _, s := range []set{{false, buildPrograms(t)}, {true, buildProbePrograms(t)}} {
		variants := [][]string{nil}
		if s.probe {
			variants = append(variants, []string{"--show-pseudo-probe"})
		}
		for _, p := range s.progs {
			for _, extra := range variants {
				for _, rel := range []int{19, 22} {
					t.Run(fmt.Sprintf("%s/%s/%d", p.name, strings.Join(extra, ","), rel), func(t *testing.T) {
						args := append([]string{"--binary=" + p.bin, "--show-disassembly-only", "--show-source-locations"}, extra...)
						want, err := exec.Command(testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel)), append(args, "--perfscript=/dev/null", "--output=/dev/null")...).Output()
						if err != nil {
							t.Fatalf("llvm-profgen-%d: %v", rel, err)
						}
						var stdout, stderr bytes.Buffer
						if err := run(append(args, "--llvm-version", fmt.Sprint(rel)), nil, &stdout, &stderr); err != nil {
							t.Fatalf("profgen: %v\n%s", err, stderr.String())
						}
						var plain bytes.Buffer
						if err := run(append(slicesWithout(args, "--show-source-locations"), "--llvm-version", fmt.Sprint(rel)), nil, &plain, &stderr); err != nil {
							t.Fatalf("profgen: %v\n%s", err, stderr.String())
						}
						compareSourceLocations(t, string(want), stdout.String(), plain.String())
					})
				}
			}
		}
	}
}

// slicesWithout returns args without the argument drop.
func slicesWithout(args []string, drop string) []string {
	var out []string
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}

// compareSourceLocations compares llvm-profgen's disassembly with ours
// (got; plain is ours without the locations, which tells where each
// location starts) as TestShowSourceLocations says; it returns after the
// first few differences.
func compareSourceLocations(t *testing.T, want, got, plain string) {
	t.Helper()
	w, g, pl := strings.Split(want, "\n"), strings.Split(got, "\n"), strings.Split(plain, "\n")
	if len(g) != len(pl) {
		t.Fatalf("%d lines with locations, %d without", len(g), len(pl))
	}
	if len(w) != len(g) {
		t.Errorf("%d lines, llvm-profgen printed %d", len(g), len(w))
	}
	bad, located := 0, 0
	for i := 0; i < min(len(w), len(g)) && bad < 5; i++ {
		wl, gl := w[i], g[i]
		if !instLine.MatchString(wl) || !instLine.MatchString(gl) {
			if wl != gl {
				t.Errorf("line %d differs:\nllvm-profgen: %q\nours:         %q", i+1, wl, gl)
				bad++
			}
			continue
		}
		addr := wl[:strings.IndexByte(wl, ':')+1]
		gAddr := gl[:strings.IndexByte(gl, ':')+1]
		// Our location: what follows our padded instruction text.
		pad, ok := strings.CutPrefix(gl, pl[i])
		if !ok {
			t.Fatalf("line %d: %q does not start with the line without locations %q", i+1, gl, pl[i])
		}
		loc := strings.TrimLeft(pad, " ")
		if loc != "" {
			located++
		}
		rest, ok := strings.CutSuffix(wl[len(addr):], loc)
		if addr != gAddr || !ok || len(rest) < profgen.SourceLocColumn || strings.HasSuffix(rest, " @ ") ||
			(len(rest) > profgen.SourceLocColumn && strings.HasSuffix(rest, " ")) {
			t.Errorf("line %d: llvm-profgen's is not %s, the instruction padded to %d columns, then %q:\nllvm-profgen: %q\nours:         %q", i+1, gAddr, profgen.SourceLocColumn, loc, wl, gl)
			bad++
		}
	}
	if located == 0 {
		t.Error("no instruction has a source location: the binary tests nothing")
	}
}
