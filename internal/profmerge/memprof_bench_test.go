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

// -memprof names a bench/memprof work directory (workload,
// raw/*.memprofraw); BenchmarkMemProfAppended merges its raws as
// `merge --memprof-merge-contexts=false --llvm-version 19` does (V0,
// llvm-profdata's bytes), to profile the appended path:
//
//	go test -run '^$' -bench MemProfAppended -cpuprofile cpu.out ./internal/profmerge -memprof $PWD/out/bench/memprof
var memprofDir = flag.String("memprof", "", "bench/memprof work directory for BenchmarkMemProfAppended")

func BenchmarkMemProfAppended(b *testing.B) {
	if *memprofDir == "" {
		b.Skip("no -memprof work directory")
	}
	paths, err := filepath.Glob(filepath.Join(*memprofDir, "raw", "*.memprofraw"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no raws under %s: %v", *memprofDir, err)
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
	w, err := instrprof.Defaults(llvmrelease.Release(19))
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "out.profdata")
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		os.Remove(out)
		err := Run(Options{Inputs: ins, Output: out, Write: w, Warnf: b.Logf,
			ProfiledBinary: filepath.Join(*memprofDir, "workload")})
		if err != nil {
			b.Fatal(err)
		}
	}
}
