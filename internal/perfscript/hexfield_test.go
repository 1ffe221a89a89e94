package perfscript

import (
	"bytes"
	"slices"
	"testing"
)

// TestHexField compares hexField, whose first eight digits are read at
// once, with the digit-by-digit reading it replaced, at every offset of
// fields of 0 to 18 digits in either case, ending in each kind of byte.
func TestHexField(t *testing.T) {
	ref := func(line []byte, i int) (uint64, int, bool) {
		if i+2 >= len(line) || line[i] != '0' || line[i+1] != 'x' {
			return 0, i, false
		}
		i += 2
		start := i
		var v uint64
		for ; i < len(line); i++ {
			d := hexDigits[line[i]]
			if d > 15 {
				break
			}
			v = v<<4 | uint64(d)
		}
		if i == start || i-start > 16 || (i < len(line) && line[i] != '/' && line[i] != ' ') {
			return 0, i, false
		}
		return v, i, true
	}
	digits := []byte("0123456789abcdefABCDEF")
	for n := range 19 {
		for _, end := range []string{"", "/", " ", "g", "x/", "/0x1"} {
			for rot := range 3 {
				var b bytes.Buffer
				b.WriteString(" 0x")
				for k := range n {
					b.WriteByte(digits[(k*7+rot)%len(digits)])
				}
				b.WriteString(end)
				line := b.Bytes()
				for i := range line {
					v1, j1, ok1 := ref(line, i)
					v2, j2, ok2 := hexField(line, i)
					if ok1 != ok2 || ok1 && (v1 != v2 || j1 != j2) {
						t.Fatalf("%q at %d: got %#x %d %v, want %#x %d %v", line, i, v2, j2, ok2, v1, j1, ok1)
					}
				}
			}
		}
	}
}

// TestFastLBRCached reads LBR lines through one cache of remembered
// entries, at two bases, and compares every result with fastLBR's:
// entries repeated within and across lines, in slots shared by other
// texts, and lines the fast path declines.
func TestFastLBRCached(t *testing.T) {
	bin := &Binary{PreferredTextSegmentAddresses: []uint64{0x1000}, codeLo: 0x1000, codeBits: make([]uint64, 64)}
	for a := uint64(0x1000); a < 0x1000+64*64; a += 3 {
		i := a - bin.codeLo
		bin.codeBits[i>>6] |= 1 << (i & 63)
	}
	entries := []string{"0x1003/0x1006/P/-/-/0", "0x1009/0x2000000/M/-/-/12", "0x7fff0000/0x100c/P/-/-/0",
		"0x7fff0000/0x7fff0004/P/-/-/0", "0x1003/0x1006/M/-/-/0", "0x1003/0x1006", "0x1003/0x1006/P/-/-/0/x/y/z/long/flags/beyond/46",
		"0x1003//P", "0x1003/0xg/P", "0x10030000000000000001/0x1/P", "0xABC/0x1006/P/-/-/3"}
	var c lbrCache
	r := uint64(1)
	for n := range 3000 {
		var b bytes.Buffer
		for k := range 1 + n%33 {
			r = r*6364136223846793005 + 1442695040888963407
			if k > 0 {
				b.WriteString("  ")
			}
			b.WriteString(entries[r>>33%uint64(len(entries))])
		}
		line := b.Bytes()
		for _, base := range []uint64{0x1000, 0x5000} {
			want, wantOK := fastLBR(line, bin, base, nil)
			got, gotOK := fastLBRCached(line, bin, base, nil, &c)
			if gotOK != wantOK || wantOK && !slices.Equal(got, want) {
				t.Fatalf("%q at base %#x: got %x %v, want %x %v", line, base, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestFrameCache compares frameCache.parse with parseUint(ltrim(line), 16)
// on stack lines that repeat, share a slot, are too short or long to be
// remembered, or are not addresses.
func TestFrameCache(t *testing.T) {
	lines := []string{"\t      40028159b0", "\t      40028159b1", "      40028159b0", "\t40028159b0", "\t      40028159b0 ",
		"\t      4002815zb0", "\t      ", "\t 1", "12345678", "\t      400281bf0e (/work/workload)", "\tffffffffffffffffff",
		"\t      0x40028159b0", "\v\f\r   abcdefABCDEF"}
	var c frameCache
	r := uint64(7)
	for range 5000 {
		r = r*6364136223846793005 + 1442695040888963407
		line := []byte(lines[r>>33%uint64(len(lines))])
		wantAddr, wantOK := parseUint(ltrim(line), 16)
		addr, ok := c.parse(line)
		if addr != wantAddr || ok != wantOK {
			t.Fatalf("%q: got %#x %v, want %#x %v", line, addr, ok, wantAddr, wantOK)
		}
	}
}
