package profmerge

import (
	"io"
	"os"
	"syscall"

	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/mapfile"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// headSize is how much of an input classify reads to tell its format: a
// text sample profile's first function header may follow a long comment.
const headSize = 64 << 10

// source is one input as the merge sees it: opened once (classify), its
// head read once and classified by the format packages' detectors, and
// kept open until the merge ends, so that every later read of it (routing,
// decoding, a second pass) reads the file already open.
type source struct {
	Input
	kind Kind
	// sample: a sample profile (sampleprof.Detect); kind is KindUnknown.
	sample bool
	// instr: the instrumented path takes it: a .profraw, or an indexed
	// profile whose function table has entries (or whose table cannot be
	// read: the reader says why).
	instr bool
	// memProfBit: an indexed profile whose header has the MemProf variant bit.
	memProfBit bool
	// size is the file's size, -1 if unknown.
	size int64
	// f is the open file, nil if it could not be opened or read (err) or
	// is over the open-file budget (openBudget: opened again when read).
	f *os.File
	// err is why the input could not be opened or its head read: the
	// input's error, reported under the failure policy when it is loaded.
	err error
}

// Detect classifies data, an input's head, by the detectors of the
// format packages (memprof.Detect, instrprof.Detect); sample profiles,
// told by sampleprof.Detect, are KindUnknown here.
func Detect(data []byte) Kind {
	if memprof.Detect(data) == memprof.FormatRaw {
		return KindMemProfRaw
	}
	switch instrprof.Detect(data) {
	case instrprof.FormatIndexed:
		return KindIndexed
	case instrprof.FormatRaw:
		return KindInstrRaw
	case instrprof.FormatYAML:
		return KindMemProfYAML
	}
	return KindUnknown
}

// openBudget is how many inputs classify keeps open: half the process's
// file limit (Go raises the soft limit to the hard one at start), the rest
// left to the binary, the outputs and the files of other kinds. Inputs
// beyond it are opened again when they are read.
var openBudget = func() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<20 {
		return 1 << 19
	}
	return int(lim.Cur / 2)
}

// classify opens each input once (infile.Open: only regular files), reads
// its head once and tells what it holds; an indexed profile's header and
// function-table count are read from that head (instrprof.ReadHeader), or
// from the open file when the table lies beyond it. The files stay open
// (up to openBudget of them) until closeSources.
func classify(inputs []Input) []*source {
	budget := openBudget()
	buf := make([]byte, headSize) // one buffer: thousands of inputs are read here
	srcs := make([]*source, len(inputs))
	for i, in := range inputs {
		s := &source{Input: in, size: -1}
		srcs[i] = s
		f, err := infile.Open(in.Path)
		if err != nil {
			s.err = err
			// Its size still decides whether it is skipped as empty.
			if st, err := os.Stat(in.Path); err == nil && st.Mode().IsRegular() {
				s.size = st.Size()
			}
			continue
		}
		if st, err := f.Stat(); err == nil {
			s.size = st.Size()
		}
		n, err := f.ReadAt(buf, 0)
		if err != nil && err != io.EOF {
			f.Close()
			s.err = err
			continue
		}
		s.classifyHead(buf[:n], f)
		if i < budget {
			s.f = f
		} else {
			f.Close()
		}
	}
	return srcs
}

// classifyHead sets what s holds from head, its first bytes; f is the
// open file, for what lies beyond them.
func (s *source) classifyHead(head []byte, f *os.File) {
	s.kind = Detect(head)
	switch s.kind {
	case KindInstrRaw:
		s.instr = true
	case KindIndexed:
		r := headFile{head, f}
		h, err := instrprof.ReadHeader(s.Path, r)
		if err != nil {
			return // too short to be read: its reader says so
		}
		s.memProfBit = h.HasMemProf()
		n, err := instrprof.ReadFunctionCount(s.Path, r, h)
		s.instr = err != nil || n > 0
	case KindUnknown:
		s.sample = sampleprof.Detect(head) != sampleprof.FormatUnknown
	}
}

// headFile reads a file from its head already read where it can, from
// the file otherwise.
type headFile struct {
	head []byte
	f    *os.File
}

func (h headFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= 0 && off+int64(len(p)) <= int64(len(h.head)) {
		return copy(p, h.head[off:]), nil
	}
	return h.f.ReadAt(p, off)
}

// open returns the input's open file and what to call when done with it
// (closing a file opened again over the budget).
func (s *source) open() (*os.File, func(), error) {
	if s.err != nil {
		return nil, nil, s.err
	}
	if s.f != nil {
		return s.f, func() {}, nil
	}
	f, err := infile.Open(s.Path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// read reads the whole input into buf (grown as needed; nil is fine).
func (s *source) read(buf []byte) ([]byte, error) {
	f, done, err := s.open()
	if err != nil {
		return nil, err
	}
	defer done()
	return infile.ReadWhole(f, buf)
}

// load returns the whole input: mapped when it is large
// (mapfile.MinMapped), read otherwise.
func (s *source) load() (*mapfile.File, error) {
	f, done, err := s.open()
	if err != nil {
		return nil, err
	}
	defer done()
	return mapfile.FromFile(f)
}

// closeSources closes the files classify left open.
func closeSources(srcs []*source) {
	for _, s := range srcs {
		if s.f != nil {
			s.f.Close()
			s.f = nil
		}
	}
}
