package perfscript

import (
	"bufio"
	"io"
)

// lineStream is llvm-profgen's TraceStream: a cursor on the current line of
// a text stream, split at '\n' only (std::getline: a '\r' stays in the
// line, a last line without '\n' counts). At the end the current line is
// what std::getline leaves there: empty when the input ended with '\n',
// else the last line.
type lineStream struct {
	r      *bufio.Reader
	line   []byte
	long   []byte // backing store for lines longer than the buffer
	lineNo int64  // 1-based number of the current line
	off    int64  // byte offset of the current line
	next   int64  // byte offset of the line after it
	eof    bool
	nl     bool  // the current line ended with '\n'
	err    error // a read error other than io.EOF
}

func newLineStream(r io.Reader) *lineStream {
	s := &lineStream{r: bufio.NewReaderSize(r, 1<<16)}
	s.advance()
	return s
}

// advance reads the next line. The slice it leaves in s.line is valid until
// the next call.
func (s *lineStream) advance() {
	if s.eof {
		return
	}
	b, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = s.r.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	if err != nil && err != io.EOF {
		s.err = err
	}
	if len(b) == 0 {
		// std::getline extracted nothing: the end. It erased the string
		// only if the previous line ended with '\n'.
		if s.lineNo == 0 || s.nl {
			s.line = s.line[:0]
		} else {
			s.line = append(s.long[:0:0], s.line...)
		}
		s.eof = true
		s.off = s.next
		return
	}
	s.off = s.next
	s.next += int64(len(b))
	s.lineNo++
	if b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
		s.nl = true
	} else {
		s.nl = false
	}
	s.line = b
}
