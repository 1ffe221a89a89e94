package memprof

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// fakeSymbolizer symbolizes any address deterministically: one to three
// frames over a small pool of functions (so records merge across PCs and
// inputs); some addresses have no DWARF and some are runtime frames.
type fakeSymbolizer struct {
	path string
	elfHeaders
}

func (f fakeSymbolizer) Path() string    { return f.path }
func (f fakeSymbolizer) BuildID() []byte { return make([]byte, 20) }
func (f fakeSymbolizer) Symbolize(addr uint64) ([]elfsym.Frame, error) {
	h := addr * 0x9e3779b97f4a7c15
	if h%11 == 0 {
		return nil, errors.New("no DWARF")
	}
	n := 1 + int(h>>8%3)
	out := make([]elfsym.Frame, n)
	for i := range out {
		fn := (h >> (16 + 6*i)) % 40
		out[i] = elfsym.Frame{
			LinkageName: fmt.Sprintf("_Z3f%02dv", fn),
			File:        "app.cc",
			Line:        uint32(100 + addr%7 + uint64(i)),
			StartLine:   100,
			Column:      uint32(addr % 5),
		}
	}
	if h%13 == 0 {
		out[0].File = "compiler-rt/lib/memprof/memprof_malloc_linux.cpp"
	}
	return out, nil
}

// foldRaw is input i of a synthetic multi-input run: stacks over a shared
// pool of PCs, so inputs share most stacks, as runs of one binary do.
func foldRaw(i int, version uint64) *RawProfile {
	r := rand.New(rand.NewSource(int64(i)))
	seg := SegmentEntry{Start: 0x200000, End: 0x400000, BuildIDSize: 20}
	p := &RawProfile{Name: fmt.Sprintf("in%d", i), Version: version, Versions: []uint64{version},
		Segments: []SegmentEntry{seg}}
	for s := 0; s < 60; s++ {
		id := uint64(r.Intn(120) + 1)
		if _, ok := p.Stack(id); ok {
			continue
		}
		pr := rand.New(rand.NewSource(int64(id))) // same id, same PCs in every input
		pcs := make([]uint64, 1+pr.Intn(6))
		for j := range pcs {
			pcs[j] = 0x200000 + uint64(pr.Intn(300))*4
		}
		p.setStack(id, pcs)
		p.MIBs = append(p.MIBs, MIBEntry{StackID: id, Info: MemInfoBlock{AllocCount: uint32(i*100 + s), TotalSize: uint64(id)}})
	}
	return p
}

// TestFoldMatchesTreeMerge: folding inputs one by one in FoldOrder (what
// Convert and Converter do) gives exactly what llvm-profdata's per-context
// conversion and pairwise context merge give (treeConvert, the previous
// implementation), for LLVM 16/19 (FrameRuns, call sites appended) and 22
// (first input's call sites; later inputs of a context dropped).
func TestFoldMatchesTreeMerge(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake symbolizer borrows the test binary as an x86-64 ELF file")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := fakeSymbolizer{exe, openHeaders(t, exe)}
	for _, release := range []int{16, 19, 22} {
		version := map[int]uint64{16: 2, 19: 4, 22: 5}[release]
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 24} {
			var inputs []*RawProfile
			for i := 0; i < n; i++ {
				inputs = append(inputs, foldRaw(i, version))
			}
			for _, threads := range []int{n, 1, 2, 3} {
				if threads > n {
					continue
				}
				opts := ConvertOptions{Release: llvmrelease.Release(release), NumThreads: threads, Workers: 2}
				want, err := treeConvert(inputs, bin, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Convert(inputs, bin, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("LLVM %d, %d inputs, %d threads: fold differs from tree merge (%d/%d records, %d/%d frames, %d/%d call stacks, %d/%d runs)",
						release, n, threads, len(got.Records), len(want.Records), len(got.Frames), len(want.Frames),
						len(got.CallStacks), len(want.CallStacks), len(got.FrameRuns), len(want.FrameRuns))
				}
				if threads != n {
					continue
				}
				// The streaming API in FoldOrder gives the same.
				c, err := NewConverter(bin, opts)
				if err != nil {
					t.Fatal(err)
				}
				for _, i := range FoldOrder(n) {
					if err := c.Add(inputs[i]); err != nil {
						t.Fatal(err)
					}
				}
				p, err := c.Profile()
				if err != nil || !reflect.DeepEqual(p, want) {
					t.Errorf("LLVM %d, %d inputs: Converter in FoldOrder differs from tree merge (err %v)", release, n, err)
				}
			}
		}
	}
}

// TestPrepareConcurrent: inputs prepared concurrently, in any order (so
// that addresses are symbolized and frames numbered in another order each
// time), and folded in FoldOrder give exactly what Convert gives.
func TestPrepareConcurrent(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake symbolizer borrows the test binary as an x86-64 ELF file")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := fakeSymbolizer{exe, openHeaders(t, exe)}
	for _, release := range []int{16, 19, 22} {
		version := map[int]uint64{16: 2, 19: 4, 22: 5}[release]
		const n = 9
		var inputs []*RawProfile
		for i := 0; i < n; i++ {
			inputs = append(inputs, foldRaw(i, version))
		}
		opts := ConvertOptions{Release: llvmrelease.Release(release), NumThreads: n, Workers: 2}
		want, err := Convert(inputs, bin, opts)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 4; trial++ {
			c, err := NewConverter(bin, opts)
			if err != nil {
				t.Fatal(err)
			}
			prepared := make([]*Prepared, n)
			var wg sync.WaitGroup
			for _, i := range rand.New(rand.NewSource(int64(trial))).Perm(n) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p, err := c.Prepare(inputs[i])
					if err != nil {
						t.Error(err)
					}
					prepared[i] = p
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			for _, i := range FoldOrder(n) {
				c.Fold(prepared[i])
			}
			got, err := c.Profile()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("LLVM %d, trial %d: concurrent Prepare gives another profile (err %v)", release, trial, err)
			}
		}
	}
}

func TestFoldOrder(t *testing.T) {
	for n, want := range map[int][]int{
		1: {0}, 2: {0, 1}, 3: {0, 1, 2}, 4: {0, 2, 1, 3}, 5: {0, 2, 4, 1, 3},
	} {
		if got := FoldOrder(n); !reflect.DeepEqual(got, want) {
			t.Errorf("FoldOrder(%d) = %v, want %v", n, got, want)
		}
	}
}
