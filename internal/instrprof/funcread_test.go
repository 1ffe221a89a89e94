package instrprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// tinyIndexed returns tinyRaw merged and written as llvm-profdata of
// release writes it, with bitmaps and a temporal trace when the release
// writes them.
func tinyIndexed(t testing.TB, release int, temporal bool) []byte {
	t.Helper()
	p := tinyRaw()
	if temporal {
		p.Variant |= VariantTemporalProf
		p.Trace = []uint64{llvmname.GUID("f"), llvmname.GUID("main")}
		p.Records[1].Bitmap = []byte{5, 0}
	}
	f := NewFuncProfile()
	f.AddRaw(p, 1)
	return writeFuncsAt(t, release, f)
}

// rewrite reads an indexed profile's function records and writes them
// again at release.
func rewrite(t testing.TB, release int, data []byte) ([]byte, error) {
	f, err := ReadFuncs("in.profdata", data)
	if err != nil {
		return nil, err
	}
	p := NewFuncProfile()
	p.AddIndexed(f, 1)
	return writeFuncsAt(t, release, p), nil
}

// TestReadFuncsRoundTrip: what we write reads back to the same records
// (the indexed file re-written is the same bytes), for the index version
// of each release.
func TestReadFuncsRoundTrip(t *testing.T) {
	for _, rel := range []int{16, 19, 22} {
		for _, temporal := range []bool{false, rel >= 19} {
			data := tinyIndexed(t, rel, temporal)
			got, err := rewrite(t, rel, data)
			if err != nil {
				t.Fatalf("LLVM %d: %v", rel, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("LLVM %d (temporal %v): re-written file differs", rel, temporal)
			}
		}
	}
}

// TestReadFuncsErrors: damaged function records are *decode.Error values
// naming the section and the offset.
func TestReadFuncsErrors(t *testing.T) {
	data := tinyIndexed(t, 22, true)
	le := binary.LittleEndian
	hashOff := le.Uint64(data[32:])
	tracesOff := le.Uint64(data[56:])
	// The first non-empty bucket: u16 count, then the first item's u64
	// hash, u64 key length, u64 data length, the key, u64 hash, u64
	// #counters.
	bucket := func() uint64 {
		nb := le.Uint64(data[hashOff:])
		for b := range nb {
			if o := le.Uint64(data[hashOff+16+8*b:]); o != 0 {
				return o
			}
		}
		t.Fatal("no bucket")
		return 0
	}()
	cases := []struct {
		name    string
		edit    func(b []byte)
		section string
		kind    error
	}{
		{"counter count", func(b []byte) { le.PutUint64(b[bucket+2+8+16+uint64(le.Uint64(b[bucket+2+8:]))+8:], 1<<40) }, "function record", decode.ErrMalformed},
		{"data length", func(b []byte) { le.PutUint64(b[bucket+2+16:], 1<<40) }, "function table", decode.ErrTruncated},
		{"trace count", func(b []byte) { le.PutUint64(b[tracesOff:], 1<<50) }, "temporal profile traces", nil},
		{"trace stream size", func(b []byte) { le.PutUint64(b[tracesOff+8:], 1<<40) }, "temporal profile traces", decode.ErrMalformed},
		{"bucket offset", func(b []byte) { le.PutUint64(b[hashOff+16:], hashOff+8) }, "function table", decode.ErrMalformed},
	}
	for _, c := range cases {
		b := bytes.Clone(data)
		c.edit(b)
		_, err := ReadFuncs("bad.profdata", b)
		var de *decode.Error
		if !errors.As(err, &de) || de.Section != c.section || de.File != "bad.profdata" || de.Offset <= 0 {
			t.Errorf("%s: error %v, want a decode.Error in section %q with an offset", c.name, err, c.section)
			continue
		}
		if c.kind != nil && !errors.Is(err, c.kind) {
			t.Errorf("%s: error %v is not %v", c.name, err, c.kind)
		}
	}
}

// FuzzReadFuncs: ReadFuncs returns a profile or an instrprof
// *decode.Error, never panics; a profile it decodes, written again and
// read back, writes the same bytes.
func FuzzReadFuncs(f *testing.F) {
	for _, rel := range []int{16, 19, 22} {
		f.Add(tinyIndexed(f, rel, false))
	}
	f.Add(tinyIndexed(f, 22, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		fl, err := ReadFuncs("fuzz.profdata", data)
		if err != nil {
			checkDecodeError(t, err, "fuzz.profdata")
			return
		}
		if len(fl.Funcs) > 64 || fl.Header.IndexVersion() < 9 {
			return
		}
		once, err := rewrite(t, 22, data)
		if err != nil {
			t.Fatalf("read once, not twice: %v", err)
		}
		twice, err := rewrite(t, 22, once)
		if err != nil {
			t.Fatalf("our own output does not read: %v", err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("writing what we read is not stable")
		}
	})
}
