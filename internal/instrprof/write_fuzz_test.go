package instrprof

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// shapeProfile builds a small profile from fuzz bytes: a few frames shared
// among call stacks of varied depth, records with any mix of alloc and call
// sites, and MIB values and callee GUIDs taken from the bytes.
func shapeProfile(data []byte) *memprof.Profile {
	i := 0
	next := func() int {
		if i >= len(data) {
			return 0
		}
		i++
		return int(data[i-1])
	}
	frames := make([]memprof.Frame, 1+next()%12)
	for k := range frames {
		frames[k] = memprof.Frame{Function: uint64(k%5+1) * 0x9e3779b97f4a7c15, LineOffset: uint32(next() % 4), Column: uint32(k), IsInlineFrame: next()%3 == 0}
	}
	stack := func(depth int) []memprof.Frame {
		st := make([]memprof.Frame, depth)
		for k := range st {
			st[k] = frames[next()%len(frames)]
		}
		return st
	}
	p := &memprof.Profile{}
	for r := range next() % 7 {
		rec := &memprof.Record{GUID: uint64(r+1) * 0xc2b2ae3d27d4eb4f}
		for range next() % 5 {
			st := stack(1 + next()%9)
			rec.AllocSites = append(rec.AllocSites, memprof.AllocationInfo{CallStack: st, Info: memprof.MemInfoBlock{
				AllocCount: uint32(1 + next()), TotalSize: uint64(next() << 12), TotalLifetime: uint64(next() << 20),
				TotalLifetimeAccessDensity: uint64(next()), MaxAccessCount: uint64(next()), NumSameAllocCpu: uint32(next()),
			}})
			p.CallStacks = append(p.CallStacks, st)
		}
		for range next() % 3 {
			c := memprof.CallSite{Frames: stack(1 + next()%3)}
			for range next() % 3 {
				c.CalleeGUIDs = append(c.CalleeGUIDs, uint64(next()+1))
			}
			rec.CallSites = append(rec.CallSites, c)
		}
		p.Records = append(p.Records, rec)
	}
	return p
}

var shapeOptions = []WriteOptions{{16, 9, 0, false}, {19, 12, 0, false}, {19, 12, 1, false}, {19, 12, 2, true},
	{19, 12, 3, false}, {22, 13, 2, false}, {22, 13, 3, true}, {22, 13, 4, false}}

// FuzzWriteShapes: for profiles of any shape, the writer's bytes do not
// depend on the number of workers or on how items are cut into chunks and
// batches, Write streams what marshal returns, and Read reads the records
// back. The first byte picks the writer options, so that one execution
// stays cheap (and so the minimization of what it finds).
func FuzzWriteShapes(f *testing.F) {
	for i := range shapeOptions {
		f.Add([]byte{byte(i), 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 6, 4, 3, 2, 1, 0, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	}
	f.Add([]byte{7, 11, 3, 8, 1, 4, 250, 7, 2, 11, 3, 8, 1, 4, 250, 7, 2, 11, 3, 8, 1, 4, 250, 7, 2})
	defer func(w, b, c int) { container.ForceWorkers, container.BatchSize, container.ChunkMin = w, b, c }(container.ForceWorkers, container.BatchSize, container.ChunkMin)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		o := shapeOptions[int(data[0])%len(shapeOptions)]
		p := shapeProfile(data[1:])
		name := fmt.Sprintf("llvm%d-v%d", o.Release, o.MemProfVersion)
		container.ForceWorkers, container.BatchSize, container.ChunkMin = 1, 256<<10, 64<<10
		want, err := marshal(p, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		container.ForceWorkers, container.BatchSize, container.ChunkMin = 3, 40, 16
		got, err := marshal(p, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sb bytes.Buffer
		if err := Write(&sb, p, o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) || !bytes.Equal(sb.Bytes(), want) {
			t.Fatalf("%s: output depends on workers or batching", name)
		}
		file, err := Read("fuzz", want)
		if err != nil {
			t.Fatalf("%s: reading what marshal wrote: %v", name, err)
		}
		if w, g := recordSet(withoutCallees(p, o)), recordSet(file.Profile); !slices.Equal(w, g) {
			t.Fatalf("%s: records changed in the round trip:\n%q\n%q", name, w, g)
		}
	})
}

// withoutCallees is p as a version without callee GUIDs (before V4) stores it.
func withoutCallees(p *memprof.Profile, o WriteOptions) *memprof.Profile {
	if o.MemProfVersion >= 4 {
		return p
	}
	q := &memprof.Profile{}
	for _, r := range p.Records {
		c := *r
		c.CallSites = nil
		for _, s := range r.CallSites {
			c.CallSites = append(c.CallSites, memprof.CallSite{Frames: s.Frames})
		}
		q.Records = append(q.Records, &c)
	}
	return q
}
