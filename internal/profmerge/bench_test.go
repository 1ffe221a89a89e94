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

// Benchmarks over the bench/ workloads, to profile a path (they skip
// without their flag):
//
//	go test -run '^$' -bench InstrMerge -cpuprofile cpu.out ./internal/profmerge -instr $PWD/out/bench/instr/<key>
//	go test -run '^$' -bench MemProfAppended -cpuprofile cpu.out ./internal/profmerge -memprof $PWD/out/bench/memprof
var (
	// -instr names a bench/instr work directory (raw/*.profraw);
	// BenchmarkInstrMerge merges its raws as `merge --llvm-version 22`.
	instrDir = flag.String("instr", "", "bench/instr work directory for BenchmarkInstrMerge")
	// -memprof names a bench/memprof work directory (workload,
	// raw/*.memprofraw); BenchmarkMemProfAppended merges its raws as
	// `merge --memprof-merge-contexts=false --llvm-version 19` (V0,
	// llvm-profdata's bytes).
	memprofDir = flag.String("memprof", "", "bench/memprof work directory for BenchmarkMemProfAppended")
)

func BenchmarkInstrMerge(b *testing.B) {
	benchMerge(b, *instrDir, "*.profraw", 22, "")
}

func BenchmarkMemProfAppended(b *testing.B) {
	bin := ""
	if *memprofDir != "" {
		bin = filepath.Join(*memprofDir, "workload")
	}
	benchMerge(b, *memprofDir, "*.memprofraw", 19, bin)
}

// benchMerge merges dir/raw/<pattern> for release, with binary as the
// profiled binary when not empty, reporting the input bytes per second.
func benchMerge(b *testing.B, dir, pattern string, release llvmrelease.Release, binary string) {
	if dir == "" {
		b.Skip("no work directory flag")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "raw", pattern))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no raws under %s: %v", dir, err)
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
	w, err := instrprof.Defaults(release)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.profdata")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		os.Remove(out)
		if err := Run(Options{Inputs: ins, Output: out, Write: w, Warnf: b.Logf, ProfiledBinary: binary}); err != nil {
			b.Fatal(err)
		}
	}
}
