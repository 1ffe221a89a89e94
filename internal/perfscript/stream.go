package perfscript

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// maxLine bounds a line of a trace. perf script's longest lines are LBR
// samples (32 branches or so: a few KiB, symbolized ones tens of KiB); a
// longer line is not perf script output and is an error naming it, so
// that memory stays bounded whatever the input (llvm-profgen reads any
// line whole, into a string twice its length).
const maxLine = 16 << 20

// errLineTooLong is the read error of a line longer than maxLine.
var errLineTooLong = fmt.Errorf("longer than %d MiB: not a line of perf script output", maxLine>>20)

// lineStream is llvm-profgen's TraceStream: a cursor on the current line of
// a text stream, split at '\n' only (std::getline: a '\r' stays in the
// line, a last line without '\n' counts). At the end the current line is
// what std::getline leaves there: empty when the input ended with '\n',
// else the last line.
//
// A trace is read through a 256 KiB buffer, lines being slices of it:
// a quarter of the read() calls of 64 KiB, each dear on a VM (~2 % of a
// probe CS run's CPU). It is not mapped (internal/mapfile): on the VMs
// the benches run on, the first touch of each mapped page-cache page
// costs more than read()'s copy of it, a cost per page that no size
// threshold avoids. Profgen on the 200,000-sample probe hybrid trace
// (250 MB): 0.78 s of CPU mapped against 0.69 s read on Linux 6.1; 0.61
// s against 0.46 s on Linux 6.18 (AMD EPYC), the faults showing as user
// time in the first read of each page (bench/README, issue 25).
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
	s := &lineStream{r: bufio.NewReaderSize(r, 1<<18)}
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
			if n := len(s.long) + len(b); n > maxLine && (n > maxLine+1 || b[len(b)-1] != '\n') {
				// The line is not read further: the stream ends with
				// the error, naming the line.
				s.off = s.next
				s.lineNo++
				s.line, s.long, s.eof, s.err = nil, nil, true, errLineTooLong
				return
			}
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

// failure is the error of a stream that stopped on a read error or on a
// line longer than maxLine, in the file name's section.
func (s *lineStream) failure(name, section string) error {
	if s.err == errLineTooLong {
		return &decode.Error{Format: "perfscript", File: name, Section: section, Offset: s.off,
			Msg: fmt.Sprintf("line %d: %v", s.lineNo, s.err), Err: decode.ErrMalformed}
	}
	return &decode.Error{Format: "perfscript", File: name, Section: section, Offset: s.next, Msg: s.err.Error(), Err: decode.ErrTruncated}
}
