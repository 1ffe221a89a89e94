package elfsym

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// buf is a bounds-checked cursor over one section's bytes. The first error
// sticks: later reads return zero values, so decoders check err once after a
// group of reads. Offsets are section offsets, used in error messages.
type buf struct {
	file  string
	sec   string
	data  []byte
	off   uint64 // current offset within data
	order binary.ByteOrder
	err   error
}

func makeBuf(file, sec string, data []byte, off uint64, order binary.ByteOrder) buf {
	b := buf{file: file, sec: sec, data: data, off: off, order: order}
	if off > uint64(len(data)) {
		b.fail(off, fmt.Sprintf("offset past end of section (size %#x)", len(data)))
	}
	return b
}

func (b *buf) fail(off uint64, msg string) {
	if b.err == nil {
		b.err = &FormatError{File: b.file, Section: b.sec, Offset: off, Msg: msg}
	}
	b.off = uint64(len(b.data))
}

func (b *buf) errorf(format string, args ...any) {
	b.fail(b.off, fmt.Sprintf(format, args...))
}

func (b *buf) remaining() uint64 {
	if b.err != nil || b.off >= uint64(len(b.data)) {
		return 0
	}
	return uint64(len(b.data)) - b.off
}

func (b *buf) bytes(n uint64) []byte {
	if b.err != nil {
		return nil
	}
	if n > b.remaining() {
		b.fail(b.off, fmt.Sprintf("truncated: need %d bytes, have %d", n, b.remaining()))
		return nil
	}
	s := b.data[b.off : b.off+n]
	b.off += n
	return s
}

func (b *buf) skip(n uint64) { b.bytes(n) }

func (b *buf) u8() uint8 {
	if off := b.off; off < uint64(len(b.data)) && b.err == nil {
		b.off = off + 1
		return b.data[off]
	}
	s := b.bytes(1)
	if s == nil {
		return 0
	}
	return s[0]
}

func (b *buf) u16() uint16 {
	s := b.bytes(2)
	if s == nil {
		return 0
	}
	return b.order.Uint16(s)
}

func (b *buf) u24() uint32 {
	s := b.bytes(3)
	if s == nil {
		return 0
	}
	if b.order == binary.BigEndian {
		return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2])
	}
	return uint32(s[2])<<16 | uint32(s[1])<<8 | uint32(s[0])
}

func (b *buf) u32() uint32 {
	s := b.bytes(4)
	if s == nil {
		return 0
	}
	return b.order.Uint32(s)
}

func (b *buf) u64() uint64 {
	s := b.bytes(8)
	if s == nil {
		return 0
	}
	return b.order.Uint64(s)
}

// uintN reads an n-byte unsigned value (n in 1, 2, 4, 8).
func (b *buf) uintN(n uint8) uint64 {
	switch n {
	case 1:
		return uint64(b.u8())
	case 2:
		return uint64(b.u16())
	case 4:
		return uint64(b.u32())
	case 8:
		return b.u64()
	}
	b.errorf("unsupported size %d", n)
	return 0
}

// uleb reads a ULEB128. The one-byte case is small enough to inline.
func (b *buf) uleb() uint64 {
	if off := b.off; off < uint64(len(b.data)) && b.data[off] < 0x80 && b.err == nil {
		b.off = off + 1
		return uint64(b.data[off])
	}
	return b.ulebSlow()
}

func (b *buf) ulebSlow() uint64 {
	var v uint64
	var shift uint
	for {
		if b.err != nil {
			return 0
		}
		if b.off >= uint64(len(b.data)) {
			b.errorf("truncated ULEB128")
			return 0
		}
		c := b.data[b.off]
		b.off++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

func (b *buf) sleb() int64 {
	var v int64
	var shift uint
	for {
		if b.err != nil {
			return 0
		}
		if b.off >= uint64(len(b.data)) {
			b.errorf("truncated SLEB128")
			return 0
		}
		c := b.data[b.off]
		b.off++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

// cstring reads a NUL-terminated string.
func (b *buf) cstring() string {
	if b.err != nil {
		return ""
	}
	for i := b.off; i < uint64(len(b.data)); i++ {
		if b.data[i] == 0 {
			s := string(b.data[b.off:i])
			b.off = i + 1
			return s
		}
	}
	b.errorf("unterminated string")
	return ""
}

// skipCString skips a NUL-terminated string without allocating.
func (b *buf) skipCString() {
	if b.err != nil {
		return
	}
	if b.off < uint64(len(b.data)) {
		if n := bytes.IndexByte(b.data[b.off:], 0); n >= 0 {
			b.off += uint64(n) + 1
			return
		}
	}
	b.errorf("unterminated string")
}

// unitLength reads an initial length field and returns the length and the
// offset size (4 or 8).
func (b *buf) unitLength() (uint64, uint8) {
	n := uint64(b.u32())
	if n == 0xffffffff {
		return b.u64(), 8
	}
	if n >= 0xfffffff0 {
		b.fail(b.off-4, fmt.Sprintf("reserved unit length %#x", n))
		return 0, 4
	}
	return n, 4
}

// cstringAt returns the NUL-terminated string at off in data.
func cstringAt(data []byte, off uint64) (string, bool) {
	if off >= uint64(len(data)) {
		return "", false
	}
	n := bytes.IndexByte(data[off:], 0)
	if n < 0 {
		return "", false
	}
	return string(data[off : off+uint64(n)]), true
}
