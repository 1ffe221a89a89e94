package perfscript

import (
	"bytes"
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
