package instrprof

import (
	"errors"
	"fmt"
)

// Sentinel errors, named after LLVM's instrprof_error kinds. Every error
// returned by Read wraps one of them in a *DecodeError.
var (
	ErrBadMagic           = errors.New("invalid instrumentation profile data (bad magic)")
	ErrUnsupportedVersion = errors.New("unsupported instrumentation profile format version")
	ErrTruncated          = errors.New("truncated profile data")
	ErrMalformed          = errors.New("malformed instrumentation profile data")
)

// DecodeError reports where in a file decoding failed.
type DecodeError struct {
	Name    string // file name given to Read
	Section string // what was being decoded, e.g. "memprof record table"
	Offset  int64  // absolute byte offset in the file
	Msg     string
	Err     error // one of the sentinels
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("instrprof: %s: %s at offset %#x: %s", e.Name, e.Section, e.Offset, e.Msg)
}

func (e *DecodeError) Unwrap() error { return e.Err }
