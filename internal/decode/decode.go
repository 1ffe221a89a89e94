// Package decode is what every binary-format package of rules_pgo shares:
// one error type that says where decoding failed, the sentinels callers
// compare against with errors.Is, and a bounds-checked byte cursor with a
// sticky error.
//
// The convention (DEVELOPERS.md has the long form):
//
//   - A format package decodes through a Cursor. The first failed read
//     records an *Error naming the format, file, section and offset; later
//     reads return zero values, so a decoder reads a whole header and checks
//     Err once.
//   - Every decoding error is an *Error wrapping one of the sentinels below.
//     Its File field carries the file name, so callers do not add it again.
//   - Counts read from the input are checked against the bytes that remain
//     (Count) before anything is allocated from them.
//
// It is written here rather than taken from a library because the standard
// library keeps its equivalents (debug/dwarf's buf, internal/saferio)
// unexported, and no maintained module offers a sticky-error cursor with
// located errors.
package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinels, named after LLVM's instrprof_error kinds. Every *Error wraps one.
var (
	ErrBadMagic           = errors.New("invalid profile data (bad magic)")
	ErrUnsupportedVersion = errors.New("unsupported format version")
	ErrTruncated          = errors.New("truncated data")
	ErrMalformed          = errors.New("malformed data")
)

// Error reports where decoding failed and why.
type Error struct {
	Format  string // the decoding package: "elfsym", "memprof", "instrprof", ...
	File    string // the file being read; "" when decoding bytes with no name
	Section string // what was being decoded: "header", ".debug_info", "MIB section", ...
	// Offset is the byte offset of the problem: within the file for whole-file
	// formats, within Section when Section is a section of a container (ELF).
	Offset int64
	Msg    string // what was wrong or expected
	Err    error  // one of the sentinels
}

func (e *Error) Error() string {
	f := ""
	if e.File != "" {
		f = e.File + ": "
	}
	return fmt.Sprintf("%s%s: %s at offset %#x: %s", f, e.Format, e.Section, e.Offset, e.Msg)
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// Cursor reads a byte slice from a position with bounds checks. The first
// failure sticks: it records an *Error and every later read returns a zero
// value. Offsets are indexes into the slice given to NewCursor, which is
// therefore the whole file (or the whole section) so that error offsets mean
// something; to stop reads early, pass a shorter slice.
//
// The zero byte order is little-endian.
type Cursor struct {
	data      []byte
	off       int
	bigEndian bool
	err       error
	// Where errors point.
	Format, File, Section string
}

// NewCursor returns a little-endian cursor at offset off of data; an off past
// the end is an error at once.
func NewCursor(format, file, section string, data []byte, off int) Cursor {
	c := Cursor{data: data, Format: format, File: file, Section: section}
	if off < 0 {
		c.FailAt(0, ErrMalformed, "negative offset %d", off)
	} else {
		c.Seek(uint64(off))
	}
	return c
}

// SetBigEndian selects the byte order of multi-byte reads.
func (c *Cursor) SetBigEndian(big bool) { c.bigEndian = big }

// BigEndian reports the byte order of multi-byte reads.
func (c *Cursor) BigEndian() bool { return c.bigEndian }

// Err returns the first error, or nil.
func (c *Cursor) Err() error { return c.err }

// Off returns the current offset.
func (c *Cursor) Off() int { return c.off }

// Len returns the size of the data (the offset reads cannot pass).
func (c *Cursor) Len() int { return len(c.data) }

// Data returns the whole slice the cursor reads.
func (c *Cursor) Data() []byte { return c.data }

// Remaining returns the number of bytes left; 0 after an error.
func (c *Cursor) Remaining() int {
	if c.err != nil {
		return 0
	}
	return len(c.data) - c.off
}

// Fail records an error of kind at the current offset (if none is recorded
// yet) and moves to the end.
func (c *Cursor) Fail(kind error, format string, args ...any) {
	c.FailAt(int64(c.off), kind, format, args...)
}

// FailAt is Fail at an explicit offset.
func (c *Cursor) FailAt(off int64, kind error, format string, args ...any) {
	if c.err == nil {
		c.err = &Error{Format: c.Format, File: c.File, Section: c.Section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: kind}
	}
	c.off = len(c.data)
}

// Errorf returns an *Error at off with the cursor's format, file and section,
// without recording it: for checks made outside the cursor's reads.
func (c *Cursor) Errorf(off int64, kind error, format string, args ...any) error {
	return &Error{Format: c.Format, File: c.File, Section: c.Section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// Seek moves to off, which must not lie past the end.
func (c *Cursor) Seek(off uint64) {
	if c.err != nil {
		return
	}
	if off > uint64(len(c.data)) {
		c.Fail(ErrMalformed, "offset %#x is past the end (%#x)", off, len(c.data))
		return
	}
	c.off = int(off)
}

// need reports whether n more bytes can be read, failing with ErrTruncated
// when they cannot.
func (c *Cursor) need(n uint64) bool {
	if c.err != nil {
		return false
	}
	if n > uint64(len(c.data)-c.off) {
		c.Fail(ErrTruncated, "truncated: need %d bytes, have %d", n, len(c.data)-c.off)
		return false
	}
	return true
}

// Bytes returns the next n bytes (a subslice, not a copy).
func (c *Cursor) Bytes(n uint64) []byte {
	if !c.need(n) {
		return nil
	}
	s := c.data[c.off : c.off+int(n)]
	c.off += int(n)
	return s
}

// Skip moves n bytes forward.
func (c *Cursor) Skip(n uint64) {
	if c.need(n) {
		c.off += int(n)
	}
}

// U8 reads a byte. (After an error the offset is at the end, so the fast
// path needs no look at err.)
func (c *Cursor) U8() uint8 {
	if off := c.off; off < len(c.data) {
		c.off = off + 1
		return c.data[off]
	}
	c.need(1)
	return 0
}

// U16 reads a 2-byte unsigned integer.
func (c *Cursor) U16() uint16 {
	if !c.need(2) {
		return 0
	}
	s := c.data[c.off : c.off+2]
	c.off += 2
	if c.bigEndian {
		return binary.BigEndian.Uint16(s)
	}
	return binary.LittleEndian.Uint16(s)
}

// U24 reads a 3-byte unsigned integer (DWARF 5's strx3/addrx3).
func (c *Cursor) U24() uint32 {
	if !c.need(3) {
		return 0
	}
	s := c.data[c.off : c.off+3]
	c.off += 3
	if c.bigEndian {
		return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2])
	}
	return uint32(s[2])<<16 | uint32(s[1])<<8 | uint32(s[0])
}

// U32 reads a 4-byte unsigned integer.
func (c *Cursor) U32() uint32 {
	if !c.need(4) {
		return 0
	}
	s := c.data[c.off : c.off+4]
	c.off += 4
	if c.bigEndian {
		return binary.BigEndian.Uint32(s)
	}
	return binary.LittleEndian.Uint32(s)
}

// U64 reads an 8-byte unsigned integer.
func (c *Cursor) U64() uint64 {
	if !c.need(8) {
		return 0
	}
	s := c.data[c.off : c.off+8]
	c.off += 8
	if c.bigEndian {
		return binary.BigEndian.Uint64(s)
	}
	return binary.LittleEndian.Uint64(s)
}

// UintN reads an n-byte unsigned integer, n in 1, 2, 4 or 8.
func (c *Cursor) UintN(n uint8) uint64 {
	switch n {
	case 1:
		return uint64(c.U8())
	case 2:
		return uint64(c.U16())
	case 4:
		return uint64(c.U32())
	case 8:
		return c.U64()
	}
	c.Fail(ErrMalformed, "unsupported integer size %d", n)
	return 0
}

// Uleb reads an unsigned LEB128, with a fast path for the one-byte case.
func (c *Cursor) Uleb() uint64 {
	if off := c.off; off < len(c.data) && c.data[off] < 0x80 {
		c.off = off + 1
		return uint64(c.data[off])
	}
	return c.ulebSlow()
}

func (c *Cursor) ulebSlow() uint64 {
	var v uint64
	var shift uint
	for c.err == nil {
		if c.off >= len(c.data) {
			c.Fail(ErrTruncated, "truncated ULEB128")
			return 0
		}
		b := c.data[c.off]
		c.off++
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			return v
		}
	}
	return 0
}

// Sleb reads a signed LEB128.
func (c *Cursor) Sleb() int64 {
	var v int64
	var shift uint
	for c.err == nil {
		if c.off >= len(c.data) {
			c.Fail(ErrTruncated, "truncated SLEB128")
			return 0
		}
		b := c.data[c.off]
		c.off++
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
	return 0
}

// CString reads a NUL-terminated string.
func (c *Cursor) CString() string {
	if c.err != nil {
		return ""
	}
	if n := bytes.IndexByte(c.data[c.off:], 0); n >= 0 {
		s := string(c.data[c.off : c.off+n])
		c.off += n + 1
		return s
	}
	c.Fail(ErrTruncated, "unterminated string")
	return ""
}

// SkipCString skips a NUL-terminated string without allocating.
func (c *Cursor) SkipCString() {
	if c.err != nil {
		return
	}
	if n := bytes.IndexByte(c.data[c.off:], 0); n >= 0 {
		c.off += n + 1
		return
	}
	c.Fail(ErrTruncated, "unterminated string")
}

// Count reads an 8-byte element count and checks that that many elements
// of at least minSize bytes (minSize ≥ 1) fit in what remains, so that the
// caller may allocate them. A count that cannot fit is ErrTruncated, with
// the offset of the count.
func (c *Cursor) Count(minSize int, what string) int {
	at := c.off
	n := c.U64()
	if c.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	have := uint64(len(c.data) - c.off)
	if n > have/uint64(minSize) {
		c.FailAt(int64(at), ErrTruncated, "%s %d needs at least %s bytes, have %d", what, n, mulString(n, uint64(minSize)), have)
		return 0
	}
	return int(n)
}

func mulString(a, b uint64) string {
	if b != 0 && a > ^uint64(0)/b {
		return "2^64 or more"
	}
	return fmt.Sprint(a * b)
}

// CStringAt returns the NUL-terminated string at off in data (string tables).
func CStringAt(data []byte, off uint64) (string, bool) {
	if off >= uint64(len(data)) {
		return "", false
	}
	n := bytes.IndexByte(data[off:], 0)
	if n < 0 {
		return "", false
	}
	return string(data[off : off+uint64(n)]), true
}
