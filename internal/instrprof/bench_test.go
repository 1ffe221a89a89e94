package instrprof

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// benchProfile builds a deterministic profile of n records whose call
// stacks share a pool of frames, like a converted raw profile.
func benchProfile(n int) *memprof.Profile {
	r := rand.New(rand.NewPCG(3, 5))
	pool := make([]memprof.Frame, 4*n+16)
	for i := range pool {
		pool[i] = memprof.Frame{Function: r.Uint64(), LineOffset: uint32(r.IntN(100)), Column: uint32(r.IntN(80)), IsInlineFrame: r.IntN(3) == 0}
	}
	p := &memprof.Profile{}
	for range n {
		rec := &memprof.Record{GUID: r.Uint64()}
		for range 1 + r.IntN(3) {
			st := make([]memprof.Frame, 2+r.IntN(12))
			for i := range st {
				st[i] = pool[r.IntN(len(pool))]
			}
			rec.AllocSites = append(rec.AllocSites, memprof.AllocationInfo{CallStack: st, Info: memprof.MemInfoBlock{
				AllocCount: uint32(1 + r.IntN(100)), TotalSize: uint64(r.IntN(1 << 20)), TotalLifetime: uint64(r.IntN(1 << 30)), TotalLifetimeAccessDensity: uint64(r.IntN(1 << 20)),
			}})
		}
		for range r.IntN(3) {
			rec.CallSites = append(rec.CallSites, memprof.CallSite{Frames: []memprof.Frame{pool[r.IntN(len(pool))]}})
		}
		p.Records = append(p.Records, rec)
	}
	return p
}

func BenchmarkWrite(b *testing.B) {
	p := benchProfile(10000)
	for _, o := range []WriteOptions{{19, 12, 0, false}, {19, 12, 2, false}, {22, 13, 3, false}, {22, 13, 4, false}} {
		b.Run(fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion), func(b *testing.B) {
			out, err := marshal(p, o)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := Write(io.Discard, p, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(p.Records))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func BenchmarkRead(b *testing.B) {
	p := benchProfile(10000)
	for _, o := range []WriteOptions{{19, 12, 0, false}, {22, 13, 3, false}} {
		data, err := marshal(p, o)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read("bench", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(p.Records))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
