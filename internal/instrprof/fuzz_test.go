package instrprof

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
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
	writeRecords(&b, p, memprofidx.HotColdSchema)
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
// file and wrapping one of the decode sentinels, as Read promises.
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
		checkHead(t, data)
		file, err := Read("fuzz", data)
		if err != nil {
			checkDecodeError(t, err, "fuzz")
			return
		}
		// What routes a file agrees with what decodes it.
		if Detect(data) != FormatIndexed {
			t.Fatalf("Detect = %v for a file Read decodes", Detect(data))
		}
		h, err := ReadHeader("fuzz", bytes.NewReader(data))
		if err != nil || *h != file.Header {
			t.Fatalf("ReadHeader = %+v, %v; Read's header %+v", h, err, file.Header)
		}
		if n, err := ReadFunctionCount("fuzz", bytes.NewReader(data), h); err != nil || n != file.NumFunctions {
			t.Fatalf("ReadFunctionCount = %d, %v; Read's %d", n, err, file.NumFunctions)
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

// checkHead checks that ReadHeader and ReadFunctionCount return decode
// errors, or a header, on any input.
func checkHead(t *testing.T, data []byte) {
	t.Helper()
	h, err := ReadHeader("fuzz", bytes.NewReader(data))
	if err != nil {
		checkDecodeError(t, err, "fuzz")
		return
	}
	if _, err := ReadFunctionCount("fuzz", bytes.NewReader(data), h); err != nil {
		checkDecodeError(t, err, "fuzz")
	}
}
