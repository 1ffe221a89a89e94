package elfsym

import (
	"errors"
	"fmt"
)

// Sentinel errors, compared with errors.Is.
var (
	// ErrUnknownPC: no function (DWARF or symbol table) covers the address.
	ErrUnknownPC = errors.New("elfsym: no function covers the address")
	// ErrNoDWARF: the binary and its debug files hold no DWARF.
	ErrNoDWARF = errors.New("elfsym: no DWARF debug information")
	// ErrNoBuildID: the binary has no GNU build-id note.
	ErrNoBuildID = errors.New("elfsym: no GNU build id")
	// ErrMalformed is wrapped by every FormatError.
	ErrMalformed = errors.New("malformed")
)

// FormatError reports malformed ELF or DWARF data: which file, which
// section, at which byte offset within that section, and what was wrong.
type FormatError struct {
	File    string // path of the file being read ("" when reading bytes)
	Section string // e.g. ".debug_info", "ELF header"
	Offset  uint64 // byte offset within Section
	Msg     string
}

func (e *FormatError) Error() string {
	f := e.File
	if f != "" {
		f += ": "
	}
	return fmt.Sprintf("%selfsym: %s at offset %#x: %s", f, e.Section, e.Offset, e.Msg)
}

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *FormatError) Unwrap() error { return ErrMalformed }
