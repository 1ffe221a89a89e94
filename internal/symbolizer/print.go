package symbolizer

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/infile"
)

// badString marks an unknown name, as LLVM's DILineInfo::BadString does.
// Plain styles print it as "??", JSON as "".
const badString = "<invalid>"

// lineInfo is one frame as llvm-symbolizer's printers see it (DILineInfo).
type lineInfo struct {
	FunctionName  string
	FileName      string
	StartFileName string
	Line, Column  uint32
	StartLine     uint32
	Discriminator uint32
	StartAddress  uint64
	HasStart      bool
}

func unknownLine() lineInfo {
	return lineInfo{FunctionName: badString, FileName: badString, StartFileName: badString}
}

// global is a DATA answer (DIGlobal).
type global struct {
	Name        string
	Start, Size uint64
	DeclFile    string
	DeclLine    uint64
}

// request identifies what an answer is for.
type request struct {
	module  string
	addr    uint64
	hasAddr bool
	symbol  string
}

// printer writes answers in one output style. It follows the structure of
// LLVM's DIPrinter so each method can be checked against it.
type printer struct {
	w         *bufio.Writer
	style     OutputStyle
	pretty    bool
	verbose   bool
	printAddr bool
	printFunc bool
	// contextLines is --print-source-context-lines; sources reads files.
	contextLines int
	sources      *sourceFiles
	// list collects JSON objects when addresses come from the command
	// line; they are printed as one array at the end.
	list    []string
	inList  bool
	scratch []byte
}

func (p *printer) listBegin() {
	if p.style == StyleJSON {
		p.inList = true
		p.list = p.list[:0]
	}
}

func (p *printer) listEnd() {
	if p.style != StyleJSON {
		return
	}
	p.inList = false
	if !p.pretty {
		p.w.WriteByte('[')
		for i, o := range p.list {
			if i > 0 {
				p.w.WriteByte(',')
			}
			p.w.WriteString(o)
		}
		p.w.WriteString("]\n")
		return
	}
	if len(p.list) == 0 {
		p.w.WriteString("[]\n")
		return
	}
	p.w.WriteString("[\n")
	for i, o := range p.list {
		if i > 0 {
			p.w.WriteString(",\n")
		}
		p.w.WriteString("  ")
		p.w.WriteString(o)
	}
	p.w.WriteString("\n]\n")
}

// emitJSON prints or collects one top-level JSON object.
func (p *printer) emitJSON(obj []byte) {
	if p.inList {
		p.list = append(p.list, string(obj))
		return
	}
	p.w.Write(obj)
	p.w.WriteByte('\n')
}

// --- plain (LLVM and GNU) styles ---

func (p *printer) header(r request) {
	if r.hasAddr && p.printAddr {
		p.w.WriteString("0x")
		p.w.WriteString(strconv.FormatUint(r.addr, 16))
		if p.pretty {
			p.w.WriteString(": ")
		} else {
			p.w.WriteByte('\n')
		}
	}
}

func (p *printer) footer() {
	if p.style == StyleLLVM {
		p.w.WriteByte('\n')
	}
}

func (p *printer) frame(li *lineInfo, inlined bool) {
	if p.printFunc {
		name := li.FunctionName
		if name == badString {
			name = "??"
		}
		if p.pretty && inlined {
			p.w.WriteString(" (inlined by) ")
		}
		p.w.WriteString(name)
		if p.pretty {
			p.w.WriteString(" at ")
		} else {
			p.w.WriteByte('\n')
		}
	}
	file := li.FileName
	if file == badString {
		file = "??"
	}
	if p.verbose {
		p.w.WriteString("  Filename: ")
		p.w.WriteString(file)
		p.w.WriteByte('\n')
		if li.StartLine != 0 {
			p.w.WriteString("  Function start filename: ")
			p.w.WriteString(li.StartFileName)
			p.w.WriteString("\n  Function start line: ")
			p.writeUint(uint64(li.StartLine))
			p.w.WriteByte('\n')
		}
		if p.style == StyleLLVM && li.HasStart {
			p.w.WriteString("  Function start address: 0x")
			p.w.WriteString(strconv.FormatUint(li.StartAddress, 16))
			p.w.WriteByte('\n')
		}
		p.w.WriteString("  Line: ")
		p.writeUint(uint64(li.Line))
		p.w.WriteString("\n  Column: ")
		p.writeUint(uint64(li.Column))
		p.w.WriteByte('\n')
		if li.Discriminator != 0 {
			p.w.WriteString("  Discriminator: ")
			p.writeUint(uint64(li.Discriminator))
			p.w.WriteByte('\n')
		}
		return
	}
	p.w.WriteString(file)
	p.w.WriteByte(':')
	p.writeUint(uint64(li.Line))
	if p.style == StyleGNU {
		if li.Discriminator != 0 {
			p.w.WriteString(" (discriminator ")
			p.writeUint(uint64(li.Discriminator))
			p.w.WriteByte(')')
		}
	} else {
		p.w.WriteByte(':')
		p.writeUint(uint64(li.Column))
	}
	p.w.WriteByte('\n')
	if p.contextLines > 0 {
		p.w.WriteString(p.sourceContext(file, li.Line))
	}
}

// sourceContext renders --print-source-context-lines=N around line of
// file as LLVM's SourceCode does: N lines starting N/2 before line (at
// least line 1), each "%*d" with the width of ceil(log10(last line)),
// then " >: " for line itself or "  : ", then the text without its "\r".
// A file that cannot be read, or lines past its end, print nothing.
func (p *printer) sourceContext(file string, line uint32) string {
	if p.sources == nil {
		return ""
	}
	text, ok := p.sources.read(file)
	if !ok {
		return ""
	}
	n := int64(p.contextLines)
	first := max(1, int64(line)-n/2)
	last := first + n - 1
	// Find the byte range of lines first..last.
	start, pos := -1, 0
	for l := int64(1); l <= last; l++ {
		if l == first {
			start = pos
		}
		i := strings.IndexByte(text[pos:], '\n')
		if i < 0 {
			pos = -1
			break
		}
		pos += i + 1
	}
	if start < 0 {
		return ""
	}
	var chunk string
	if pos < 0 {
		// The file ended first: its final newline does not start a line.
		chunk = strings.TrimSuffix(text[start:], "\n")
	} else {
		chunk = text[start : pos-1]
	}
	width := int(math.Ceil(math.Log10(float64(last))))
	var b strings.Builder
	for i, s := range strings.Split(chunk, "\n") {
		l := first + int64(i)
		fmt.Fprintf(&b, "%*d", width, l)
		if l == int64(line) {
			b.WriteString(" >: ")
		} else {
			b.WriteString("  : ")
		}
		b.WriteString(strings.TrimSuffix(s, "\r"))
		b.WriteByte('\n')
	}
	return b.String()
}

// sourceFiles caches source files read for --print-source-context-lines.
type sourceFiles struct {
	mu    sync.Mutex
	files map[string]*string // nil: unreadable
}

func (sf *sourceFiles) read(name string) (string, bool) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if t, ok := sf.files[name]; ok {
		if t == nil {
			return "", false
		}
		return *t, true
	}
	b, err := infile.ReadFile(name) // a path from debug info: no FIFO, no device
	if err != nil {
		sf.files[name] = nil
		return "", false
	}
	t := string(b)
	sf.files[name] = &t
	return t, true
}

func (p *printer) writeUint(v uint64) {
	p.scratch = strconv.AppendUint(p.scratch[:0], v, 10)
	p.w.Write(p.scratch)
}

// printInlining prints an address's frames, innermost first. An empty
// slice prints one unknown frame.
func (p *printer) printInlining(r request, frames []lineInfo) {
	if len(frames) == 0 {
		frames = []lineInfo{unknownLine()}
	}
	if p.style == StyleJSON {
		p.emitJSON(p.jsonSymbol(r, "Symbol", frames))
		return
	}
	p.header(r)
	for i := range frames {
		p.frame(&frames[i], i > 0)
	}
	p.footer()
}

// printLocations prints the answer to a symbol-name request.
func (p *printer) printLocations(r request, locs []lineInfo) {
	if p.style == StyleJSON {
		p.emitJSON(p.jsonSymbol(r, "Loc", locs))
		return
	}
	if len(locs) == 0 {
		p.printInlining(r, nil)
		return
	}
	for i := range locs {
		p.frame(&locs[i], false)
	}
	p.footer()
}

func (p *printer) printData(r request, g global) {
	if p.style == StyleJSON {
		o := p.newObj()
		o.key("Address")
		o.str("0x" + strconv.FormatUint(r.addr, 16))
		o.key("Data")
		o.open('{')
		o.key("Name")
		if g.Name == badString {
			o.str("")
		} else {
			o.str(g.Name)
		}
		o.key("Size")
		o.str("0x" + strconv.FormatUint(g.Size, 16))
		o.key("Start")
		o.str("0x" + strconv.FormatUint(g.Start, 16))
		o.close('}')
		p.endJSON(o, r)
		return
	}
	p.header(r)
	name := g.Name
	if name == badString {
		name = "??"
	}
	p.w.WriteString(name)
	p.w.WriteByte('\n')
	p.writeUint(g.Start)
	p.w.WriteByte(' ')
	p.writeUint(g.Size)
	p.w.WriteByte('\n')
	if g.DeclFile == "" {
		p.w.WriteString("??:?\n")
	} else {
		p.w.WriteString(g.DeclFile)
		p.w.WriteByte(':')
		p.writeUint(g.DeclLine)
		p.w.WriteByte('\n')
	}
	p.footer()
}

// endJSON ends a request's JSON object with its last key, ModuleName (the
// keys are in LLVM's sorted order), and emits it.
func (p *printer) endJSON(o *jsonObj, r request) {
	o.key("ModuleName")
	o.str(r.module)
	o.close('}')
	p.emitJSON(o.b)
}

// printFrameLocals answers a FRAME request, which we do not support: it
// prints what llvm-symbolizer prints when it finds no locals.
func (p *printer) printFrameLocals(r request) {
	if p.style == StyleJSON {
		o := p.newObj()
		o.key("Address")
		o.str("0x" + strconv.FormatUint(r.addr, 16))
		o.key("Frame")
		o.open('[')
		o.close(']')
		p.endJSON(o, r)
		return
	}
	p.header(r)
	p.w.WriteString("??\n")
	p.footer()
}

// printError reports a failed request. JSON gets an error object; the plain
// styles print an unknown frame (the message went to stderr).
func (p *printer) printError(r request, msg string) {
	if p.style != StyleJSON {
		p.printInlining(r, nil)
		return
	}
	o := p.newObj()
	if r.hasAddr {
		o.key("Address")
		o.str("0x" + strconv.FormatUint(r.addr, 16))
	}
	o.key("Error")
	o.open('{')
	o.key("Message")
	o.str(msg)
	o.close('}')
	o.key("ModuleName")
	o.str(r.module)
	if r.symbol != "" {
		o.key("SymName")
		o.str(r.symbol)
	}
	o.close('}')
	p.emitJSON(o.b)
}

// jsonSymbol builds {"Address":…,"ModuleName":…,"Symbol":[…]} (or "Loc"
// with "SymName" for symbol requests). Keys are in the byte order LLVM's
// json::Object prints them.
func (p *printer) jsonSymbol(r request, listKey string, frames []lineInfo) []byte {
	o := p.newObj()
	if r.hasAddr {
		o.key("Address")
		o.str("0x" + strconv.FormatUint(r.addr, 16))
	}
	if listKey == "Loc" {
		o.key("Loc")
		p.jsonFrames(o, frames)
	}
	o.key("ModuleName")
	o.str(r.module)
	if r.symbol != "" { // "SymName" sorts before "Symbol"
		o.key("SymName")
		o.str(r.symbol)
	}
	if listKey == "Symbol" {
		o.key("Symbol")
		p.jsonFrames(o, frames)
	}
	o.close('}')
	return o.b
}

func (p *printer) jsonFrames(o *jsonObj, frames []lineInfo) {
	o.open('[')
	for i := range frames {
		f := &frames[i]
		o.elem()
		o.open('{')
		o.key("Column")
		o.num(uint64(f.Column))
		o.key("Discriminator")
		o.num(uint64(f.Discriminator))
		o.key("FileName")
		o.strOrBad(f.FileName)
		o.key("FunctionName")
		o.strOrBad(f.FunctionName)
		o.key("Line")
		o.num(uint64(f.Line))
		if p.contextLines > 0 {
			if src := p.sourceContext(f.FileName, f.Line); src != "" {
				o.key("Source")
				o.str(src)
			}
		}
		o.key("StartAddress")
		if f.HasStart {
			o.str("0x" + strconv.FormatUint(f.StartAddress, 16))
		} else {
			o.str("")
		}
		o.key("StartFileName")
		o.strOrBad(f.StartFileName)
		o.key("StartLine")
		o.num(uint64(f.StartLine))
		o.close('}')
	}
	o.close(']')
}
