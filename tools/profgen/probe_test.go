package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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
// traces them as buildPrograms does.
func buildProbePrograms(t *testing.T) []program {
	t.Helper()
	return tracedPrograms(t, "profgen-probe-traces", probeSources, []tracetest.Trace{lbrAndHybrid, modernHybrid})
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
				// Generating a profile, the descriptors alone.
				gen := []string{"--binary=" + p.bin, "--perfscript=" + p.lbr, "--show-pseudo-probe", "--output=" + filepath.Join(t.TempDir(), "out")}
				want, err = exec.Command(ref, gen...).Output()
				if err != nil {
					t.Fatalf("llvm-profgen-%d: %v", rel, err)
				}
				stdout.Reset()
				if err := run(gen, nil, &stdout, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				if stdout.String() != string(want) {
					t.Errorf("descriptors differ from llvm-profgen-%d's:\n%s\nours:\n%s", rel, want, stdout.String())
				}
			})
		}
	}
}

// TestProbeBased compares the non-CS profile of probe binaries
// (llvm-profgen's generateProbeBasedProfile: probe counts, call targets at
// call probes, !CFGChecksum) with llvm-profgen-19 and -22, on LBR traces and
// on hybrid traces read with --ignore-stack-samples: text, extbinary,
// binary (which cannot hold probe profiles) and the warnings.
func TestProbeBased(t *testing.T) {
	// modern selects the hybrid trace here.
	variants := []csVariant{{false, "text", nil}, {false, "extbinary", nil}, {false, "binary", nil},
		{true, "text", []string{"--ignore-stack-samples"}}, {true, "extbinary", []string{"--ignore-stack-samples"}},
		{false, "text", []string{"--update-total-samples", "--trim-cold-profile"}}, {false, "text", []string{"--fill-zero-for-all-funcs"}}}
	runVariants(t, buildProbePrograms(t), variants, nil, true, func(p program, v csVariant) string {
		if v.modern {
			return p.hyb
		}
		return p.lbr
	})
}

// TestProbeContextSensitive compares the CS profile of probe binaries
// (CSProfileGenerator::generateProbeBasedProfile: hybrid samples unwound to
// call-address contexts, the frames of tail calls inferred
// (MissingFrameInferrer), probe counts under the call probes' inline
// contexts, inliner call-site samples from entry probes, zero-count
// probes, !CFGChecksum, !Attributes) with llvm-profgen-19 and -22: the
// unwound counters (--skip-symbolization, contexts of addresses), text,
// extbinary, the binary format's failure, context switches, and the
// pre-inliner (its machine-code sizes per probe inline context, with the
// contexts of inlinees optimized away, and body-size costs).
func TestProbeContextSensitive(t *testing.T) {
	noInfer := append([]string{"--infer-missing-frames=false"}, csOff...)
	flat := []string{"--gen-cs-nested-profile=false"}
	variants := []csVariant{
		{false, "unsymbolized", []string{"--skip-symbolization"}},
		{false, "text", csOff}, {false, "extbinary", csOff}, {false, "binary", csOff}, {false, "text", noInfer},
		{false, "text", append([]string{"--update-total-samples", "--csprof-max-context-depth=2"}, csOff...)},
		{false, "text", append([]string{"--compress-recursion=0"}, noInfer...)},
		{false, "text", nil}, {false, "extbinary", nil}, {true, "extbinary", nil},
		{false, "text", []string{"--csspgo-preinliner=false"}}, {false, "extbinary", []string{"--csspgo-preinliner=false"}},
		{false, "text", flat}, {false, "extbinary", flat},
		{false, "text", append([]string{"--infer-missing-frames=false"}, flat...)},
		{false, "text", append([]string{"--use-context-cost-for-preinliner=false"}, flat...)},
		{false, "text", append([]string{"--sample-profile-hot-inline-threshold=3"}, flat...)},
		{true, "unsymbolized", []string{"--skip-symbolization"}}, {true, "text", csOff}, {true, "text", flat},
		{true, "text", append([]string{"--pid=77"}, csOff...)},
	}
	runVariants(t, buildProbePrograms(t), variants, nil, false, func(p program, v csVariant) string {
		if v.modern {
			return p.hybModern
		}
		return p.hyb
	})
}

// profMetadata matches the IR that a sample profile decides: function
// entry counts and branch weights (each !prof line of the metadata).
var profMetadata = regexp.MustCompile(`(?m)^!\d+ = !\{!"(function_entry_count|branch_weights)".*$`)

// TestProbeProfileIR compiles the probe programs with clang++-22
// -fprofile-sample-use of our profile and of llvm-profgen-22's (non-CS from
// the LBR trace, and pre-inlined nested and flat CS from the hybrid trace): the same
// function entry counts and branch weights, and some of them (the
// checksums matched and the compiler used the profile).
func TestProbeProfileIR(t *testing.T) {
	progs := buildProbePrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-22")
	dir := t.TempDir()
	for _, p := range progs {
		if !strings.Contains(p.name, "clang++-22-nopie") && !strings.Contains(p.name, "clang-22-nopie") {
			continue
		}
		src := "testdata/probe-inline.cc"
		cc := testenv.Tool(t, "clang++-22")
		switch {
		case strings.HasPrefix(p.name, "probe-calls"):
			src, cc = "testdata/probe-calls.c", testenv.Tool(t, "clang-22")
		case strings.HasPrefix(p.name, "probe-shapes"):
			src = "testdata/probe-shapes.cc"
		}
		for _, v := range []struct {
			name, trace string
			args        []string
		}{{"lbr", p.lbr, nil}, {"cs", p.hyb, nil}, {"cs-flat", p.hyb, []string{"--gen-cs-nested-profile=false"}}} {
			t.Run(p.name+"/"+v.name, func(t *testing.T) {
				args := append([]string{"--perfscript=" + v.trace, "--binary=" + p.bin, "--format=extbinary"}, v.args...)
				refOut, ourOut := filepath.Join(dir, "ref.prof"), filepath.Join(dir, "our.prof")
				if out, err := exec.Command(ref, append(args, "--output="+refOut)...).CombinedOutput(); err != nil {
					t.Fatalf("llvm-profgen-22: %v\n%s", err, out)
				}
				if msg, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", "22")); err != nil {
					t.Fatalf("profgen: %v\n%s", err, msg)
				}
				ir := func(prof string) string {
					out, err := exec.Command(cc, "-O2", "-g", "-fdebug-info-for-profiling", "-fpseudo-probe-for-profiling",
						"-fno-omit-frame-pointer", "-fprofile-sample-use="+prof, "-S", "-emit-llvm", "-o", "-", src).Output()
					if err != nil {
						t.Fatalf("%s -fprofile-sample-use=%s: %v", cc, prof, err)
					}
					return strings.Join(profMetadata.FindAllString(string(out), -1), "\n")
				}
				want, got := ir(refOut), ir(ourOut)
				if !strings.Contains(want, "function_entry_count") {
					t.Fatalf("llvm-profgen's profile gave no entry counts:\n%s", want)
				}
				if got != want {
					t.Errorf("!prof metadata differs:\n--- with llvm-profgen-22's profile:\n%s\n--- with ours:\n%s", want, got)
				}
			})
		}
	}
}

// TestProbeBasedBytes: the non-CS probe profile in extbinary is
// byte-identical to llvm-profgen-22's, FuncMetadata order included (the
// order in which llvm-profgen's ProbeCounter, a std::unordered_map keyed
// by pointers into one vector of probes, creates the function profiles).
// llvm-profgen-19 keeps each probe in its own std::list node, so its order
// follows malloc's addresses: TestProbeBased compares its profiles as
// llvm-profdata shows them.
func TestProbeBasedBytes(t *testing.T) {
	progs := buildProbePrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-22")
	dir := t.TempDir()
	for _, p := range progs {
		for _, trace := range []string{p.lbr, p.hyb} {
			t.Run(filepath.Base(trace), func(t *testing.T) {
				args := []string{"--perfscript=" + trace, "--binary=" + p.bin, "--ignore-stack-samples"}
				refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
				if out, err := exec.Command(ref, append(args, "--output="+refOut)...).CombinedOutput(); err != nil {
					t.Fatalf("llvm-profgen-22: %v\n%s", err, out)
				}
				if msg, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", "22")); err != nil {
					t.Fatalf("profgen: %v\n%s", err, msg)
				}
				want, _ := os.ReadFile(refOut)
				got, _ := os.ReadFile(ourOut)
				if !bytes.Equal(got, want) {
					t.Errorf("extbinary differs from llvm-profgen-22's (%d vs %d bytes)", len(got), len(want))
				}
			})
		}
	}
}

// TestRecoveredFunctions compares, with llvm-profgen-19 and -22, the
// profiles of a probe binary with a function without debug info
// (testdata/probe-nodebug.c): llvm-profgen-22 recovers it from the symbol
// table (its ranges are reported as such, calls to it are call targets,
// hybrid samples whose leaf is its entry are dropped as prologs), -19 does
// not. Non-CS and CS, text and extbinary, and the unwound counters.
func TestRecoveredFunctions(t *testing.T) {
	progs := tracedPrograms(t, "profgen-nodebug-traces", []tracetest.Source{{File: "testdata/probe-nodebug.c", CC: "clang-22"}},
		[]tracetest.Trace{lbrAndHybrid})
	// modern selects the hybrid trace here.
	variants := []csVariant{{false, "text", nil}, {false, "extbinary", nil},
		{true, "text", nil}, {true, "extbinary", nil}, {true, "text", csOff},
		{true, "unsymbolized", []string{"--skip-symbolization"}}}
	runVariants(t, progs, variants, nil, true, func(p program, v csVariant) string {
		if v.modern {
			return p.hyb
		}
		return p.lbr
	})
}
