package decode

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCursorReads(t *testing.T) {
	data := []byte{
		0x01,       // u8
		0x02, 0x03, // u16
		0x04, 0x05, 0x06, // u24
		0x07, 0x08, 0x09, 0x0a, // u32
		0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, // u64
		0xe5, 0x8e, 0x26, // uleb 624485
		0xc0, 0xbb, 0x78, // sleb -123456
		'h', 'i', 0, // cstring
	}
	for _, big := range []bool{false, true} {
		c := NewCursor("test", "f", "s", data, 0)
		c.SetBigEndian(big)
		u8, u16, u24, u32, u64 := c.U8(), c.U16(), c.U24(), c.U32(), c.U64()
		uleb, sleb, s := c.Uleb(), c.Sleb(), c.CString()
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		want16, want24, want32, want64 := uint16(0x0302), uint32(0x060504), uint32(0x0a090807), uint64(0x1211100f0e0d0c0b)
		if big {
			want16, want24, want32, want64 = 0x0203, 0x040506, 0x0708090a, 0x0b0c0d0e0f101112
		}
		if u8 != 1 || u16 != want16 || u24 != want24 || u32 != want32 || u64 != want64 || uleb != 624485 || sleb != -123456 || s != "hi" {
			t.Errorf("big=%v: got %#x %#x %#x %#x %#x %d %d %q", big, u8, u16, u24, u32, u64, uleb, sleb, s)
		}
		if c.Remaining() != 0 {
			t.Errorf("big=%v: %d bytes remain", big, c.Remaining())
		}
	}
}

func TestCursorErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		read func(c *Cursor)
		kind error
		off  int64
		msg  string
	}{
		{"short u32", []byte{1, 2}, func(c *Cursor) { c.U32() }, ErrTruncated, 0, "f: test: s at offset 0x0: truncated: need 4 bytes, have 2"},
		{"sticky", []byte{1, 2, 3}, func(c *Cursor) { c.U16(); c.U16(); c.U8() }, ErrTruncated, 2, "need 2 bytes, have 1"},
		{"uleb", []byte{0x80, 0x80}, func(c *Cursor) { c.Uleb() }, ErrTruncated, 2, "truncated ULEB128"},
		{"cstring", []byte{'a', 'b'}, func(c *Cursor) { c.CString() }, ErrTruncated, 0, "unterminated string"},
		{"seek", []byte{1}, func(c *Cursor) { c.Seek(2) }, ErrMalformed, 0, "offset 0x2 is past the end (0x1)"},
		{"count", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0}, func(c *Cursor) { c.Count(8, "records") }, ErrTruncated, 0, "2^64 or more bytes, have 1"},
		{"huge bytes", []byte{1}, func(c *Cursor) { c.Bytes(math.MaxUint64) }, ErrTruncated, 0, "need 18446744073709551615 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCursor("test", "f", "s", tt.data, 0)
			tt.read(&c)
			var e *Error
			if !errors.As(c.Err(), &e) || !errors.Is(c.Err(), tt.kind) {
				t.Fatalf("err = %v, want an *Error wrapping %v", c.Err(), tt.kind)
			}
			if e.Offset != tt.off {
				t.Errorf("offset = %d, want %d", e.Offset, tt.off)
			}
			if got := e.Error(); !strings.Contains(got, tt.msg) {
				t.Errorf("Error() = %q, want it to contain %q", got, tt.msg)
			}
			if c.U64() != 0 || c.U8() != 0 || c.Uleb() != 0 || c.Remaining() != 0 || !errors.Is(c.Err(), tt.kind) {
				t.Error("reads after an error return data")
			}
		})
	}
}

func FuzzCursor(f *testing.F) {
	f.Add([]byte{0x80, 0x01, 3, 'a', 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewCursor("fuzz", "", "data", data, 0)
		for c.Err() == nil && c.Remaining() > 0 {
			switch c.U8() % 8 {
			case 0:
				c.Uleb()
			case 1:
				c.Sleb()
			case 2:
				c.CString()
			case 3:
				c.UintN(c.U8())
			case 4:
				c.Bytes(uint64(c.U8()))
			case 5:
				c.Count(int(c.U8()), "n")
			case 6:
				c.Skip(uint64(c.U8()))
			default:
				c.U24()
			}
		}
		if c.Off() > c.Len() {
			t.Fatalf("offset %d past the end %d", c.Off(), c.Len())
		}
	})
}
