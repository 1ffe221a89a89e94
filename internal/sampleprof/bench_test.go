package sampleprof

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMergeLarge merges and writes as extbinary the text profiles
// SAMPLEPROF_BENCH_INPUTS names (a glob, e.g. the plain*.txt or cs*.txt
// of bench/sample/run.sh's work directory), in process: read, fold,
// write, one input at a time (SAMPLEPROF_BENCH_READTEXT=1: each input read
// into a profile of its own and merged, as before AddText). Skipped when
// it is not set.
func BenchmarkMergeLarge(b *testing.B) {
	glob := os.Getenv("SAMPLEPROF_BENCH_INPUTS")
	if glob == "" {
		b.Skip("SAMPLEPROF_BENCH_INPUTS not set")
	}
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		b.Fatalf("SAMPLEPROF_BENCH_INPUTS=%s: no files (%v)", glob, err)
	}
	var inputs [][]byte
	var size int64
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
		size += int64(len(data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		names := &Names{}
		m := Merger{Release: 22}
		for i, data := range inputs {
			if os.Getenv("SAMPLEPROF_BENCH_READTEXT") == "" {
				// merge --sample's path: parsed lines, added in place
				if t := ParseTextMerge(data, ReadOptions{Release: 22, Names: names}); t != nil {
					if err := m.AddText(paths[i], t, 1); err != nil {
						b.Fatal(err)
					}
					t.Release()
					continue
				}
			}
			p, err := ReadText(paths[i], data, ReadOptions{Release: 22, Names: names})
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Add(paths[i], p, 1); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := m.Profile().AppendExtBinary(nil, BinaryOptions{Release: 22}); err != nil {
			b.Fatal(err)
		}
	}
}
