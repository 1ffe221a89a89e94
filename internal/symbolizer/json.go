package symbolizer

import (
	"strconv"
	"unicode/utf8"
)

// jsonObj writes JSON the way llvm::json::OStream does: compact, or with
// an indent of 2 and ": " after keys when pretty.
type jsonObj struct {
	b      []byte
	pretty bool
	depth  int
	first  []bool // per open container: no element written yet
}

// newObj starts a top-level object; inside a pretty list it is indented
// one level.
func (p *printer) newObj() *jsonObj {
	o := &jsonObj{pretty: p.pretty, b: make([]byte, 0, 512)}
	if p.inList {
		o.depth = 1
	}
	o.open('{')
	return o
}

func (o *jsonObj) open(c byte) {
	o.b = append(o.b, c)
	o.depth++
	o.first = append(o.first, true)
}

func (o *jsonObj) close(c byte) {
	empty := o.first[len(o.first)-1]
	o.first = o.first[:len(o.first)-1]
	o.depth--
	if o.pretty && !empty {
		o.newline()
	}
	o.b = append(o.b, c)
}

func (o *jsonObj) newline() {
	o.b = append(o.b, '\n')
	for i := 0; i < o.depth; i++ {
		o.b = append(o.b, ' ', ' ')
	}
}

// elem starts an array element.
func (o *jsonObj) elem() {
	top := len(o.first) - 1
	if !o.first[top] {
		o.b = append(o.b, ',')
	}
	o.first[top] = false
	if o.pretty {
		o.newline()
	}
}

func (o *jsonObj) key(k string) {
	o.elem()
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
	if o.pretty {
		o.b = append(o.b, ' ')
	}
}

func (o *jsonObj) str(s string) { o.b = appendJSONString(o.b, s) }

func (o *jsonObj) strOrBad(s string) {
	if s == badString {
		s = ""
	}
	o.str(s)
}

func (o *jsonObj) num(v uint64) { o.b = strconv.AppendUint(o.b, v, 10) }

// appendJSONString quotes s as llvm::json does: '"' and '\' are escaped,
// \t \n \r get their short forms, other control bytes become \u00XX, and
// everything else (including DEL and non-ASCII) is copied. Invalid UTF-8
// is replaced by U+FFFD per bad byte, as llvm::json::fixUTF8 does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				b = append(b, "\uFFFD"...)
				i++
				continue
			}
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		i++
	}
	return append(b, '"')
}
