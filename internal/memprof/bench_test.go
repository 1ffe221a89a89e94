package memprof

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// syntheticRaw builds a profile with n stacks of the given depth over a
// pool of PCs, every MIB with a histogram of hist counters.
func syntheticRaw(n, depth, hist int) *RawProfile {
	r := rand.New(rand.NewSource(1))
	seg := SegmentEntry{Start: 0x200000, End: 0x400000, BuildIDSize: 20}
	p := &RawProfile{Version: 4, Segments: []SegmentEntry{seg}}
	for i := 0; i < n; i++ {
		id := uint64(i + 1)
		pcs := make([]uint64, depth)
		for j := range pcs {
			pcs[j] = 0x200000 + uint64(r.Intn(1<<16))*16
		}
		p.setStack(id, pcs)
		m := MemInfoBlock{AllocCount: uint32(1 + r.Intn(100)), TotalSize: uint64(r.Intn(1 << 20)), AccessHistogramSize: uint32(hist)}
		for k := 0; k < hist; k++ {
			m.Histogram = append(m.Histogram, uint64(r.Intn(300)))
		}
		p.MIBs = append(p.MIBs, MIBEntry{StackID: id, Info: m})
	}
	return p
}

func BenchmarkReadRaw(b *testing.B) {
	for _, v := range []uint64{3, 4, 5} {
		b.Run("v"+string(rune('0'+v)), func(b *testing.B) {
			var buf bytes.Buffer
			if err := syntheticRaw(8000, 16, 32).writeRaw(&buf, v); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				p, err := ReadRaw("bench", data)
				if err != nil || len(p.MIBs) != 8000 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(8000*b.N)/b.Elapsed().Seconds(), "MIBs/s")
		})
	}
}

func BenchmarkWriteRaw(b *testing.B) {
	p := syntheticRaw(8000, 16, 32)
	var buf bytes.Buffer
	p.writeRaw(&buf, 4)
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		buf.Reset()
		if err := p.writeRaw(&buf, 4); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvert converts the "b" run of app.cc (raw v4) with elfsym.
func BenchmarkConvert(b *testing.B) {
	dir := fixtures(b)
	raw, err := OpenRaw(filepath.Join(dir, "app-llvm19-nopie-b.memprofraw"))
	if err != nil {
		b.Fatal(err)
	}
	bin, err := elfsym.Open(filepath.Join(dir, "app-llvm19-nopie"), &elfsym.Options{DWARFOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bin.Close()
	var records int
	for b.Loop() {
		p, err := Convert([]*RawProfile{raw}, bin, ConvertOptions{Release: 19})
		if err != nil {
			b.Fatal(err)
		}
		records += len(p.Records)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// -large names a bench/memprof work directory (workload binary plus
// raw/*.memprofraw, e.g. out/bench/memprof) for the *Large benchmarks,
// which skip without it:
//
//	go test -run '^$' -bench Large ./internal/memprof -large $PWD/out/bench/memprof
var largeDir = flag.String("large", "", "bench/memprof work directory for the *Large benchmarks")

func largeInputs(b *testing.B) ([][]byte, string) {
	if *largeDir == "" {
		b.Skip("no -large directory")
	}
	paths, err := filepath.Glob(filepath.Join(*largeDir, "raw", "*.memprofraw"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("-large %s: no raw/*.memprofraw (%v)", *largeDir, err)
	}
	sort.Strings(paths)
	var data [][]byte
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	return data, filepath.Join(*largeDir, "workload")
}

// BenchmarkReadRawLarge decodes every raw profile of the -large workload.
func BenchmarkReadRawLarge(b *testing.B) {
	data, _ := largeInputs(b)
	for b.Loop() {
		for i, d := range data {
			if _, err := ReadRaw(fmt.Sprint(i), d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkConvertLarge runs Prepare and Fold over every input of the
// -large workload on one goroutine (symbolization excluded: the symbol
// table is warmed by a first conversion). Prepare and Fold are reported
// separately (ns per whole workload).
func BenchmarkConvertLarge(b *testing.B) {
	data, binPath := largeInputs(b)
	var raws []*RawProfile
	for i, d := range data {
		r, err := ReadRaw(fmt.Sprint(i), d)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, r)
	}
	bin, err := elfsym.Open(binPath, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bin.Close()
	for _, release := range []int{19, 22} {
		b.Run(fmt.Sprint(release), func(b *testing.B) {
			warm, err := NewConverter(bin, ConvertOptions{Release: llvmrelease.Release(release), Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range raws {
				if _, err := warm.Prepare(r); err != nil {
					b.Fatal(err)
				}
			}
			var prep, fold time.Duration
			for b.Loop() {
				c := *warm
				c.resetFold()
				for _, k := range FoldOrder(len(raws)) {
					t0 := time.Now()
					p, err := c.Prepare(raws[k])
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					c.Fold(p)
					prep, fold = prep+t1.Sub(t0), fold+time.Since(t1)
				}
				if _, err := c.Compact(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(prep.Nanoseconds())/float64(b.N), "prepare-ns/op")
			b.ReportMetric(float64(fold.Nanoseconds())/float64(b.N), "fold-ns/op")
		})
	}
}

// resetFold returns c to its state before the first Fold, keeping the
// symbol table (benchmarks).
func (c *Converter) resetFold() {
	for i := range c.sym.placed.chunks {
		if ch := c.sym.placed.chunks[i].Load(); ch != nil {
			for j := range ch {
				ch[j].Store(0)
			}
		}
	}
	*c = Converter{bin: c.bin, tb: c.tb, release: c.release, workers: c.workers, sym: c.sym,
		symName: map[uint64]string{}, recIndex: map[uint64]int32{}, stackOff: []int32{0}}
}
