package main

import (
	"debug/elf"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// splitTrace traces a run that takes the branches the training run of
// testdata/split-cold.c never took (they are in the .cold parts).
var splitTrace = tracetest.Trace{
	Args:    lbrAndHybrid.Args,
	ProgArg: "7",
	Outputs: lbrAndHybrid.Outputs,
}

// buildSplitPrograms builds testdata/split-cold.c with clang-19 and -22,
// PIE and non-PIE, and traces the runs.
func buildSplitPrograms(t *testing.T) []program {
	t.Helper()
	progs := tracedPrograms(t, "profgen-cold-traces", []tracetest.Source{
		{File: "testdata/split-cold.c", CC: "clang-19"},
		{File: "testdata/split-cold.c", CC: "clang-22"},
	}, []tracetest.Trace{splitTrace})
	for _, p := range progs {
		f, err := elf.Open(p.bin)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := f.Symbols()
		f.Close()
		var cold []string
		for _, s := range syms {
			if strings.HasSuffix(s.Name, ".cold") {
				cold = append(cold, s.Name)
			}
		}
		slices.Sort(cold)
		if !slices.Equal(cold, []string{"step.cold", "walk.cold"}) {
			t.Fatalf("%s: cold parts %v, want step.cold and walk.cold (-fsplit-machine-functions)", p.bin, cold)
		}
	}
	return progs
}

// TestSplitFunctions compares with llvm-profgen-19 and -22 the profiles of
// functions split by -fsplit-machine-functions (hot part step, cold part
// step.cold: one DWARF function of two ranges). llvm-profgen takes a range
// as a function entry when the symbol at its start has the function's
// name after getCanonicalFnName, which strips .llvm. and .part. but not
// .cold: the cold range is no entry, so a jump into it is no call (no call
// target, no head sample) and its start is no function start. Non-CS on
// the LBR trace, CS on the hybrid one (each release's defaults, and flat
// without the pre-inliner), text and extbinary, warnings included.
func TestSplitFunctions(t *testing.T) {
	progs := buildSplitPrograms(t)
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	for _, p := range progs {
		for _, format := range []string{"text", "extbinary"} {
			for _, v := range []struct {
				name, trace string
				extra       []string
			}{
				{"lbr", p.lbr, nil},
				{"cs", p.hyb, nil},
				{"cs-flat", p.hyb, csOff},
			} {
				for _, rel := range []int{19, 22} {
					t.Run(fmt.Sprintf("%s/%s/%s/%d", p.name, v.name, format, rel), func(t *testing.T) {
						runBoth(t, refs[rel], rel, append([]string{"--perfscript=" + v.trace, "--binary=" + p.bin, "--format=" + format}, v.extra...))
					})
				}
			}
		}
	}
}
