package profmerge

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// -instr names a bench/instr work directory (raw/*.profraw, e.g.
// out/bench/instr/<key>); BenchmarkInstrMerge merges its raws as
// `merge --llvm-version 22` does, to profile the instrumented path:
//
//	go test -run '^$' -bench InstrMerge -cpuprofile cpu.out ./internal/profmerge -instr $PWD/out/bench/instr/<key>
var instrDir = flag.String("instr", "", "bench/instr work directory for BenchmarkInstrMerge")

func BenchmarkInstrMerge(b *testing.B) {
	if *instrDir == "" {
		b.Skip("no -instr work directory")
	}
	paths, err := filepath.Glob(filepath.Join(*instrDir, "raw", "*.profraw"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no raws under %s: %v", *instrDir, err)
	}
	slices.Sort(paths)
	var ins []Input
	var size int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
		ins = append(ins, Input{Path: p, Weight: 1})
	}
	w, err := instrprof.Defaults(llvmrelease.Release(22))
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.profdata")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		os.Remove(out)
		if err := Run(Options{Inputs: ins, Output: out, Write: w, Warnf: b.Logf}); err != nil {
			b.Fatal(err)
		}
	}
}
