package perfscript

import (
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
)

// program is one test binary with the traces recorded from its run.
type program struct {
	name string // e.g. "calls-clang-19-pie"
	bin  string
	// traces maps a trace name ("lbr", "hybrid", ...) to its file.
	traces map[string]string
}

// traceSpecs are the lbr-trace runs of every program.
var traceSpecs = []tracetest.Trace{
	{
		Args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
		Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
	},
	{
		// Perf ≥ 6.1's brstack style, a kernel entry after every syscall,
		// short LBRs and a second pid. The run starts in ld.so (no
		// --start-at-entry), so the program must run long enough for its
		// own code to dominate: with 120 iterations, a few dozen bytes of
		// environment moved the hybrid trace's samples in the binary from
		// ~20 ranges to fewer, and TestConformance's size check failed on
		// a CI machine.
		Args:    []string{"--period", "97", "--jitter", "20", "--pid", "77", "--brstack-style", "modern", "--kernel-entries", "all", "--lbr-depth", "8", "--seed", "3"},
		ProgArg: "3000",
		Outputs: map[string]string{"lbr-modern": "lbr", "hybrid-modern": "hybrid"},
	},
}

// buildPrograms compiles testdata's programs PIE and non-PIE and traces each
// with lbr-trace (tracetest.Build).
func buildPrograms(t testing.TB) []program {
	t.Helper()
	srcs := []tracetest.Source{{File: "testdata/calls.c", CC: "clang-19"}, {File: "testdata/shapes.cc", CC: "clang++-22"}}
	var progs []program
	for _, p := range tracetest.Build(t, "perfscript-traces", srcs, traceSpecs) {
		progs = append(progs, program{name: p.Name, bin: p.Bin, traces: p.Traces})
	}
	return progs
}
