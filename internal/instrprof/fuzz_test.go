package instrprof

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The fuzz targets' seeds are small on purpose: the fuzzer minimizes every
// input that finds new coverage, trying up to n²/2 variants of an n-byte
// input, so seeds of a few kilobytes stall a short run in minimization.
// The LLVM-written fixtures are decoded by the conformance tests instead.

// maxFuzzInput bounds the inputs the fuzz targets decode: anything a larger
// input reaches, a smaller one does too.
const maxFuzzInput = 4 << 10

// recordSet is the sorted list of record dumps (hot/cold fields only), to
// compare profiles whose record order may legitimately differ.
func recordSet(p *memprof.Profile) []string {
	var b strings.Builder
	writeRecords(&b, p, HotColdSchema)
	s := strings.Split(b.String(), "Record ")
	slices.Sort(s)
	return s
}

// tinyProfile has one record with one alloc site and one call site.
func tinyProfile() *memprof.Profile {
	return &memprof.Profile{Records: []*memprof.Record{{
		GUID: 0x1234,
		AllocSites: []memprof.AllocationInfo{{
			CallStack: []memprof.Frame{{Function: 0x1234, LineOffset: 1, Column: 2}, {Function: 0x99, LineOffset: 3, IsInlineFrame: true}},
			Info:      memprof.MemInfoBlock{AllocCount: 1, TotalSize: 8, TotalLifetime: 1000, TotalLifetimeAccessDensity: 2},
		}},
		CallSites: []memprof.CallSite{{Frames: []memprof.Frame{{Function: 0x1234, LineOffset: 5}}, CalleeGUIDs: []uint64{7}}},
	}}}
}

// checkDecodeError fails unless err is an instrprof *decode.Error naming
// file and wrapping one of the decode sentinels, as Read and ReadYAML
// promise.
func checkDecodeError(t *testing.T, err error, file string) {
	t.Helper()
	var de *decode.Error
	if !errors.As(err, &de) || de.Format != "instrprof" || de.File != file || de.Section == "" || de.Offset < 0 {
		t.Fatalf("error %v (%T) is not an instrprof *decode.Error naming %s and a section", err, err, file)
	}
	for _, s := range []error{decode.ErrBadMagic, decode.ErrUnsupportedVersion, decode.ErrTruncated, decode.ErrMalformed} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps none of the decode sentinels", err)
}

// FuzzRead: Read never panics and fails only with *decode.Error values;
// whatever it decodes must re-encode and read back to the same records.
func FuzzRead(f *testing.F) {
	for _, o := range []WriteOptions{{16, 9, 0, false}, {19, 12, 1, false}, {19, 12, 2, true}, {22, 13, 3, false}, {22, 13, 4, false}} {
		data, err := marshal(tinyProfile(), o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// The smallest LLVM-written files.
	for _, name := range []string{"yamlin.llvm22.v3.profdata", "yamlin.llvm22.v4.profdata"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		file, err := Read("fuzz", data)
		if err != nil {
			checkDecodeError(t, err, "fuzz")
			return
		}
		if file.Profile == nil {
			return
		}
		// Shared radix prefixes let a small input name millions of frames;
		// re-encoding those is correct but too slow for fuzzing.
		frames := 0
		for _, r := range file.Profile.Records {
			for _, a := range r.AllocSites {
				frames += len(a.CallStack)
			}
			for _, c := range r.CallSites {
				frames += len(c.Frames)
			}
		}
		if frames > 20000 {
			return
		}
		opts := WriteOptions{Release: 22, IndexVersion: 13, MemProfVersion: file.MemProfVersion}
		if file.MemProfVersion <= 1 {
			opts = WriteOptions{Release: 19, IndexVersion: 12, MemProfVersion: file.MemProfVersion}
		}
		out, err := marshal(file.Profile, opts)
		if err != nil {
			t.Fatalf("marshal of a decoded profile: %v", err)
		}
		again, err := Read("re-encoded", out)
		if err != nil {
			t.Fatalf("Read of re-encoded profile: %v", err)
		}
		if !slices.Equal(recordSet(file.Profile), recordSet(again.Profile)) {
			t.Fatalf("records changed in re-encoding")
		}
	})
}

// FuzzReadYAML: ReadYAML never panics and fails only with *decode.Error
// values; what it accepts writes as YAML and reads back to the same
// records.
func FuzzReadYAML(f *testing.F) {
	f.Add([]byte(`---
HeapProfileRecords:
  - GUID: 0x1234
    AllocSites:
      - Callstack:
          - { Function: 0x1234, LineOffset: 1, Column: 2, IsInlineFrame: false }
        MemInfoBlock:
          AllocCount: 1
          TotalSize: 8
    CallSites:
      - Frames:
          - { Function: foo, LineOffset: 3, Column: 0, IsInlineFrame: true }
        CalleeGuids: [ 0x7 ]
...
`))
	f.Add([]byte("# MemProfSummary\n---\nHeapProfileRecords:\n  - GUID: main\n    CallSites:\n      - - { Function: 0x5, LineOffset: 0, Column: 1, IsInlineFrame: y }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p, err := ReadYAML("fuzz.yaml", data)
		if err != nil {
			checkDecodeError(t, err, "fuzz.yaml")
			return
		}
		var buf bytes.Buffer
		if err := WriteYAMLSchema(&buf, p, memprof.KnownFields(22), nil); err != nil {
			t.Fatal(err)
		}
		q, err := ReadYAML("again.yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("ReadYAML of WriteYAML output: %v\n%s", err, buf.Bytes())
		}
		if !slices.Equal(recordSet(p), recordSet(q)) {
			t.Fatalf("records changed in YAML round trip")
		}
	})
}
