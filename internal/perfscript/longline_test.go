package perfscript

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// longInput is "first\n", a line of n bytes 'x', then "\nlast\n".
func longInput(n int) io.Reader {
	return io.MultiReader(strings.NewReader("first\n"), io.LimitReader(repeatReader('x'), int64(n)), strings.NewReader("\nlast\n"))
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestLineBound: a line of maxLine bytes is read; one byte more ends the
// stream with an error naming the line and its offset, without reading
// the line further.
func TestLineBound(t *testing.T) {
	s := newLineStream(longInput(maxLine))
	s.advance()
	if s.err != nil || len(s.line) != maxLine || s.lineNo != 2 {
		t.Fatalf("line of maxLine bytes: err %v, %d bytes, line %d", s.err, len(s.line), s.lineNo)
	}
	s = newLineStream(longInput(maxLine + 1))
	s.advance()
	if !s.eof || s.err != errLineTooLong {
		t.Fatalf("line of maxLine+1 bytes: eof %v, err %v", s.eof, s.err)
	}
	err := s.failure("t.script", "trace")
	var de *decode.Error
	if !errors.As(err, &de) || de.Offset != 6 || !errors.Is(err, decode.ErrMalformed) ||
		!strings.Contains(err.Error(), "line 2: longer than 16 MiB") {
		t.Errorf("error %v; want line 2 at offset 6, malformed", err)
	}
	if _, err := DetectContent("t.script", longInput(maxLine+1)); err == nil || !strings.Contains(err.Error(), "line 2: longer than 16 MiB") {
		t.Errorf("DetectContent: %v", err)
	}
}

// TestUnsymbolizedLineBound: likewise for an unsymbolized profile.
func TestUnsymbolizedLineBound(t *testing.T) {
	in := io.MultiReader(strings.NewReader("1\n"), io.LimitReader(repeatReader('x'), maxUnsymbolizedLine+1), strings.NewReader("\n"))
	_, err := ReadUnsymbolized("u.txt", in, 0)
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than 16 MiB") || !errors.Is(err, decode.ErrMalformed) {
		t.Errorf("error %v; want line 2 longer than 16 MiB", err)
	}
}
