package instrprof

import "bytes"

// Format is an encoding this package reads, as Detect tells it from a
// file's first bytes.
type Format int

const (
	FormatUnknown Format = iota
	FormatRaw            // a .profraw (ParseRaw), either byte order
	FormatIndexed        // an IndexedInstrProf file (.profdata; Read, ReadFuncs)
	FormatYAML           // a YAML MemProf profile (ReadYAML)
)

func (f Format) String() string {
	switch f {
	case FormatRaw:
		return "raw instrumented profile"
	case FormatIndexed:
		return "indexed profile"
	case FormatYAML:
		return "YAML MemProf profile"
	}
	return "unknown"
}

// Detect tells the encoding of a file from its head (its first bytes), as
// the hasFormat of LLVM's readers do: the raw magic of
// RawInstrProfReader64 (either byte order), IndexedInstrProf's magic, or a
// YAML document start ("---", after blank space) for YAMLMemProfReader.
// Anything else, a head too short to tell too, is FormatUnknown.
func Detect(head []byte) Format {
	switch {
	case IsRaw(head):
		return FormatRaw
	case len(head) >= 8 && le.Uint64(head) == Magic:
		return FormatIndexed
	case bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("---")):
		return FormatYAML
	}
	return FormatUnknown
}
