package perfscript

import "bytes"

// The helpers below reproduce the llvm::StringRef operations that
// PerfReader.cpp parses with, so that odd lines are read exactly as
// llvm-profgen reads them.

// isSpace is the character set of StringRef::ltrim/rtrim/trim.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func ltrim(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func rtrim(s []byte) []byte {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// parseUint is StringRef::getAsInteger<uint64_t>(radix) for radix 10 or
// 16: the whole string must be digits of the radix (either case), at least
// one, and the value must pass LLVM's overflow check (which compares
// result/radix with the previous value, as consumeUnsignedInteger does).
func parseUint(s []byte, radix uint64) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	if radix == 16 {
		return parseHex(s)
	}
	var v uint64
	for _, c := range s {
		d := digitValue(c)
		if d >= radix {
			return 0, false
		}
		prev := v
		v = v*radix + d
		if v/radix < prev {
			return 0, false
		}
	}
	return v, true
}

// parseHex is parseUint(s, 16) for a non-empty s, the trace's hot path:
// for radix 16, LLVM's overflow check (result/16 < previous) fails exactly
// when the previous value has one of its top four bits set.
func parseHex(s []byte) (uint64, bool) {
	var v uint64
	if len(s) >= 8 {
		// The first eight digits at once (hexField's step; no overflow
		// check needed below 16 digits).
		var ok bool
		if v, ok = hex8(s); ok {
			s = s[8:]
		}
	}
	for _, c := range s {
		d := hexDigits[c]
		if d > 15 || v>>60 != 0 {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// hex8 is the value of s[:8] if those are eight hex digits: eight
// independent table loads, checked together (the digit-by-digit loop's
// v<<4|d is one long chain).
func hex8(s []byte) (uint64, bool) {
	s = s[:8:8]
	d0, d1, d2, d3 := hexDigits[s[0]], hexDigits[s[1]], hexDigits[s[2]], hexDigits[s[3]]
	d4, d5, d6, d7 := hexDigits[s[4]], hexDigits[s[5]], hexDigits[s[6]], hexDigits[s[7]]
	if (d0|d1|d2|d3|d4|d5|d6|d7)&0xf0 != 0 {
		return 0, false
	}
	return uint64(d0)<<28 | uint64(d1)<<24 | uint64(d2)<<20 | uint64(d3)<<16 |
		uint64(d4)<<12 | uint64(d5)<<8 | uint64(d6)<<4 | uint64(d7), true
}

// hexDigits maps a byte to its value as a hex digit (either case), other
// bytes to 0xff.
var hexDigits = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
		if d := digitValue(byte(i)); d < 16 {
			t[i] = uint8(d)
		}
	}
	return t
}()

// digitValue is the value of c as a digit of any radix up to 36 (letters
// in either case), or 36 for any other byte.
func digitValue(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'z':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return uint64(c-'A') + 10
	}
	return 36
}

// parseAuto is getAsInteger with radix 0 (auto-sensed: 0x, 0b, 0o, a
// leading 0 before a digit means octal), as the mmap fields are read.
func parseAuto(s []byte) (uint64, bool) {
	radix := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		radix, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'):
		radix, s = 2, s[2:]
	case len(s) >= 2 && s[0] == '0' && s[1] == 'o':
		radix, s = 8, s[2:]
	case len(s) >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		radix, s = 8, s[1:]
	}
	return parseUint(s, radix)
}

// parseInt is getAsSignedInteger(radix 10) into a long long.
func parseInt(s []byte) (int64, bool) {
	if len(s) > 0 && s[0] == '-' {
		u, ok := parseUint(s[1:], 10)
		if !ok || u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	u, ok := parseUint(s, 10)
	if !ok || u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// fields appends the pieces of s split at single spaces, empty pieces
// dropped (StringRef::split(Out, " ", -1, false)).
func fields(out [][]byte, s []byte) [][]byte {
	for len(s) > 0 {
		i := bytes.IndexByte(s, ' ')
		if i < 0 {
			return append(out, s)
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		s = s[i+1:]
	}
	return out
}
