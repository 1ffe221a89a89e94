package memprof

import "encoding/binary"

// Format is an encoding of a MemProf profile this package reads, as Detect
// tells it from a file's first bytes.
type Format int

const (
	FormatUnknown Format = iota
	FormatRaw            // the compiler-rt memprof runtime's dump (ReadRaw)
)

func (f Format) String() string {
	if f == FormatRaw {
		return "raw MemProf profile"
	}
	return "unknown"
}

// Detect tells the encoding of a file from its head (its first bytes; 8
// are enough), as RawMemProfReader::hasFormat does: the raw magic.
// Anything else, a head shorter than the magic too, is FormatUnknown.
func Detect(head []byte) Format {
	if len(head) >= 8 && binary.LittleEndian.Uint64(head) == RawMagic {
		return FormatRaw
	}
	return FormatUnknown
}
