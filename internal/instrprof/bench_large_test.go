package instrprof

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// -large names a bench/memprof work directory (workload binary plus
// raw/*.memprofraw, e.g. out/bench/memprof). BenchmarkMarshalLarge converts
// its inputs once per release, as tools/merge does, and then measures only
// marshal. Without -large it uses syntheticProfile, which has the same shape.
//
//	go test -run '^$' -bench MarshalLarge ./internal/instrprof
//	go test -run '^$' -bench MarshalLarge -cpuprofile cpu.out ./internal/instrprof -large $PWD/out/bench/memprof
//
// cpu-ns/op (process CPU time per marshal, GC included) is steadier than
// ns/op on a loaded machine.
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
		raws, bin := openLarge(tb)
		defer bin.Close()
		var err error
		p, err = memprof.Convert(raws, bin, memprof.ConvertOptions{Release: llvmrelease.Release(release), NumThreads: len(raws)})
		if err != nil {
			tb.Fatal(err)
		}
	}
	largeProfiles[release] = p
	return p
}

var largeCompacts = map[int]*memprof.Compact{}

// largeCompact is largeProfile in the dense form tools/merge hands the
// writer (profmerge folds the inputs the same way). Unlike Profile's copies,
// its MemInfoBlocks stay where the raw reader put them, scattered over the
// inputs, which is what the writer reads in a real run. Without -large it
// is nil.
func largeCompact(tb testing.TB, release int) *memprof.Compact {
	tb.Helper()
	largeMu.Lock()
	defer largeMu.Unlock()
	if c := largeCompacts[release]; c != nil || *largeDir == "" {
		return c
	}
	raws, bin := openLarge(tb)
	defer bin.Close()
	conv, err := memprof.NewConverter(bin, memprof.ConvertOptions{Release: llvmrelease.Release(release), NumThreads: len(raws)})
	if err != nil {
		tb.Fatal(err)
	}
	for _, i := range memprof.FoldOrder(len(raws)) {
		p, err := conv.Prepare(raws[i])
		if err != nil {
			tb.Fatal(err)
		}
		conv.Fold(p)
	}
	c, err := conv.Compact()
	if err != nil {
		tb.Fatal(err)
	}
	largeCompacts[release] = c
	return c
}

// openLarge reads the -large directory's raw profiles (sorted by path)
// and opens its workload binary as the converter needs it.
func openLarge(tb testing.TB) ([]*memprof.RawProfile, *elfsym.Binary) {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(*largeDir, "raw", "*.memprofraw"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("-large %s: no raw/*.memprofraw (%v)", *largeDir, err)
	}
	slices.Sort(paths) // the canonical input order
	var raws []*memprof.RawProfile
	for _, p := range paths {
		r, err := memprof.OpenRaw(p)
		if err != nil {
			tb.Fatal(err)
		}
		raws = append(raws, r)
	}
	bin, err := elfsym.Open(filepath.Join(*largeDir, "workload"), &elfsym.Options{DWARFOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	return raws, bin
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
	p := &memprof.Profile{}
	// Two runs, as if from two inputs merged for LLVM 19: each lists its
	// stacks (shared with CallStacks and the allocation sites, as Convert
	// shares them) and their frames in first-use order.
	runOf := func(c int) int { return 2 * c / contexts }
	p.CallStackRuns = make([][][]memprof.Frame, 2)
	p.FrameRuns = make([][]memprof.Frame, 2)
	seenFrame := [2]map[memprof.Frame]bool{{}, {}}
	for c := range contexts {
		st := make([]memprof.Frame, depth)
		for i := range depth { // leaf first
			lvl := levels[depth-1-i]
			st[i] = lvl[r.IntN(len(lvl))]
		}
		info := memprof.MemInfoBlock{
			AllocCount: uint32(1 + r.IntN(100)), TotalSize: uint64(r.IntN(1 << 20)),
			TotalLifetime: uint64(r.IntN(1 << 30)), TotalLifetimeAccessDensity: uint64(r.IntN(1 << 20)),
		}
		p.CallStacks = append(p.CallStacks, st)
		run := runOf(c)
		p.CallStackRuns[run] = append(p.CallStackRuns[run], st)
		for _, f := range st {
			if !seenFrame[run][f] {
				seenFrame[run][f] = true
				p.FrameRuns[run] = append(p.FrameRuns[run], f)
			}
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
		b.Run(fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion), func(b *testing.B) {
			p := largeProfile(b, int(o.Release))
			b.ReportAllocs()
			var n int
			cpu0 := cpuTime()
			for b.Loop() {
				out, err := marshal(p, o)
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

// syntheticDigests are the SHA-256 digests of marshal's output for
// syntheticProfile(20000, 4000, 12), computed with the map-based writer
// this package had before its dense-index rewrite (commit 025adb2), whose
// output matched llvm-profdata byte for byte. They guard the faster code
// on a profile much larger than the LLVM fixtures.
var syntheticDigests = map[string]string{
	"llvm19-v0": "4be7a8a4bf4f287b63385f7842c7b362c0091f686a99a3bfebd9fd1d3cb0ce54",
	"llvm19-v2": "3a674a36d5d4208cbda925e816c6158814e1d3f986c6a52499ef2255009f6ad2",
	"llvm22-v3": "4098e7dd4b0788dc67dc4b0c13fb1130459eb61df43875ef9d21db6ca70d79a5",
	"llvm22-v4": "6014ea9c82800a5d6fd8ceb1019a6c2481028795cce97137b679821b7f2507a7",
}

func TestMarshalSyntheticDigest(t *testing.T) {
	p := syntheticProfile(20000, 4000, 12)
	for _, o := range largeOptions {
		name := fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion)
		out, err := marshal(p, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(out)); got != syntheticDigests[name] {
			t.Errorf("%s: %d bytes, sha256 %s, want %s", name, len(out), got, syntheticDigests[name])
		}
	}
}

// TestMarshalLargeDigest logs the digests of marshal's output for the
// -large inputs, to compare across changes.
func TestMarshalLargeDigest(t *testing.T) {
	if *largeDir == "" {
		t.Skip("no -large directory")
	}
	for _, o := range largeOptions {
		p := largeProfile(t, int(o.Release))
		out, err := marshal(p, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("llvm%d-v%d: %d bytes sha256 %x", o.Release, o.MemProfVersion, len(out), sha256.Sum256(out))
	}
}

// BenchmarkEmitLarge measures what follows indexing (plan, then the bytes;
// with -large, of the dense form tools/merge writes),
// in memory as marshal does ("mem") and streamed as Write and WriteFile do
// ("stream", to a writer that only counts).
func BenchmarkEmitLarge(b *testing.B) {
	for _, o := range largeOptions {
		for _, mode := range []string{"mem", "stream"} {
			b.Run(fmt.Sprintf("llvm%d-v%d/%s", o.Release, o.MemProfVersion, mode), func(b *testing.B) {
				var ix *memprofidx.Indexed
				var err error
				if c := largeCompact(b, int(o.Release)); c != nil {
					ix, err = memprofidx.IndexCompact(c, o.Release)
				} else {
					ix, err = memprofidx.Index(largeProfile(b, int(o.Release)), o.Release)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				var n int64
				cpu0 := cpuTime()
				for b.Loop() {
					pl := newPlan(ix, o)
					if mode == "mem" {
						n = int64(len(container.MarshalWith(pl.emit)))
					} else {
						var cw countWriter
						if err := container.StreamWith(&cw, pl.emit); err != nil {
							b.Fatal(err)
						}
						n = int64(cw)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
				b.SetBytes(n)
			})
		}
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// TestWorkersSameBytes checks that the writer's output does not depend on
// how many goroutines fill it, in memory (marshal) or streamed (Write, and
// WriteFile, which writes by position), on
// a profile large enough to be cut into many chunks and batches.
func TestWorkersSameBytes(t *testing.T) {
	p := syntheticProfile(20000, 4000, 12)
	defer func(n int) { container.ForceWorkers = n }(container.ForceWorkers)
	for _, o := range largeOptions {
		name := fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion)
		var want []byte
		for _, w := range []int{1, 2, 3, 8} {
			container.ForceWorkers = w
			got, err := marshal(p, o)
			if err != nil {
				t.Fatal(err)
			}
			var sb bytes.Buffer
			if err := Write(&sb, p, o); err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
				if len(want) < 4*container.BatchSize && o.MemProfVersion == 0 {
					t.Errorf("%s: %d bytes, too few to exercise batching", name, len(want))
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: marshal with %d workers differs from 1 worker", name, w)
			}
			if !bytes.Equal(sb.Bytes(), want) {
				t.Errorf("%s: Write with %d workers differs from marshal with 1 worker", name, w)
			}
			out := filepath.Join(t.TempDir(), "out.profdata")
			if err := WriteFile(out, p, o); err != nil {
				t.Fatal(err)
			}
			if f, err := os.ReadFile(out); err != nil || !bytes.Equal(f, want) {
				t.Errorf("%s: WriteFile with %d workers differs from marshal with 1 worker (%v)", name, w, err)
			}
		}
	}
}
