package symbolizer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
)

// module is one opened binary with its symbol table.
type module struct {
	once sync.Once
	name string
	bin  *elfsym.Binary
	pb   *profbinary.Binary
	syms *elfsym.SymbolTable
	err  error
}

// shared is the state of one run that every worker uses: the opened
// modules, the demangling cache, warnings and the first fatal error. Its
// mutex guards everything but the demangling cache, which has its own.
type shared struct {
	c        *Options
	mu       sync.Mutex
	rep      *cli.Reporter // the real stderr
	modules  map[string]*module
	warned   map[string]bool
	warnings int
	failed   error
	// dmu guards demangled (mangled name → demangled name). A plain map
	// under a mutex: the cache is write-heavy (one store per distinct
	// name), where sync.Map keeps copying its dirty map.
	dmu       sync.Mutex
	demangled map[string]string
	// byPtr is the same cache keyed by the name's bytes: elfsym hands out
	// the same string for every frame of a function, and a two-word key
	// hashes and compares much faster than a long mangled name. The key's
	// pointer keeps the string alive, so equal keys mean equal contents.
	byPtr   map[strKey]string
	sources sourceFiles
}

// session answers requests. Each worker has its own, with a printer and an
// error stream of its own, over the run's shared state.
type session struct {
	*shared
	p   *printer
	out *bufio.Writer
	// errw receives this session's messages (per-batch buffers keep them
	// in input order); the shared reporter writes to the real stderr.
	rep *cli.Reporter
	// fbuf and lbuf hold the last answer's frames (frames): each answer
	// is printed before the next request is read.
	fbuf []elfsym.Frame
	lbuf []lineInfo
}

func newSession(c *Options, out *bufio.Writer, rep *cli.Reporter) *session {
	sh := &shared{c: c, rep: rep, modules: map[string]*module{}, warned: map[string]bool{},
		sources: sourceFiles{files: map[string]*string{}}}
	return sh.newSession(out, rep)
}

func (sh *shared) newSession(out *bufio.Writer, rep *cli.Reporter) *session {
	c := sh.c
	return &session{
		shared: sh, out: out, rep: rep,
		p: &printer{
			w: out, style: c.Style, pretty: c.Pretty, verbose: c.Verbose,
			printAddr: c.Addresses, printFunc: c.Functions != FunctionNone,
			contextLines: c.ContextLines, sources: &sh.sources,
		},
	}
}

func (sh *shared) close() {
	for _, m := range sh.modules {
		if m.bin != nil {
			m.bin.Close()
		}
	}
}

// warnf prints a warning on this session's stream and counts it for
// --fatal-warnings.
func (s *session) warnf(format string, args ...any) {
	s.mu.Lock()
	s.warnings++
	s.mu.Unlock()
	if s.rep != nil {
		s.rep.Warnf(format, args...)
	}
}

func (s *session) warnOnce(key, format string, args ...any) {
	s.mu.Lock()
	seen := s.warned[key]
	s.warned[key] = true
	s.mu.Unlock()
	if !seen {
		s.warnf(format, args...)
	}
}

// sharedWarnOnce is for warnings raised outside any request (by elfsym,
// from whichever worker): they go straight to stderr.
func (sh *shared) sharedWarnOnce(key, msg string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.warned[key] {
		return
	}
	sh.warned[key] = true
	sh.warnings++
	if sh.rep != nil {
		sh.rep.Warnf("%s", msg)
	}
}

func (sh *shared) fail(err error) {
	sh.mu.Lock()
	if sh.failed == nil {
		sh.failed = err
	}
	sh.mu.Unlock()
}

// module opens name once, whichever worker asks first; failures are
// cached too.
func (s *session) module(name string) (*module, error) {
	s.mu.Lock()
	m, ok := s.modules[name]
	if !ok {
		m = &module{name: name}
		s.modules[name] = m
	}
	s.mu.Unlock()
	m.once.Do(func() { m.err = m.open(s) })
	return m, m.err
}

func (m *module) open(s *session) error {
	// DWARF only: the symbol table is applied here, with LLVM's rules
	// (overrideFromSymtab), and not at all for --disassemble (profgen's
	// view). The program headers are not needed (llvm-symbolizer never
	// reads them). The file is opened once (profbinary): a FIFO or device
	// refused, never waited on, and what is not ELF refused from its head.
	opts := profbinary.Options{
		DWARFOnly:               true,
		DWP:                     s.c.DWPFile,
		DebugFileDirectories:    s.c.DebugFileDirectories,
		Warn:                    func(msg string) { s.sharedWarnOnce(m.name+msg, msg) },
		IgnoreBadProgramHeaders: true,
		SymbolTableEarly:        true,
		Check: func(_ string, head []byte) error {
			if len(head) < 4 || string(head[:4]) != "\x7fELF" {
				return errNotObject
			}
			return nil
		},
	}
	pb, err := profbinary.Open(m.name, opts)
	if err != nil {
		var de *decode.Error
		if errors.As(err, &de) && de.Section == "ELF header" {
			return fmt.Errorf("%w: %v", errNotObject, err)
		}
		return err
	}
	m.bin = pb.Symbolizer()
	m.pb = pb
	if m.syms = pb.SymbolTable(); m.syms == nil {
		_, err := elfsym.ReadSymbolTable(pb.ELF())
		s.sharedWarnOnce("symtab"+m.name, fmt.Sprintf("%s: reading symbol table: %v", m.name, err))
		m.syms = &elfsym.SymbolTable{}
	}
	return nil
}

var errNotObject = errors.New("The file was not recognized as a valid object file")

// errorMessage renders err the way LLVM's error messages read: the bare
// system error ("No such file or directory") or our decoder's message.
func errorMessage(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		return strings.ToUpper(msg[:1]) + msg[1:]
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	if errors.Is(err, errNotObject) {
		return errNotObject.Error()
	}
	// The caller names the file ('FILE': message): a decoding error's own
	// mention of it goes.
	var de *decode.Error
	if errors.As(err, &de) && de.File != "" {
		return strings.Replace(err.Error(), de.File+": ", "", 1)
	}
	return err.Error()
}

type command int

const (
	cmdCode command = iota
	cmdData
	cmdFrame
)

// parseCommand splits one request the way llvm-symbolizer (LLVM 19+)
// does. It returns the command, the module name, and either an address or
// a symbol name with an offset.
func (s *session) parseCommand(in string) (cmd command, r request, err error) {
	r.module = s.c.Obj
	if r.module != "" && alnum(in) {
		// A bare number (nearly every line of a bulk request): no prefix,
		// no file, nothing to trim or cut, as below.
		if v, ok := cli.ParseUint(in); ok {
			r.addr, r.hasAddr = v, true
			return cmd, r, nil
		}
	}
	switch {
	case strings.HasPrefix(in, "CODE "):
		in = in[5:]
	case strings.HasPrefix(in, "DATA "):
		cmd, in = cmdData, in[5:]
	case strings.HasPrefix(in, "FRAME "):
		cmd, in = cmdFrame, in[6:]
	}
	hasFile, hasBuildID := false, false
	for in != "" {
		in = strings.TrimLeft(in, " \t\n\v\f\r")
		if strings.HasPrefix(in, "FILE:") {
			if hasFile || hasBuildID {
				return cmd, r, errors.New("duplicate input file specification prefix")
			}
			hasFile, in = true, in[5:]
			continue
		}
		if strings.HasPrefix(in, "BUILDID:") {
			if hasFile || hasBuildID {
				return cmd, r, errors.New("duplicate input file specification prefix")
			}
			hasBuildID, in = true, in[8:]
			continue
		}
		break
	}
	switch {
	case hasFile || hasBuildID:
		in = strings.TrimLeft(in, " \t\n\v\f\r")
		if in == "" {
			if hasFile {
				return cmd, r, errors.New("must be followed by an input file")
			}
			return cmd, r, errors.New("must be followed by a hash")
		}
		if s.c.Obj != "" {
			return cmd, r, errors.New("input file has already been specified")
		}
		name, rest := spaceDelimitedWord(in)
		if name == "" {
			return cmd, r, errors.New("unbalanced quotes in input file name")
		}
		if hasBuildID {
			return cmd, r, errors.New("BUILDID: lookups are not supported")
		}
		r.module, in = name, rest
	case s.c.Obj == "":
		name, rest := spaceDelimitedWord(in)
		if name == "" {
			return cmd, r, errors.New("no input filename has been specified")
		}
		r.module, in = name, rest
	}
	in = strings.Trim(in, " \t\n\v\f\r")
	if in == "" {
		return cmd, r, errors.New("no module offset has been specified")
	}
	spec := in
	if i := strings.IndexAny(spec, " \n\r"); i >= 0 {
		spec = spec[:i] // like addr2line, ignore the rest
	}
	if v, ok := cli.ParseUint(spec); ok {
		r.addr, r.hasAddr = v, true
		return cmd, r, nil
	}
	if spec[0] >= '0' && spec[0] <= '9' {
		return cmd, r, errors.New("expected a number as module offset")
	}
	r.symbol = spec
	if plus := strings.LastIndexByte(spec, '+'); plus > 0 && plus < len(spec)-1 {
		if v, ok := cli.ParseUint(spec[plus+1:]); ok {
			r.symbol, r.addr = spec[:plus], v
		}
	}
	return cmd, r, nil
}

// alnum reports whether in is not empty and only ASCII letters and digits.
func alnum(in string) bool {
	for i := 0; i < len(in); i++ {
		if c := in[i] | 0x20; (c < 'a' || c > 'z') && (in[i] < '0' || in[i] > '9') {
			return false
		}
	}
	return in != ""
}

// spaceDelimitedWord returns the first word of in (skipping leading
// spaces, CR and LF), honouring "double" or 'single' quotes, and the rest.
func spaceDelimitedWord(in string) (word, rest string) {
	in = strings.TrimLeft(in, " \n\r")
	if in == "" {
		return "", ""
	}
	if q := in[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(in[1:], q)
		if end < 0 {
			return "", in
		}
		return in[1 : 1+end], in[2+end:]
	}
	end := strings.IndexAny(in, " \n\r")
	if end < 0 {
		return in, ""
	}
	return in[:end], in[end:]
}

// handle answers one request (a command-line argument or stdin line).
func (s *session) handle(in string) {
	if in == "" {
		// An empty line is a liveness probe: answer without a message.
		s.p.printInlining(request{}, nil)
		return
	}
	cmd, r, err := s.parseCommand(in)
	if err != nil {
		s.rep.Errorf("'%s': %v", in, err)
		s.p.printInlining(request{module: r.module}, nil)
		return
	}
	addr := r.addr - s.c.AdjustVMA
	m, err := s.module(r.module)
	if err != nil {
		s.rep.Errorf("'%s': %s", r.module, errorMessage(err))
		s.p.printError(r, errorMessage(err))
		s.fail(cli.Reported(fmt.Errorf("'%s': %s", r.module, errorMessage(err))))
		return
	}
	switch {
	case cmd == cmdData:
		s.p.printData(r, s.symbolizeData(m, addr))
	case cmd == cmdFrame:
		s.warnOnce("FRAME", "FRAME requests are not supported; printing no locals")
		s.p.printFrameLocals(r)
	case r.symbol != "":
		s.p.printLocations(r, s.findSymbol(m, r.symbol, r.addr))
	case s.c.Inlines:
		s.p.printInlining(r, s.symbolizeInlined(m, addr))
	case s.c.Style == StyleGNU:
		// addr2line behaviour: the innermost frame of the inlined chain,
		// where only the outermost frame takes the symbol-table name.
		frames := s.symbolizeInlined(m, addr)
		s.p.printInlining(r, frames[:1])
	default:
		li := s.symbolizeCode(m, addr)
		s.p.printInlining(r, []lineInfo{li})
	}
}

// frames returns the DWARF frames for addr converted to lineInfo, without
// the symbol-table override and demangling. An unknown address yields one
// unknown frame.
func (s *session) frames(m *module, addr uint64) []lineInfo {
	fr, err := m.bin.SymbolizeInto(s.fbuf, addr)
	if fr != nil {
		s.fbuf = fr[:0]
	}
	if err != nil && !errors.Is(err, elfsym.ErrUnknownPC) {
		// One per binary: a broken unit tends to fail every lookup.
		s.sharedWarnOnce("dwarf"+m.name, infile.Message(m.name, err))
	}
	if len(fr) == 0 {
		return []lineInfo{unknownLine()}
	}
	out := slices.Grow(s.lbuf[:0], len(fr))[:len(fr)]
	for i := range fr {
		out[i] = s.convert(&fr[i])
	}
	s.lbuf = out[:0]
	return out
}

func (s *session) convert(f *elfsym.Frame) lineInfo {
	li := unknownLine()
	switch s.c.Functions {
	case FunctionLinkage:
		li.FunctionName = f.LinkageName
		if li.FunctionName == "" {
			li.FunctionName = f.Name
		}
	case FunctionShort:
		li.FunctionName = f.Name
	}
	if li.FunctionName == "" {
		li.FunctionName = badString
	}
	if f.File != "" {
		li.FileName = s.pathStyle(f.File)
	}
	if f.StartFile != "" {
		li.StartFileName = s.pathStyle(f.StartFile)
	}
	li.Line, li.Column, li.Discriminator = f.Line, f.Column, f.Discriminator
	li.StartLine = f.StartLine
	if f.StartAddress != 0 {
		li.StartAddress, li.HasStart = f.StartAddress, true
	}
	return li
}

func (s *session) pathStyle(p string) string {
	if s.c.Basenames {
		return path.Base(p)
	}
	return p
}

// overrideFromSymtab applies llvm-symbolizer's symbol-table rule to one
// frame: with linkage names, a symbol covering addr supplies the function
// name and start address, and for a local symbol with no line info, the
// file name from its STT_FILE.
func (s *session) overrideFromSymtab(m *module, addr uint64, li *lineInfo) {
	if s.c.Functions != FunctionLinkage {
		return
	}
	sym, ok := m.syms.Lookup(addr)
	if !ok {
		return
	}
	li.FunctionName = sym.Name
	li.StartAddress, li.HasStart = sym.Addr, true
	if li.FileName == badString {
		if f := m.syms.File(sym); f != "" {
			li.FileName = f
		}
	}
}

func (s *session) demangle(li *lineInfo) {
	if s.c.Demangle && li.FunctionName != badString {
		li.FunctionName = s.demangleCached(li.FunctionName)
	}
}

// prefetch has elfsym decode, in parallel, the DWARF units that the code
// requests among lines will need. Only a hint: requests it cannot parse,
// and modules that fail to open, are left to the workers to report.
func (sh *shared) prefetch(lines []string) {
	s := sh.newSession(nil, cli.NewReporter(tool, io.Discard))
	byModule := map[string][]uint64{}
	for _, l := range lines {
		cmd, r, err := s.parseCommand(l)
		if err != nil || cmd != cmdCode || r.symbol != "" || r.module == "" {
			continue
		}
		byModule[r.module] = append(byModule[r.module], r.addr-sh.c.AdjustVMA)
	}
	for name, addrs := range byModule {
		if m, err := s.module(name); err == nil {
			m.bin.Prefetch(addrs)
		}
	}
}

// symbolizeInlined is LLVMSymbolizer::symbolizeInlinedCode.
func (s *session) symbolizeInlined(m *module, addr uint64) []lineInfo {
	fr := s.frames(m, addr)
	s.overrideFromSymtab(m, addr, &fr[len(fr)-1])
	for i := range fr {
		s.demangle(&fr[i])
	}
	return fr
}

// symbolizeCode is LLVMSymbolizer::symbolizeCode: the innermost frame's
// location and function, with the symbol-table override applied to it.
func (s *session) symbolizeCode(m *module, addr uint64) lineInfo {
	li := s.frames(m, addr)[0]
	s.overrideFromSymtab(m, addr, &li)
	s.demangle(&li)
	return li
}

// symbolizeData is LLVMSymbolizer::symbolizeData, limited to the symbol
// table (the declaration file and line of DWARF variables are not looked
// up, so "??:?" is printed where LLVM may print a declaration).
func (s *session) symbolizeData(m *module, addr uint64) global {
	g := global{Name: badString}
	if sym, ok := m.syms.Lookup(addr); ok {
		g.Name, g.Start, g.Size = sym.Name, sym.Addr, sym.Size
		g.DeclFile = m.syms.File(sym)
	}
	if s.c.Demangle && g.Name != badString {
		g.Name = s.demangleCached(g.Name)
	}
	return g
}

// findSymbol is LLVMSymbolizer::findSymbol: every symbol named name, at
// name+offset when the offset lies inside the symbol, symbolized without
// inlining; locations without a file are dropped.
func (s *session) findSymbol(m *module, name string, offset uint64) []lineInfo {
	var out []lineInfo
	for _, sym := range m.syms.Symbols() {
		if sym.Name != name {
			continue
		}
		a := sym.Addr
		if offset < sym.Size {
			a += offset
		}
		li := s.symbolizeCode(m, a)
		if li.FileName != badString {
			out = append(out, li)
		}
	}
	return out
}
