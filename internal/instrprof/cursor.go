package instrprof

import (
	"encoding/binary"
	"fmt"
)

// cursor is a bounds-checked little-endian reader over a whole file with a
// sticky error: after the first failure every read returns zero.
type cursor struct {
	name    string
	data    []byte
	off     int
	end     int // reads must stay below end
	section string
	err     error
}

func (c *cursor) fail(kind error, format string, args ...any) {
	if c.err == nil {
		c.err = &DecodeError{Name: c.name, Section: c.section, Offset: int64(c.off), Msg: fmt.Sprintf(format, args...), Err: kind}
	}
	c.off = c.end
}

// seek moves to an absolute offset, which must lie within [0, end].
func (c *cursor) seek(off uint64, what string) {
	if c.err != nil {
		return
	}
	if off > uint64(c.end) {
		c.fail(ErrMalformed, "%s %#x is beyond the end of the data (%#x)", what, off, c.end)
		return
	}
	c.off = int(off)
}

func (c *cursor) remaining() int { return c.end - c.off }

func (c *cursor) need(n int, what string) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || c.remaining() < n {
		c.fail(ErrTruncated, "truncated %s (need %d bytes, have %d)", what, n, c.remaining())
		return false
	}
	return true
}

func (c *cursor) u64(what string) uint64 {
	if !c.need(8, what) {
		return 0
	}
	v := binary.LittleEndian.Uint64(c.data[c.off:])
	c.off += 8
	return v
}

func (c *cursor) u32(what string) uint32 {
	if !c.need(4, what) {
		return 0
	}
	v := binary.LittleEndian.Uint32(c.data[c.off:])
	c.off += 4
	return v
}

func (c *cursor) u16(what string) uint16 {
	if !c.need(2, what) {
		return 0
	}
	v := binary.LittleEndian.Uint16(c.data[c.off:])
	c.off += 2
	return v
}

func (c *cursor) u8(what string) uint8 {
	if !c.need(1, what) {
		return 0
	}
	v := c.data[c.off]
	c.off++
	return v
}

func (c *cursor) bytes(n uint64, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n > uint64(c.remaining()) {
		c.fail(ErrTruncated, "truncated %s (need %d bytes, have %d)", what, n, c.remaining())
		return nil
	}
	b := c.data[c.off : c.off+int(n)]
	c.off += int(n)
	return b
}

// count reads a u64 element count and checks that count elements of at
// least minSize bytes each fit in the remaining data.
func (c *cursor) count(minSize int, what string) int {
	at := c.off
	n := c.u64(what)
	if c.err != nil {
		return 0
	}
	if minSize > 0 && n > uint64(c.remaining()/minSize) {
		c.off = at
		c.fail(ErrMalformed, "%s %d does not fit in the remaining %d bytes", what, n, c.remaining())
		return 0
	}
	if minSize == 0 && n > uint64(c.remaining()) {
		c.off = at
		c.fail(ErrMalformed, "%s %d is implausible for the remaining %d bytes", what, n, c.remaining())
		return 0
	}
	return int(n)
}
