package memprof

import (
	"bytes"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
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
		p.SetStack(id, pcs)
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
			if err := syntheticRaw(8000, 16, 32).WriteRaw(&buf, v); err != nil {
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
	p.WriteRaw(&buf, 4)
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		buf.Reset()
		if err := p.WriteRaw(&buf, 4); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDenseMapOrder(b *testing.B) {
	keys := make([]uint64, 100000)
	for i := range keys {
		keys[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	for b.Loop() {
		DenseMapIterationOrder(19, keys)
	}
	b.ReportMetric(float64(len(keys)*b.N)/b.Elapsed().Seconds(), "keys/s")
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
		p, err := Convert([]*RawProfile{raw}, bin, ConvertOptions{LLVMRelease: 19})
		if err != nil {
			b.Fatal(err)
		}
		records += len(p.Records)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
