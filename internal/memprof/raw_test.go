package memprof

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite generated testdata files")

const rawDir = "../../testdata/memprof/raw"

// TestSyntheticFixtures re-encodes the real v4 fixture as raw v1 and v3
// (no installed runtime writes those) and checks them against the
// committed files; -update rewrites them.
func TestSyntheticFixtures(t *testing.T) {
	p, err := OpenRaw(filepath.Join(rawDir, "v4-llvm19-2dumps.memprofraw"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint64{1, 3} {
		var b bytes.Buffer
		if err := p.writeRaw(&b, v); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(rawDir, "v"+string(rune('0'+v))+"-synthetic.memprofraw")
		if *update {
			if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, b.Bytes()) {
			t.Errorf("%s is stale; run go test -run TestSyntheticFixtures -update", name)
		}
	}
}

type rawFixture struct {
	file                  string
	version               uint64
	dumps, segments, mibs int
	stacks                int
	firstBuildID          string
	firstStart            uint64
	maxHistogram          int // longest histogram
}

var rawFixtures = []rawFixture{
	{file: "v1-synthetic.memprofraw", version: 1, dumps: 1, segments: 8, mibs: 33, stacks: 33, firstBuildID: "<None>", firstStart: 0x200000},
	{file: "v2-llvm16.memprofraw", version: 2, dumps: 1, segments: 8, mibs: 35, stacks: 35, firstBuildID: "<None>", firstStart: 0x200000},
	{file: "v3-synthetic.memprofraw", version: 3, dumps: 1, segments: 8, mibs: 33, stacks: 33, firstBuildID: "e2d1c1334e858ee82ed3289683d89ae89efe2e2f", firstStart: 0x200000},
	{file: "v4-llvm19-2dumps.memprofraw", version: 4, dumps: 2, segments: 8, mibs: 33, stacks: 33, firstBuildID: "e2d1c1334e858ee82ed3289683d89ae89efe2e2f", firstStart: 0x200000},
	{file: "v5-llvm22-pie.memprofraw", version: 5, dumps: 1, segments: 8, mibs: 33, stacks: 33, firstBuildID: "75ddef2b7f1cf3baac5967c88da1b689e1357ef3", firstStart: 0x556a2866d000},
	{file: "v5-llvm22-hist.memprofraw", version: 5, dumps: 1, segments: 8, mibs: 5, stacks: 5, firstBuildID: "5c3de66519c2c6d75d819c2b86359383636947ba", firstStart: 0x200000, maxHistogram: 9088},
}

func TestReadRawFixtures(t *testing.T) {
	for _, f := range rawFixtures {
		t.Run(f.file, func(t *testing.T) {
			p, err := OpenRaw(filepath.Join(rawDir, f.file))
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != f.version || len(p.Versions) != f.dumps || len(p.Segments) != f.segments ||
				len(p.MIBs) != f.mibs || len(p.StackIDs) != f.stacks {
				t.Errorf("got version %d, %d dumps, %d segments, %d MIBs, %d stacks; want %d, %d, %d, %d, %d",
					p.Version, len(p.Versions), len(p.Segments), len(p.MIBs), len(p.StackIDs),
					f.version, f.dumps, f.segments, f.mibs, f.stacks)
			}
			if got := p.Segments[0].BuildIDString(p.Version); got != f.firstBuildID {
				t.Errorf("first segment build id = %s, want %s", got, f.firstBuildID)
			}
			if p.Segments[0].Start != f.firstStart {
				t.Errorf("first segment start = %#x, want %#x", p.Segments[0].Start, f.firstStart)
			}
			longest := 0
			for _, m := range p.MIBs {
				if int(m.Info.AccessHistogramSize) != len(m.Info.Histogram) {
					t.Errorf("stack %d: AccessHistogramSize %d but %d counters", m.StackID, m.Info.AccessHistogramSize, len(m.Info.Histogram))
				}
				longest = max(longest, len(m.Info.Histogram))
				if m.Info.AllocCount == 0 {
					t.Errorf("stack %d: AllocCount 0", m.StackID)
				}
				if _, ok := p.Stack(m.StackID); !ok {
					t.Errorf("MIB stack id %d has no stack", m.StackID)
				}
			}
			if longest != f.maxHistogram {
				t.Errorf("longest histogram = %d, want %d", longest, f.maxHistogram)
			}
		})
	}
}

// TestRawRoundTrip re-encodes every fixture in its own version and checks
// the decoded profiles agree (multi-dump files come back as one merged dump).
func TestRawRoundTrip(t *testing.T) {
	for _, f := range rawFixtures {
		t.Run(f.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(rawDir, f.file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := ReadRaw(f.file, data)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, p)
			if f.dumps == 1 {
				var b bytes.Buffer
				if err := p.writeRaw(&b, p.Version); err != nil {
					t.Fatal(err)
				}
				if f.version < 5 && !bytes.Equal(b.Bytes(), data) {
					// v5 padding is not zeroed by the runtime; older
					// versions must come back byte for byte.
					t.Errorf("writeRaw(ReadRaw(file)) differs from the file")
				}
			}
		})
	}
}

func checkRoundTrip(t testing.TB, p *RawProfile) {
	t.Helper()
	var b bytes.Buffer
	if err := p.writeRaw(&b, p.Version); err != nil {
		t.Fatal(err)
	}
	q, err := ReadRaw("rewritten", b.Bytes())
	if err != nil {
		t.Fatalf("re-reading writeRaw output: %v", err)
	}
	if !reflect.DeepEqual(p.Segments, q.Segments) {
		t.Errorf("segments differ after round trip")
	}
	if !reflect.DeepEqual(p.MIBs, q.MIBs) {
		t.Errorf("MIBs differ after round trip")
	}
	if !reflect.DeepEqual(p.StackIDs, q.StackIDs) || !reflect.DeepEqual(stackMap(p), stackMap(q)) {
		t.Errorf("stacks differ after round trip")
	}
}

// stackMap returns p's stacks by id. A stack of no frames is nil however
// the reader holds it (a stack read from the file is an empty slice, one
// that was never read is nil: both are a stack of no frames).
func stackMap(p *RawProfile) map[uint64][]uint64 {
	m := map[uint64][]uint64{}
	for _, id := range p.StackIDs {
		pcs, _ := p.Stack(id)
		m[id] = append([]uint64(nil), pcs...)
	}
	return m
}
