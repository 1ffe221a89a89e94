package instrprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// TestDetectAndHeader: Detect tells each encoding by its head, and
// ReadHeader/ReadFunctionCount read what Read reads, with decode errors
// for a head too short or not indexed.
func TestDetectAndHeader(t *testing.T) {
	data, err := marshal(tinyProfile(), WriteOptions{22, 13, 3, false})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		head []byte
		want Format
	}{
		{data, FormatIndexed},
		{le.AppendUint64(nil, RawMagic), FormatRaw},
		{binary.BigEndian.AppendUint64(nil, RawMagic), FormatRaw},
		{[]byte(" \n--- \nHeapProfileRecords:"), FormatYAML},
		{data[:7], FormatUnknown},
		{nil, FormatUnknown},
	} {
		if got := Detect(c.head); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.head, got, c.want)
		}
	}
	f, err := Read("t.profdata", data)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadHeader("t.profdata", bytes.NewReader(data))
	if err != nil || *h != f.Header {
		t.Fatalf("ReadHeader = %+v, %v; want %+v", h, err, f.Header)
	}
	if n, err := ReadFunctionCount("t.profdata", bytes.NewReader(data), h); err != nil || n != f.NumFunctions {
		t.Errorf("ReadFunctionCount = %d, %v; want %d", n, err, f.NumFunctions)
	}
	for _, c := range []struct {
		data []byte
		want error
	}{
		{data[:39], decode.ErrTruncated},
		{data[:4], decode.ErrTruncated},
		{append([]byte{0}, data[1:]...), decode.ErrBadMagic},
	} {
		_, err := ReadHeader("t.profdata", bytes.NewReader(c.data))
		var de *decode.Error
		if !errors.Is(err, c.want) || !errors.As(err, &de) || de.File != "t.profdata" {
			t.Errorf("ReadHeader(%d bytes) = %v, want a decode error %v", len(c.data), err, c.want)
		}
	}
	bad := *h
	bad.HashOffset = uint64(len(data)) - 8
	if _, err := ReadFunctionCount("t.profdata", bytes.NewReader(data), &bad); !errors.Is(err, decode.ErrTruncated) {
		t.Errorf("ReadFunctionCount past the end = %v, want truncated", err)
	}
	bad.HashOffset = 1 << 63
	if _, err := ReadFunctionCount("t.profdata", bytes.NewReader(data), &bad); !errors.Is(err, decode.ErrMalformed) {
		t.Errorf("ReadFunctionCount at 2^63 = %v, want malformed", err)
	}
}
