package decode

import (
	"bytes"
	"compress/zlib"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func zlibStream(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestUncompress: the size rule and the checks every decompressor shares,
// on streams inside a container (8 bytes before the stream, so offsets
// are the container's).
func TestUncompress(t *testing.T) {
	plain := bytes.Repeat([]byte("function_name\x01"), 50)
	z := zlibStream(t, plain)
	const at = 8
	wrap := func(z []byte) []byte { return append(make([]byte, at), z...) }
	flip := func(i int) []byte {
		b := bytes.Clone(z)
		b[i] ^= 0x40
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		n      int // compressed bytes given; -1 = all
		size   uint64
		off    int64 // where the error points; -1 = no error
		reason string
	}{
		{"whole", z, -1, uint64(len(plain)), -1, ""},
		// zlib's uncompress ignores what follows the stream's end, so does LLVM.
		{"trailing bytes", append(bytes.Clone(z), 1, 2, 3), -1, uint64(len(plain)), -1, ""},
		{"adler32 byte", flip(len(z) - 1), -1, uint64(len(plain)), at + int64(len(z)) - 4, "Z_DATA_ERROR (adler32 checksum"},
		{"adler32 first byte", flip(len(z) - 4), -1, uint64(len(plain)), at + int64(len(z)) - 4, "adler32"},
		{"header", flip(0), -1, uint64(len(plain)), at, "Z_DATA_ERROR"},
		{"cut short", z[:len(z)-6], -1, uint64(len(plain)), at + int64(len(z)) - 6, "cut short"},
		{"cut in the trailer", z[:len(z)-2], -1, uint64(len(plain)), at + int64(len(z)) - 2, "cut short"},
		{"claim one less", z, -1, uint64(len(plain)) - 1, at, "decompresses to more than the 699 bytes claimed"},
		{"claim one more", z, -1, uint64(len(plain)) + 1, at + int64(len(z)), "ends after 700 of the 701 bytes claimed"},
		{"claim past the rule", z, -1, MaxUncompressed(uint64(len(z))) + 1, at, "more than the"},
		{"claim 4 GiB", z, -1, 4 << 30, at, "claims 4294967296 bytes"},
		{"empty", zlibStream(t, nil), -1, 0, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.data)
			c := NewCursor("test", "f", "sec", wrap(tc.data), at)
			out := c.Uncompress(uint64(n), tc.size, "Uncompress failure")
			err := c.Err()
			if tc.off < 0 {
				if err != nil || !bytes.Equal(out, plain[:tc.size]) {
					t.Fatalf("err %v, %d bytes; want the %d bytes", err, len(out), tc.size)
				}
				if c.Off() != at+n {
					t.Errorf("cursor at %d, want %d", c.Off(), at+n)
				}
				return
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("err %v, want a *decode.Error", err)
			}
			if de.Offset != tc.off || de.Section != "sec" || de.File != "f" || !strings.HasPrefix(de.Msg, "Uncompress failure: ") || !strings.Contains(de.Msg, tc.reason) {
				t.Errorf("err %v (offset %#x), want offset %#x and %q", err, de.Offset, tc.off, tc.reason)
			}
			if out != nil {
				t.Error("data returned with an error")
			}
		})
	}
}

func TestMaxUncompressed(t *testing.T) {
	for _, tc := range []struct{ n, want uint64 }{
		{0, 64 << 10},
		{1000, 1032000 + 64<<10},
		{1 << 30, 4 << 30},
		{1<<64 - 1, 4 << 30},
	} {
		if got := MaxUncompressed(tc.n); got != tc.want {
			t.Errorf("MaxUncompressed(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestUncompressGrows: a claim within the rule allocates as data arrives,
// not the claim up front.
func TestUncompressGrows(t *testing.T) {
	z := zlibStream(t, []byte("x"))
	claim := MaxUncompressed(uint64(len(z)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c := NewCursor("test", "f", "sec", z, 0)
	c.Uncompress(uint64(len(z)), claim, "fail")
	runtime.ReadMemStats(&after)
	if c.Err() == nil {
		t.Fatalf("accepted a 1-byte stream claiming %d bytes", claim)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 256<<10 {
		t.Errorf("allocated %d bytes for a 1-byte stream claiming %d", d, claim)
	}
}
