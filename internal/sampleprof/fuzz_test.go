package sampleprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var de *decode.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *decode.Error", err, err)
	}
	if !errors.Is(err, decode.ErrMalformed) && !errors.Is(err, decode.ErrTruncated) &&
		!errors.Is(err, decode.ErrBadMagic) && !errors.Is(err, decode.ErrUnsupportedVersion) {
		t.Fatalf("error %v wraps no sentinel", err)
	}
}

func FuzzReadText(f *testing.F) {
	for _, s := range []string{"testdata/text/basic.txt", "testdata/text/cs.txt", "testdata/text/probe.txt",
		"testdata/text/vtables.txt", "testdata/text/colons.txt"} {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadText("fuzz", data, ReadOptions{})
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		// What reads re-encodes, and the extbinary reads back to the
		// same text (except attributes, which extbinary keeps only in CS,
		// probe-based or preinlined profiles, as in LLVM).
		if !p.CS && !p.PreInlined {
			for _, fs := range p.Funcs {
				clearAttributes(fs)
			}
		}
		txt := p.AppendText(nil, TextWriteOptions{})
		ext, err := p.AppendExtBinary(nil, BinaryOptions{VTables: true})
		if err != nil {
			t.Fatal(err)
		}
		q, err := ReadExtBinary("ext", ext, ReadOptions{})
		if err != nil {
			if !hasIllegalOffsets(p) && !isMixed(p) {
				t.Fatalf("reading our extbinary: %v\n%s", err, txt)
			}
			return
		}
		q.PreInlined, q.ProbeBased = p.PreInlined, p.ProbeBased
		if got := q.AppendText(nil, TextWriteOptions{}); !bytes.Equal(got, txt) && !p.CS {
			t.Fatalf("text → extbinary → text:\n%s\nwant\n%s", got, txt)
		}
	})
}

// hasIllegalOffsets: line offsets over 0xffff are written and not read
// back, as in LLVM.
func hasIllegalOffsets(p *Profile) bool {
	return anyFunction(p, func(fs *FunctionSamples) bool {
		for _, f := range fs.Context {
			if f.Loc.Line > 0xffff {
				return true
			}
		}
		for _, b := range fs.Body {
			if b.Loc.Line > 0xffff {
				return true
			}
		}
		for _, v := range fs.VTables {
			if v.Loc.Line > 0xffff {
				return true
			}
		}
		return false
	})
}

// isMixed: a CS profile with plain functions (LLVM asserts against it in
// debug builds; release builds write what neither reads back).
func isMixed(p *Profile) bool {
	for _, fs := range p.Funcs {
		if (fs.Context != nil) != p.CS {
			return true
		}
	}
	return false
}

func FuzzReadExtBinary(f *testing.F) {
	for _, s := range []string{"testdata/text/basic.txt", "testdata/text/cs.txt", "testdata/text/probe.txt", "testdata/text/vtables.txt"} {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		p, err := ReadText(s, b, ReadOptions{})
		if err != nil {
			f.Fatal(err)
		}
		for _, o := range []BinaryOptions{{}, {UseMD5: true, VTables: true}, {CompressAll: true}} {
			ext, _ := p.AppendExtBinary(nil, o)
			f.Add(ext)
		}
		if raw, err := p.AppendBinary(nil); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read("fuzz", data, ReadOptions{})
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		p.AppendText(nil, TextWriteOptions{})
		if _, err := p.AppendExtBinary(nil, BinaryOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMalformedBinary: located errors for lying headers.
func TestMalformedBinary(t *testing.T) {
	data, _ := os.ReadFile("testdata/text/basic.txt")
	p, err := ReadText("basic.txt", data, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := p.AppendExtBinary(nil, BinaryOptions{})
	comp, _ := p.AppendExtBinary(nil, BinaryOptions{CompressAll: true})
	raw, _ := p.AppendBinary(nil)
	secs, _ := ReadSections("x", good)
	entry := func(i, field int) int { return 18 + 32*i + 8*field }
	patch := func(b []byte, at int, v uint64) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint64(b[at:], v)
		return b
	}
	nameIdx := bytes.Clone(good)
	nameIdx[secs[4].Offset+1] = 0x7f // first profile's name index
	badZlib := bytes.Clone(comp)
	cs, _ := ReadSections("c", comp)
	badZlib[cs[1].Offset+4] ^= 0xff
	for _, tc := range []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"magic", append([]byte{1}, good[1:]...), decode.ErrMalformed, "line 1: expected"},
		{"section count", patch(good, 10, 1<<40), decode.ErrTruncated, "sections"},
		{"section outside", patch(good, entry(1, 2), 1<<20), decode.ErrTruncated, "outside the file"},
		{"size lies", patch(good, entry(1, 3), secs[1].Size-1), decode.ErrTruncated, "unterminated"},
		{"size too big", patch(good, entry(4, 3), secs[4].Size+100), decode.ErrTruncated, "outside"},
		{"name index", nameIdx, decode.ErrMalformed, "name index 127 out of range"},
		{"bad zlib", badZlib, decode.ErrMalformed, "zlib"},
		{"raw truncated", raw[:len(raw)-3], decode.ErrTruncated, ""},
		{"huge count", append(bytes.Clone(raw[:11]), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), decode.ErrTruncated, ""},
	} {
		_, err := Read("bad.prof", tc.data, ReadOptions{})
		var de *decode.Error
		if !errors.As(err, &de) || !errors.Is(err, tc.want) || !bytes.Contains([]byte(err.Error()), []byte(tc.msg)) || de.File != "bad.prof" {
			t.Errorf("%s: error %v, want %v with %q", tc.name, err, tc.want, tc.msg)
		}
	}
}

func clearAttributes(fs *FunctionSamples) {
	fs.Attributes = 0
	for _, c := range fs.Callsites {
		clearAttributes(c.Callee)
	}
}
