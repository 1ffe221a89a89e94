package memprof

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sentinel errors, named after LLVM's instrprof_error kinds. Every decoding
// error wraps one of them (errors.Is).
var (
	ErrBadMagic           = errors.New("invalid profile data (bad magic)")
	ErrUnsupportedVersion = errors.New("unsupported profile format version")
	ErrTruncated          = errors.New("truncated profile data")
	ErrMalformed          = errors.New("malformed profile data")
)

// FormatError reports a problem in a raw profile file.
type FormatError struct {
	File    string // file name given to ReadRaw
	Section string // "header", "segment section", "MIB section", "stack section"
	Offset  int64  // byte offset in the file
	Msg     string
	Err     error // one of the sentinels
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("memprof: %s: %s at offset %#x: %s", e.File, e.Section, e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

func formatErr(file, section string, off int64, kind error, format string, args ...any) error {
	return &FormatError{File: file, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// cursor is a bounds-checked little-endian reader with a sticky error: once
// a read runs past the end, it records a truncation error naming the
// section and offset and returns zeros from then on.
type cursor struct {
	name, section string
	data          []byte // readable bytes end at len(data)
	off           int
	err           error
}

func (c *cursor) need(n int) bool {
	if c.err != nil {
		return false
	}
	if c.off < 0 || c.off > len(c.data) || len(c.data)-c.off < n {
		have := len(c.data) - c.off
		if have < 0 {
			have = 0
		}
		c.err = formatErr(c.name, c.section, int64(c.off), ErrTruncated, "need %d bytes, have %d", n, have)
		return false
	}
	return true
}

func (c *cursor) u16() uint16 {
	if !c.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(c.data[c.off:])
	c.off += 2
	return v
}

func (c *cursor) u32() uint32 {
	if !c.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(c.data[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u64() uint64 {
	if !c.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(c.data[c.off:])
	c.off += 8
	return v
}

func (c *cursor) bytes(n int) []byte {
	if !c.need(n) {
		return nil
	}
	b := c.data[c.off : c.off+n]
	c.off += n
	return b
}

// count reads a u64 entry count and checks that that many entries of at
// least minEntry bytes fit in what remains, so callers may allocate it.
func (c *cursor) count(minEntry int) int {
	at := c.off
	n := c.u64()
	if c.err != nil {
		return 0
	}
	have := uint64(len(c.data) - c.off)
	if n > have/uint64(minEntry) {
		c.err = formatErr(c.name, c.section, int64(at), ErrTruncated,
			"%d entries of at least %d bytes need %s bytes, have %d", n, minEntry, mulString(n, uint64(minEntry)), have)
		return 0
	}
	return int(n)
}

func mulString(a, b uint64) string {
	hi, lo := bitsMul64(a, b)
	if hi != 0 {
		return "more than 2^64"
	}
	return fmt.Sprint(lo)
}
