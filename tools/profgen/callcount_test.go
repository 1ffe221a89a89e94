package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// callChainSources are the programs of the inferred call counts
// (testdata/callchain.cc): DWARF-based with clang++-19 and -22, and with
// pseudo probes.
var callChainSources = []tracetest.Source{
	{File: "testdata/callchain.cc", CC: "clang++-19"},
	{File: "testdata/callchain.cc", CC: "clang++-22"},
	{File: "testdata/probe-callchain.cc", CC: "clang++-22"},
}

// estimatedCall is a call site of a chain link whose count is the callee's
// estimate when its first body record holds only a call target: 1, not 0.
var estimatedCall = regexp.MustCompile(`(?m)^ 1: 1 _Z(4link|3hop)ILi\d+EEii:1$`)

// TestInferredCallCounts compares with llvm-profgen-19 and -22 the CS
// profiles of callchain.cc, whose first links are called only in samples
// llvm-profgen drops: their call counts are inferred from their body
// samples (populateInferredFunctionSamples), and the deepest such link's
// first body record holds only a call target when it is estimated, which
// counts 1 (getHeadSamplesEstimate). On both traces (32 and 8 LBR entries)
// of PIE and non-PIE builds: the flat profile without post-processing, as
// the issue saw it, and with the defaults, text and extbinary; the flat
// profile from llvm-profgen's unsymbolized profile (--unsymbolized-profile)
// too. The probe builds (whose head samples come from entry probes) get the
// same variants on the trace.
func TestInferredCallCounts(t *testing.T) {
	progs := tracedPrograms(t, "profgen-callchain-traces", callChainSources, []tracetest.Trace{lbrAndHybrid, modernHybrid})
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	dir := t.TempDir()
	for _, p := range progs {
		probe := strings.HasPrefix(p.name, "probe-")
		for _, rel := range []int{19, 22} {
			for _, trace := range []string{p.hyb, p.hybModern} {
				for _, v := range []csVariant{{false, "text", csOff}, {false, "extbinary", csOff}, {false, "text", nil}, {false, "extbinary", nil}} {
					t.Run(fmt.Sprintf("%s/%s/%s/%d/%s", p.name, filepath.Base(trace), v.format, rel, strings.Join(v.extra, ",")), func(t *testing.T) {
						compareCS(t, refs[rel], rel, dir, trace, p.bin, v.format, v.extra, false)
					})
				}
			}
			if probe {
				// llvm-profgen crashes reading the unsymbolized CS profile
				// of a probe binary (TestUnsymbolizedProfile).
				continue
			}
			t.Run(fmt.Sprintf("%s/unsymbolized/%d", p.name, rel), func(t *testing.T) {
				u := filepath.Join(dir, "ref.u")
				runRef(t, refs[rel], []string{"--perfscript=" + p.hyb, "--binary=" + p.bin, "--skip-symbolization", "--output=" + u})
				runBoth(t, refs[rel], rel, append([]string{"--unsymbolized-profile=" + u, "--binary=" + p.bin, "--format=text"}, csOff...))
			})
		}
		if probe {
			continue
		}
		// The fixture must keep reaching the estimate of a first body
		// record without samples: a count of 1 at a link's call site.
		out := filepath.Join(dir, "flat.txt")
		runRef(t, refs[22], append([]string{"--perfscript=" + p.hyb, "--binary=" + p.bin, "--format=text", "--output=" + out}, csOff...))
		data, _ := os.ReadFile(out)
		if !estimatedCall.Match(data) {
			t.Errorf("%s: no call site of a chain link counts 1 in llvm-profgen-22's flat profile: the fixture no longer reaches the estimate", p.name)
		}
	}
}
