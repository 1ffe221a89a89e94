package instrprof

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// -large names a bench/memprof work directory (workload binary plus
// raw/*.memprofraw, e.g. out/bench/memprof). BenchmarkMarshalLarge converts
// its inputs once per release, as tools/merge does, and then measures only
// Marshal. Without -large it uses syntheticProfile, which has the same shape.
var largeDir = flag.String("large", "", "bench/memprof work directory for BenchmarkMarshalLarge (default: synthetic profile)")

var (
	largeMu       sync.Mutex
	largeProfiles = map[int]*memprof.Profile{}
)

// largeProfile returns the profile BenchmarkMarshalLarge writes for the
// release: the converted -large inputs, or a synthetic profile.
func largeProfile(tb testing.TB, release int) *memprof.Profile {
	tb.Helper()
	largeMu.Lock()
	defer largeMu.Unlock()
	if p := largeProfiles[release]; p != nil {
		return p
	}
	var p *memprof.Profile
	if *largeDir == "" {
		p = syntheticProfile(100000, 4000, 12)
	} else {
		paths, err := filepath.Glob(filepath.Join(*largeDir, "raw", "*.memprofraw"))
		if err != nil || len(paths) == 0 {
			tb.Fatalf("-large %s: no raw/*.memprofraw (%v)", *largeDir, err)
		}
		raws, err := memprof.OpenRawSorted(paths)
		if err != nil {
			tb.Fatal(err)
		}
		bin, err := elfsym.Open(filepath.Join(*largeDir, "workload"), &elfsym.Options{DWARFOnly: true})
		if err != nil {
			tb.Fatal(err)
		}
		defer bin.Close()
		p, err = memprof.Convert(raws, bin, memprof.ConvertOptions{LLVMRelease: release, NumThreads: len(raws)})
		if err != nil {
			tb.Fatal(err)
		}
	}
	largeProfiles[release] = p
	return p
}

// syntheticProfile builds a profile shaped like the bench/memprof workload:
// contexts distinct allocation call stacks of the given depth through a
// shared call tree (about 1,000 frames per level) ending in leaves
// allocating frames. As after Convert, an allocation context belongs to the
// records of the functions in its leaf's inline chain, and every other frame
// is a call site of its function.
func syntheticProfile(contexts, leaves, depth int) *memprof.Profile {
	r := rand.New(rand.NewPCG(7, 11))
	levels := make([][]memprof.Frame, depth)
	width := 1
	for i := range levels {
		if i == depth-1 {
			width = leaves
		}
		levels[i] = make([]memprof.Frame, width)
		for j := range levels[i] {
			levels[i][j] = memprof.Frame{Function: r.Uint64(), LineOffset: uint32(r.IntN(200)), Column: uint32(r.IntN(40)), IsInlineFrame: r.IntN(4) == 0}
		}
		width = min(width*3, 1000)
	}
	records := map[uint64]*memprof.Record{}
	var order []uint64
	record := func(guid uint64) *memprof.Record {
		rec := records[guid]
		if rec == nil {
			rec = &memprof.Record{GUID: guid}
			records[guid] = rec
			order = append(order, guid)
		}
		return rec
	}
	seenCall := map[memprof.Frame]bool{}
	for range contexts {
		st := make([]memprof.Frame, depth)
		for i := range depth { // leaf first
			lvl := levels[depth-1-i]
			st[i] = lvl[r.IntN(len(lvl))]
		}
		info := memprof.MemInfoBlock{
			AllocCount: uint32(1 + r.IntN(100)), TotalSize: uint64(r.IntN(1 << 20)),
			TotalLifetime: uint64(r.IntN(1 << 30)), TotalLifetimeAccessDensity: uint64(r.IntN(1 << 20)),
		}
		leaf := 0
		for leaf+1 < depth && st[leaf].IsInlineFrame {
			leaf++
		}
		for i, f := range st {
			rec := record(f.Function)
			if i <= leaf {
				rec.AllocSites = append(rec.AllocSites, memprof.AllocationInfo{CallStack: st, Info: info})
			} else if !seenCall[f] {
				seenCall[f] = true
				rec.CallSites = append(rec.CallSites, memprof.CallSite{Frames: []memprof.Frame{f}})
			}
		}
	}
	p := &memprof.Profile{}
	for _, g := range order {
		p.Records = append(p.Records, records[g])
	}
	return p
}

// cpuTime returns the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

var largeOptions = []WriteOptions{{19, 12, 0, false}, {19, 12, 2, false}, {22, 13, 3, false}, {22, 13, 4, false}}

func BenchmarkMarshalLarge(b *testing.B) {
	for _, o := range largeOptions {
		b.Run(fmt.Sprintf("llvm%d-v%d", o.LLVMRelease, o.MemProfVersion), func(b *testing.B) {
			p := largeProfile(b, o.LLVMRelease)
			b.ReportAllocs()
			var n int
			cpu0 := cpuTime()
			for b.Loop() {
				out, err := Marshal(p, o)
				if err != nil {
					b.Fatal(err)
				}
				n = len(out)
			}
			// On a loaded machine CPU time is steadier than wall time.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.SetBytes(int64(n))
		})
	}
}

// TestMarshalLargeDigest prints the SHA-256 of Marshal's output for the
// large (or synthetic) profile, to check that optimizations keep the bytes.
func TestMarshalLargeDigest(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, o := range largeOptions {
		p := largeProfile(t, o.LLVMRelease)
		out, err := Marshal(p, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("llvm%d-v%d: %d bytes sha256 %x", o.LLVMRelease, o.MemProfVersion, len(out), sha256.Sum256(out))
	}
}
