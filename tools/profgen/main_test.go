package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// program is one test binary and the traces lbr-trace recorded from it.
type program struct {
	name, bin string
	lbr, hyb  string // LBR-only and hybrid perf scripts of one run
	// hybModern is a hybrid trace of another run in perf ≥ 6.1's brstack
	// style, with kernel entries, 8-entry LBRs and a second pid.
	hybModern string
}

// sources are the test programs: perfscript's (loops, recursion, indirect
// and tail calls in C; virtual calls, inlining and a switch in C++) and
// inline.cc (deep inlining, unrolling, recursion, a global initializer)
// and cycles.cc (mutual recursion and callees of several heats, for the
// CS pre-inliner).
var sources = []tracetest.Source{
	{File: "../../internal/perfscript/testdata/calls.c", CC: "clang-19"},
	{File: "../../internal/perfscript/testdata/calls.c", CC: "clang-22"},
	{File: "../../internal/perfscript/testdata/shapes.cc", CC: "clang++-22"},
	{File: "testdata/inline.cc", CC: "clang++-19"},
	{File: "testdata/inline.cc", CC: "clang++-22"},
	{File: "testdata/cycles.cc", CC: "clang++-19"},
	{File: "testdata/cycles.cc", CC: "clang++-22"},
}

// lbrAndHybrid traces a run with LBR and hybrid samples.
var lbrAndHybrid = tracetest.Trace{
	Args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
	Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
}

// modernHybrid traces another run in perf ≥ 6.1's brstack style, with
// kernel entries, 8-entry LBRs and a second pid.
var modernHybrid = tracetest.Trace{
	Args:    []string{"--period", "97", "--jitter", "20", "--pid", "77", "--brstack-style", "modern", "--kernel-entries", "all", "--lbr-depth", "8", "--seed", "3"},
	ProgArg: "1000",
	Outputs: map[string]string{"hybrid-modern": "hybrid"},
}

// buildPrograms compiles every source PIE and non-PIE and traces each run
// with lbr-trace (LBR and hybrid samples of the same run).
func buildPrograms(t *testing.T) []program {
	t.Helper()
	return tracedPrograms(t, "profgen-traces", sources, []tracetest.Trace{lbrAndHybrid, modernHybrid})
}

// tracedPrograms builds and traces the sources (tracetest.Build) into
// programs.
func tracedPrograms(t *testing.T, key string, sources []tracetest.Source, traces []tracetest.Trace) []program {
	t.Helper()
	var progs []program
	for _, p := range tracetest.Build(t, key, sources, traces) {
		progs = append(progs, program{p.Name, p.Bin, p.Traces["lbr"], p.Traces["hybrid"], p.Traces["hybrid-modern"]})
	}
	return progs
}

// runOurs runs the tool in-process and returns its stderr with the
// "profgen: " prefix of each line removed (llvm-profgen prints none).
func runOurs(t *testing.T, args []string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(args, nil, &stdout, &stderr)
	return strings.ReplaceAll(stderr.String(), tool+": ", ""), err
}

// TestDifferential compares with llvm-profgen-19 and -22: text, extbinary
// and binary output and the warnings, with each release's defaults and
// with the options of non-CS generation, on LBR traces and on hybrid traces
// read with --ignore-stack-samples.
func TestDifferential(t *testing.T) {
	progs := buildPrograms(t)
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	type variant struct {
		trace, format string
		extra         []string
	}
	var variants []variant
	for _, f := range []string{"text", "extbinary", "binary"} {
		variants = append(variants, variant{"lbr", f, nil}, variant{"hybrid", f, []string{"--ignore-stack-samples"}})
	}
	for _, extra := range [][]string{{"--update-total-samples"}, {"--trim-cold-profile"}, {"--fill-zero-for-all-funcs"},
		{"--update-total-samples", "--trim-cold-profile"}} {
		variants = append(variants, variant{"lbr", "text", extra}, variant{"lbr", "extbinary", extra})
	}
	dir := t.TempDir()
	for _, p := range progs {
		for _, v := range variants {
			for _, rel := range []int{19, 22} {
				name := fmt.Sprintf("%s/%s/%s/%d/%s", p.name, v.trace, v.format, rel, strings.Join(v.extra, ","))
				t.Run(name, func(t *testing.T) {
					trace := p.lbr
					if v.trace == "hybrid" {
						trace = p.hyb
					}
					args := append([]string{"--perfscript=" + trace, "--binary=" + p.bin, "--format=" + v.format}, v.extra...)
					refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
					cmd := exec.Command(refs[rel], append(args, "--output="+refOut)...)
					var refErr bytes.Buffer
					cmd.Stderr = &refErr
					if err := cmd.Run(); err != nil {
						t.Fatalf("llvm-profgen-%d: %v\n%s", rel, err, refErr.String())
					}
					ourErr, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
					if err != nil {
						t.Fatalf("profgen: %v\n%s", err, ourErr)
					}
					want, _ := os.ReadFile(refOut)
					got, _ := os.ReadFile(ourOut)
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

// TestSkipSymbolization checks the unsymbolized profile against
// llvm-profgen-22's.
func TestSkipSymbolization(t *testing.T) {
	progs := buildPrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-22")
	dir := t.TempDir()
	for _, p := range progs[:2] {
		refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
		args := []string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--skip-symbolization"}
		if out, err := exec.Command(ref, append(args, "-o", refOut)...).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if msg, err := runOurs(t, append(args, "-o", ourOut)); err != nil {
			t.Fatalf("%v\n%s", err, msg)
		}
		want, _ := os.ReadFile(refOut)
		got, _ := os.ReadFile(ourOut)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: unsymbolized profile differs", p.name)
		}
	}
}

// csOff are the switches that turn llvm-profgen's CS post-processing off
// (the pre-inliner, the cold-context merger and the nested conversion):
// the flat context profile of CSProfileGenerator.
var csOff = []string{"--csspgo-preinliner=false", "--gen-cs-nested-profile=false", "--csprof-merge-cold-context=false"}

// TestContextSensitive compares CSSPGO generation from the hybrid traces
// with llvm-profgen-19 and -22: the unwound, unsymbolized counters
// (--skip-symbolization), and the flat context profile in text and
// extbinary, with the warnings; the raw binary format, which cannot hold
// CS profiles, fails with llvm-profgen's message.
func TestContextSensitive(t *testing.T) {
	variants := []csVariant{
		{false, "unsymbolized", []string{"--skip-symbolization"}},
		{false, "text", csOff}, {false, "extbinary", csOff}, {false, "binary", csOff},
		{false, "text", append([]string{"--update-total-samples", "--csprof-max-context-depth=2"}, csOff...)},
		{false, "text", append([]string{"--compress-recursion=0"}, csOff...)},
		{true, "unsymbolized", []string{"--skip-symbolization"}},
		{true, "text", csOff},
		{true, "text", append([]string{"--pid=77"}, csOff...)},
	}
	runCSVariants(t, variants, nil)
}

// csVariant is one way of generating a CS profile from each program.
type csVariant struct {
	modern bool // the modern trace (perf ≥ 6.1 style, two pids)
	format string
	extra  []string
}

// runCSVariants runs compareCS on every program with every variant, each
// with the switches common before its own, against both releases.
func runCSVariants(t *testing.T, variants []csVariant, common []string) {
	runVariants(t, buildPrograms(t), variants, common, false, func(p program, v csVariant) string {
		if v.modern {
			return p.hybModern
		}
		return p.hyb
	})
}

// runVariants runs compareCS on the programs with every variant on the
// trace pick chooses; malloc19 as compareCS's.
func runVariants(t *testing.T, progs []program, variants []csVariant, common []string, malloc19 bool, pick func(program, csVariant) string) {
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	dir := t.TempDir()
	for _, p := range progs {
		for _, v := range variants {
			for _, rel := range []int{19, 22} {
				trace := pick(p, v)
				t.Run(fmt.Sprintf("%s/%s/%s/%d/%s", p.name, filepath.Base(trace), v.format, rel, strings.Join(v.extra, ",")), func(t *testing.T) {
					compareCS(t, refs[rel], rel, dir, trace, p.bin, v.format, append(slices.Clip(common), v.extra...), malloc19)
				})
			}
		}
	}
}

// compareCS runs llvm-profgen (ref, of release rel) and ours on a hybrid
// trace and compares the outputs, byte for byte (extbinary included: the
// FuncMetadata section follows LLVM's profile-map order), and the
// warnings. With malloc19, extbinary profiles of llvm-profgen-19 of the
// same size whose bytes differ are compared as llvm-profdata-22 shows
// them: llvm-profgen-19 lists the functions of non-CS probe profiles in an
// order that follows malloc's addresses (TestProbeBasedBytes).
func compareCS(t *testing.T, ref string, rel int, dir, trace, bin, format string, extra []string, malloc19 bool) {
	t.Helper()
	args := []string{"--perfscript=" + trace, "--binary=" + bin}
	if format != "unsymbolized" {
		args = append(args, "--format="+format)
	}
	args = append(args, extra...)
	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	os.Remove(refOut)
	os.Remove(ourOut)
	cmd := exec.Command(ref, append(args, "--output="+refOut)...)
	var refErr bytes.Buffer
	cmd.Stderr = &refErr
	refRunErr := cmd.Run()
	ourErr, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
	if format == "binary" {
		// llvm-profgen fails after its warnings and leaves an empty
		// file; we fail the same way and write none.
		if refRunErr == nil || err == nil {
			t.Fatalf("llvm-profgen: %v, ours: %v; both should fail", refRunErr, err)
		}
		ourErr += "llvm-profgen: error: " + err.Error() + "\n"
		ourErr = strings.ReplaceAll(ourErr, "llvm-profgen: error: "+tool+": ", "llvm-profgen: error: ")
		if _, serr := os.Stat(ourOut); !os.IsNotExist(serr) {
			t.Errorf("output written: %v", serr)
		}
	} else {
		if refRunErr != nil {
			t.Fatalf("llvm-profgen-%d: %v\n%s", rel, refRunErr, refErr.String())
		}
		if err != nil {
			t.Fatalf("profgen: %v\n%s", err, ourErr)
		}
		want, _ := os.ReadFile(refOut)
		got, _ := os.ReadFile(ourOut)
		if malloc19 && rel == 19 && format == "extbinary" && len(got) == len(want) && !bytes.Equal(got, want) {
			got, want = showSample(t, ourOut), showSample(t, refOut)
		}
		if !bytes.Equal(got, want) {
			if format == "extbinary" {
				t.Errorf("extbinary profile differs from llvm-profgen-%d (%d vs %d bytes)", rel, len(got), len(want))
			} else {
				t.Errorf("profile differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, want, got)
			}
		}
	}
	if want := strings.ReplaceAll(refErr.String(), refOut, ourOut); ourErr != want {
		t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, want, ourErr)
	}
}

// TestPreInliner compares the pre-inlined CS profile (llvm-profgen's
// --csspgo-preinliner, on by default) with llvm-profgen-19 and -22 on
// every program: nested (the default) and flat, text and extbinary, and
// text with the pre-inliner's thresholds, size cost, replay and SCC
// switches changed so that other decisions (cold and hot call sites, the
// size limits, the order of a cycle's members) are taken.
func TestPreInliner(t *testing.T) {
	flat := []string{"--gen-cs-nested-profile=false"}
	variants := []csVariant{
		{false, "text", nil}, {false, "extbinary", nil}, {true, "text", nil}, {true, "extbinary", nil},
		{false, "text", flat}, {false, "extbinary", flat},
		{false, "text", []string{"--sample-profile-hot-inline-threshold=3"}},
		{true, "text", append([]string{"--sample-profile-hot-inline-threshold=40", "--sample-profile-cold-inline-threshold=5"}, flat...)},
		{false, "text", []string{"--use-context-cost-for-preinliner=false", "--sample-profile-hot-inline-threshold=1"}},
		{true, "text", []string{"--csspgo-replay-preinline"}},
		{false, "text", append([]string{"--sample-profile-inline-limit-max=20", "--sample-profile-inline-limit-min=10", "--sample-profile-inline-growth-limit=1"}, flat...)},
		{true, "text", []string{"--sort-profiled-scc-member=false", "--sample-profile-hot-inline-threshold=8"}},
		{false, "text", []string{"--compress-recursion=0", "--csprof-max-context-depth=2", "--update-total-samples"}},
	}
	runCSVariants(t, variants, nil)
}

// TestColdContexts compares the cold-context trimmer and merger
// (--csprof-merge-cold-context, on by default without the pre-inliner,
// --trim-cold-profile, --csprof-max-cold-context-depth) in nested and flat
// profiles, text and extbinary, with llvm-profgen-19 and -22.
func TestColdContexts(t *testing.T) {
	noPre := []string{"--csspgo-preinliner=false"}
	variants := []csVariant{
		{false, "text", noPre}, {false, "extbinary", noPre}, {true, "extbinary", noPre},
		{false, "extbinary", append([]string{"--gen-cs-nested-profile=false"}, noPre...)},
		{false, "text", append([]string{"--csprof-max-cold-context-depth=2", "--gen-cs-nested-profile=false"}, noPre...)},
		{false, "text", append([]string{"--trim-cold-profile", "--csprof-merge-cold-context=false"}, noPre...)},
		{false, "extbinary", []string{"--trim-cold-profile", "--csprof-merge-cold-context", "--gen-cs-nested-profile=false"}},
	}
	runCSVariants(t, variants, nil)
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
// the issue saw it, and with the defaults, text and extbinary (on the
// 8-entry trace, flat text and default extbinary); the flat profile from
// llvm-profgen's unsymbolized profile (--unsymbolized-profile) too. The
// probe builds, whose head samples come from entry probes, get the same
// variants on the traces.
func TestInferredCallCounts(t *testing.T) {
	// DWARF-based with clang++-19 and -22, and with pseudo probes.
	chain := "testdata/callchain.cc"
	progs := tracedPrograms(t, "profgen-callchain-traces", []tracetest.Source{{File: chain, CC: "clang++-19"}, {File: chain, CC: "clang++-22"},
		{File: "testdata/probe-callchain.cc", CC: "clang++-22"}}, []tracetest.Trace{lbrAndHybrid, modernHybrid})
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	dir := t.TempDir()
	for _, p := range progs {
		probe := strings.HasPrefix(p.name, "probe-")
		for _, rel := range []int{19, 22} {
			for _, v := range []csVariant{{false, "text", csOff}, {false, "extbinary", csOff}, {false, "text", nil}, {false, "extbinary", nil},
				{true, "text", csOff}, {true, "extbinary", nil}} {
				trace := p.hyb
				if v.modern {
					trace = p.hybModern
				}
				t.Run(fmt.Sprintf("%s/%s/%s/%d/%s", p.name, filepath.Base(trace), v.format, rel, strings.Join(v.extra, ",")), func(t *testing.T) {
					compareCS(t, refs[rel], rel, dir, trace, p.bin, v.format, v.extra, false)
				})
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

// TestMarkAllContextPreinlined compares --mark-all-context-preinlined, LLVM
// 22's, with llvm-profgen-22: CS with and without the pre-inliner and
// non-CS, text and extbinary.
func TestMarkAllContextPreinlined(t *testing.T) {
	ref := testenv.Tool(t, "llvm-profgen-22")
	dir := t.TempDir()
	for _, p := range buildPrograms(t)[:1] {
		for _, format := range []string{"text", "extbinary"} {
			for _, extra := range [][]string{nil, {"--csspgo-preinliner=false", "--gen-cs-nested-profile=false"}, {"--ignore-stack-samples"}} {
				t.Run(fmt.Sprintf("%s/%s/%s", p.name, format, strings.Join(extra, ",")), func(t *testing.T) {
					compareCS(t, ref, 22, dir, p.hyb, p.bin, format, append([]string{"--mark-all-context-preinlined"}, extra...), false)
				})
			}
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--perfscript=x", "--binary=y"},
		{"--perfscript=x", "--binary=y", "-o", "z", "--format=gcc"},
		{"--perfscript=x", "--binary=y", "-o", "z", "--llvm-version", "16"},
		{"--perfdata=x", "--binary=y", "-o", "z"},
		{"--perfscript=x", "--binary=y", "-o", "z", "--mark-all-context-preinlined", "--llvm-version", "19"},
	} {
		if _, err := runOurs(t, args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
