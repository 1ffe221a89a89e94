package perfscript

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// UnsymbolizedCounter is one context of an unsymbolized profile: the text
// between the brackets of its "[...]" line ("" for a block without one, the
// context-insensitive counter) and its counters, in canonical addresses.
type UnsymbolizedCounter struct {
	Context string
	// Line is the line number of the context line (of the first one when
	// the context appears several times; 0 without one).
	Line int64
	// Offset is that line's byte offset in the file.
	Offset int64
	Counter
}

// Unsymbolized is an unsymbolized profile read back (llvm-profgen's
// --unsymbolized-profile).
type Unsymbolized struct {
	// CS is true when some block has a context line: the profile is
	// context-sensitive (llvm-profgen's ProfileIsCS).
	CS bool
	// Counters in the order their contexts first appear; blocks of the
	// same context string are added up.
	Counters []*UnsymbolizedCounter
}

// maxUnsymbolizedLine bounds a line of an unsymbolized profile (the
// longest are the contexts of deep stacks).
const maxUnsymbolizedLine = 16 << 20

// ReadUnsymbolized reads the text WriteUnsymbolized and llvm-profgen
// --skip-symbolization write, as llvm-profgen's UnsymbolizedProfileReader
// reads it: blocks of an optional "[context]" line, the number of range
// lines, "START-END:COUNT" lines, the number of branch lines and
// "SRC->DST:COUNT" lines (leading white space ignored, hex addresses,
// decimal counts); base is added to every address (the offsets'
// base, as for WriteUnsymbolized; sums wrap like uint64_t). Counts of the
// same pair add up. Unlike llvm-profgen, which takes any line starting
// with '[' as a context and drops its last character, a context line must
// end with ']'. An empty file is an error (llvm-profgen crashes on it).
func ReadUnsymbolized(name string, r io.Reader, base uint64) (*Unsymbolized, error) {
	u := &unsymReader{name: name, base: base, byContext: map[string]*UnsymbolizedCounter{}}
	u.sc = bufio.NewScanner(r)
	u.sc.Buffer(make([]byte, 0, 64<<10), maxUnsymbolizedLine)
	u.sc.Split(scanRawLines)
	u.advance()
	if u.eof && u.err == nil {
		return nil, &decode.Error{Format: "perfscript", File: name, Section: "unsymbolized profile",
			Msg: "empty file: expected the number of ranges or a [context] line", Err: decode.ErrTruncated}
	}
	for !u.eof && u.err == nil {
		if err := u.block(); err != nil {
			return nil, err
		}
	}
	if u.err != nil {
		return nil, u.err
	}
	return &u.prof, nil
}

// scanRawLines splits at '\n' only: unlike bufio.ScanLines it keeps a
// '\r' (std::getline, which llvm-profgen reads with, keeps it too).
func scanRawLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

type unsymReader struct {
	name      string
	base      uint64
	sc        *bufio.Scanner
	line      []byte
	lineNo    int64
	off, next int64 // offsets of the current and the next line
	eof       bool
	err       error
	prof      Unsymbolized
	byContext map[string]*UnsymbolizedCounter
}

func (u *unsymReader) advance() {
	if !u.sc.Scan() {
		u.eof, u.line = true, nil
		if err := u.sc.Err(); err != nil {
			msg := err.Error()
			if err == bufio.ErrTooLong {
				msg = fmt.Sprintf("longer than %d MiB: not a line of an unsymbolized profile", maxUnsymbolizedLine>>20)
			}
			u.err = &decode.Error{Format: "perfscript", File: u.name, Section: "unsymbolized profile", Offset: u.next,
				Msg: fmt.Sprintf("line %d: %s", u.lineNo+1, msg), Err: decode.ErrMalformed}
		}
		return
	}
	u.line = u.sc.Bytes()
	u.lineNo++
	u.off = u.next
	u.next += int64(len(u.line)) + 1
}

// errorf is a decode error about the current line (or the end of file).
func (u *unsymReader) errorf(format string, args ...any) error {
	if u.err != nil {
		return u.err
	}
	if u.eof {
		return &decode.Error{Format: "perfscript", File: u.name, Section: "unsymbolized profile", Offset: u.next,
			Msg: "unexpected end of file: " + fmt.Sprintf(format, args...), Err: decode.ErrTruncated}
	}
	shown := u.line
	if len(shown) > 80 {
		shown = append(shown[:77:77], "..."...)
	}
	return &decode.Error{Format: "perfscript", File: u.name, Section: "unsymbolized profile", Offset: u.off,
		Msg: fmt.Sprintf("line %d: %s, found %q", u.lineNo, fmt.Sprintf(format, args...), shown), Err: decode.ErrMalformed}
}

// block reads one context: its optional context line and its counters.
func (u *unsymReader) block() error {
	ctx, line, off := "", int64(0), int64(0)
	if len(u.line) > 0 && u.line[0] == '[' {
		if u.line[len(u.line)-1] != ']' {
			return u.errorf("expected a context line '[...]'")
		}
		ctx, line, off = string(u.line[1:len(u.line)-1]), u.lineNo, u.off
		u.prof.CS = true
		u.advance()
	}
	c := u.byContext[ctx]
	if c == nil {
		c = &UnsymbolizedCounter{Context: ctx, Line: line, Offset: off, Counter: *newCounter()}
		u.byContext[ctx] = c
		u.prof.Counters = append(u.prof.Counters, c)
	}
	if err := u.counter(c.Ranges, "-", "range", "START-END:COUNT"); err != nil {
		return err
	}
	return u.counter(c.Branches, "->", "branch", "SRC->DST:COUNT")
}

// counter reads a count and that many "A<sep>B:COUNT" lines into m.
func (u *unsymReader) counter(m map[Branch]uint64, sep, what, form string) error {
	if u.eof {
		return u.errorf("expected the number of %s lines", what)
	}
	n, err := strconv.ParseUint(string(trimLeftSpace(u.line)), 10, 64)
	if err != nil {
		return u.errorf("expected the number of %s lines (a decimal count)", what)
	}
	u.advance()
	for i := uint64(0); i < n; i++ {
		if u.eof {
			return u.errorf("expected %d more %s lines %s", n-i, what, form)
		}
		a, b, count, ok := parseCounterLine(trimLeftSpace(u.line), sep)
		if !ok {
			return u.errorf("expected a %s line %s (hex addresses, decimal count)", what, form)
		}
		m[Branch{a + u.base, b + u.base}] += count
		u.advance()
	}
	return nil
}

// parseCounterLine parses "A<sep>B:COUNT": A and B hex, COUNT decimal,
// split at the first ':' and the first sep as llvm-profgen splits.
func parseCounterLine(line []byte, sep string) (a, b, count uint64, ok bool) {
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return 0, 0, 0, false
	}
	pair, cnt := line[:colon], line[colon+1:]
	s := bytes.Index(pair, []byte(sep))
	if s < 0 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	a, err1 = strconv.ParseUint(string(pair[:s]), 16, 64)
	b, err2 = strconv.ParseUint(string(pair[s+len(sep):]), 16, 64)
	count, err3 = strconv.ParseUint(string(cnt), 10, 64)
	return a, b, count, err1 == nil && err2 == nil && err3 == nil
}

// trimLeftSpace is StringRef::ltrim.
func trimLeftSpace(b []byte) []byte { return bytes.TrimLeft(b, " \t\n\v\f\r") }
