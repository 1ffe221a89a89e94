package main

import (
	"fmt"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
)

// x86Sources are the programs whose machine code golang.org/x/arch alone
// decodes otherwise than LLVM (internal/x86inst): atomics.cc (LOCK,
// XACQUIRE/XRELEASE and REP prefixes in hot inlined code, three threads)
// and avx.cc (AVX2 hot loops at -march=x86-64-v3, AVX-512 compiled into
// never-taken paths of the traced functions, as qemu-user cannot run it),
// DWARF-based and with pseudo probes, clang 19 and 22.
var x86Sources = []tracetest.Source{
	{File: "testdata/atomics.cc", CC: "clang++-19"},
	{File: "testdata/atomics.cc", CC: "clang++-22"},
	{File: "testdata/avx.cc", CC: "clang++-19"},
	{File: "testdata/avx.cc", CC: "clang++-22"},
}

var x86ProbeSources = []tracetest.Source{
	{File: "testdata/probe-atomics.cc", CC: "clang++-19"},
	{File: "testdata/probe-atomics.cc", CC: "clang++-22"},
	{File: "testdata/probe-avx.cc", CC: "clang++-19"},
	{File: "testdata/probe-avx.cc", CC: "clang++-22"},
}

// x86Trace is one run of each, LBR and hybrid samples (the programs'
// default sizes: a short run with many samples of the hot loops).
var x86Trace = tracetest.Trace{
	Args:    []string{"--period", "97", "--jitter", "20", "--pid", "4242"},
	Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
}

// TestX86Boundaries compares profiles of x86Sources with llvm-profgen-19
// and -22 byte for byte: DWARF-based context-sensitive ones (unwound
// counters, flat text and extbinary, and pre-inlined nested text), non-CS
// ones from the LBR trace (text, extbinary), and for the probe builds the
// probe-based CS and non-CS profiles. Each range's counts are spread over
// its instructions, so every boundary that differs from LLVM's shows.
func TestX86Boundaries(t *testing.T) {
	progs := tracedPrograms(t, "profgen-x86-traces", x86Sources, []tracetest.Trace{x86Trace})
	// modern selects the LBR trace here.
	pick := func(p program, v csVariant) string {
		if v.modern {
			return p.lbr
		}
		return p.hyb
	}
	variants := []csVariant{
		{false, "unsymbolized", []string{"--skip-symbolization"}},
		{false, "text", csOff}, {false, "extbinary", csOff},
		{false, "text", nil},
		{false, "text", []string{"--ignore-stack-samples"}},
		{true, "text", nil}, {true, "extbinary", nil},
		{true, "unsymbolized", []string{"--skip-symbolization"}},
	}
	runVariants(t, progs, variants, nil, false, pick)

	probes := tracedPrograms(t, "profgen-x86-probe-traces", x86ProbeSources, []tracetest.Trace{x86Trace})
	runVariants(t, probes, []csVariant{
		{false, "unsymbolized", []string{"--skip-symbolization"}},
		{false, "text", csOff}, {false, "extbinary", csOff},
		{false, "text", nil},
	}, nil, false, pick)
	runVariants(t, probes, []csVariant{{true, "text", nil}, {true, "extbinary", nil}}, nil, true, pick)
}

// TestX86ShowDisassembly compares --show-disassembly-only on x86Sources
// and x86ProbeSources (with --show-pseudo-probe) with llvm-profgen-19 and
// -22 (compareDisassembly): every section and symbol header, every
// instruction address (a lone lock, xacquire or xrelease line included;
// the instruction text comes from another printer) and the warnings.
func TestX86ShowDisassembly(t *testing.T) {
	progs := tracedPrograms(t, "profgen-x86-traces", x86Sources, []tracetest.Trace{x86Trace})
	probes := tracedPrograms(t, "profgen-x86-probe-traces", x86ProbeSources, []tracetest.Trace{x86Trace})
	for _, rel := range []int{19, 22} {
		for i, p := range append(progs, probes...) {
			args := []string{"--binary=" + p.bin}
			if i >= len(progs) {
				args = append(args, "--show-pseudo-probe")
			}
			t.Run(fmt.Sprintf("%s/%d", p.name, rel), func(t *testing.T) {
				compareDisassembly(t, rel, args)
			})
		}
	}
}
