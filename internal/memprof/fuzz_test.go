package memprof

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// tinyRaw is a raw profile of the given version with one segment, one MIB
// (with a histogram from v4) and its stack: a fuzz seed small enough that
// the fuzzer's minimization of the inputs it derives stays fast (it makes
// up to n²/2 executions for an n-byte input).
func tinyRaw(t testing.TB, version uint64) []byte {
	m := MemInfoBlock{AllocCount: 1, TotalSize: 8, MaxSize: 8, TotalLifetimeAccessDensity: 3}
	if version >= 4 {
		m.AccessHistogramSize, m.Histogram = 2, []uint64{1, 5000}
	}
	p := &RawProfile{Segments: []SegmentEntry{{Start: 0x1000, End: 0x2000, BuildIDSize: 2, BuildID: [32]byte{0xab, 0xcd}}},
		MIBs: []MIBEntry{{StackID: 1, Info: m}}}
	p.setStack(1, []uint64{0x1010, 0x7f00})
	var b bytes.Buffer
	if err := p.writeRaw(&b, version); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// maxFuzzInput bounds the inputs the fuzz targets decode: anything a
// larger input reaches, a smaller one does too, and large inputs make each
// execution and the minimization of what they find slow.
const maxFuzzInput = 4 << 10

// checkDecodeError fails unless err is a *decode.Error of format naming
// file and wrapping one of the decode sentinels: what ReadRaw promises.
func checkDecodeError(t *testing.T, err error, format, file string) {
	t.Helper()
	var de *decode.Error
	if !errors.As(err, &de) || de.Format != format || de.File != file || de.Section == "" || de.Offset < 0 {
		t.Fatalf("error %v (%T) is not a *decode.Error of %s naming %s and a section", err, err, format, file)
	}
	for _, s := range []error{decode.ErrBadMagic, decode.ErrUnsupportedVersion, decode.ErrTruncated, decode.ErrMalformed} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps none of the decode sentinels", err)
}

// FuzzReadRaw checks that ReadRaw never panics, that its errors are
// *decode.Error values, and that whatever it accepts re-encodes (writeRaw)
// to a file that decodes to the same profile.
func FuzzReadRaw(f *testing.F) {
	for v := uint64(minRawVersion); v <= maxRawVersion; v++ {
		f.Add(tinyRaw(f, v))
	}
	f.Add(append(tinyRaw(f, 1), tinyRaw(f, 1)...)) // two dumps
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p, err := ReadRaw("fuzz", data)
		if err != nil {
			checkDecodeError(t, err, "memprof", "fuzz")
			return
		}
		for _, v := range p.Versions {
			if v != p.Version {
				return // mixed versions: rewriting in one version drops fields
			}
		}
		checkRoundTrip(t, p)
	})
}
