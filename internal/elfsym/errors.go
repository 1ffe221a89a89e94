package elfsym

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// The package's own "not there" errors, compared with errors.Is. Malformed
// input is reported as a *decode.Error (Format "elfsym", Offset within
// Section) wrapping one of decode's sentinels.
var (
	// ErrUnknownPC: no function (DWARF or symbol table) covers the address.
	ErrUnknownPC = errors.New("elfsym: no function covers the address")
	// ErrNoDWARF: the binary and its debug files hold no DWARF.
	ErrNoDWARF = errors.New("elfsym: no DWARF debug information")
	// ErrNoBuildID: the binary has no GNU build id note.
	ErrNoBuildID = errors.New("elfsym: no GNU build id")
)

// errFormat is the Format of the package's *decode.Error values.
const errFormat = "elfsym"

// newError returns a *decode.Error at offset off of section in file.
func newError(file, section string, off uint64, kind error, msg string, args ...any) error {
	return &decode.Error{Format: errFormat, File: file, Section: section, Offset: int64(off), Msg: fmt.Sprintf(msg, args...), Err: kind}
}

// newCursor returns a cursor over one section's bytes at offset off, in the
// file's byte order. Error offsets are section offsets; an off past the end
// fails at once, at off.
func newCursor(file, section string, data []byte, off uint64, order binary.ByteOrder) decode.Cursor {
	c := decode.NewCursor(errFormat, file, section, data, 0)
	c.SetBigEndian(order == binary.BigEndian)
	if off > uint64(len(data)) {
		c.FailAt(int64(off), decode.ErrMalformed, "offset past end of section (size %#x)", len(data))
	} else {
		c.Seek(off)
	}
	return c
}

// unitLength reads a DWARF initial length field and returns the length and
// the offset size (4 or 8).
func unitLength(c *decode.Cursor) (uint64, uint8) {
	n := uint64(c.U32())
	if n == 0xffffffff {
		return c.U64(), 8
	}
	if n >= 0xfffffff0 {
		c.FailAt(int64(c.Off()-4), decode.ErrMalformed, "reserved unit length %#x", n)
		return 0, 4
	}
	return n, 4
}
