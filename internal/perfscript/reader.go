package perfscript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"regexp"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// Content is the kind of samples a perf script holds.
type Content int

const (
	// LBR samples: one line per sample, the LBR entries (AutoFDO input).
	LBR Content = iota + 1
	// Hybrid samples: call-stack lines, then the LBR line (CSSPGO input).
	Hybrid
)

func (c Content) String() string {
	switch c {
	case LBR:
		return "LBR"
	case Hybrid:
		return "hybrid"
	}
	return "unknown"
}

// Options are llvm-profgen's switches that change how a trace is read.
type Options struct {
	// PID, when HasPID, keeps only the mmap events of that process (--pid).
	PID    int32
	HasPID bool
	// IgnoreStackSamples reads hybrid samples as LBR-only ones
	// (--ignore-stack-samples): the profile is context-insensitive.
	IgnoreStackSamples bool
	// Warn receives each warning llvm-profgen would print, without its
	// "warning: " prefix, in llvm-profgen's order. Nil drops them.
	Warn func(msg string)
	// MmapEvents, if not nil, receives the "Mmap: Binary ..." lines of
	// --show-mmap-events.
	MmapEvents io.Writer
	// HybridSample, if not nil, receives every hybrid sample that
	// llvm-profgen would aggregate for a context-sensitive profile (a
	// hybrid trace without IgnoreStackSamples): the call stack leaf first,
	// the leaf replaced by the target of the newest branch as llvm-profgen
	// does, return addresses turned into call addresses, ExternalAddr for
	// frames outside the binary; the LBR entries newest first; the repeat
	// count; first is true at the first occurrence of this (stack, LBR)
	// sample in the trace (llvm-profgen unwinds each distinct sample once).
	// The slices are reused after the call returns. This is where a
	// virtual unwinder plugs in; the Profile's counters then stay empty.
	HybridSample func(stack []uint64, lbr []Branch, count uint64, first bool)
	// HybridRecord, if not nil, is called instead of HybridSample with the
	// sample encoded as AppendHybridSample encodes it (the parser has the
	// encoding at hand: it hashes it for the distinct count). rec is reused
	// after the call returns.
	HybridRecord func(rec []byte, count uint64, first bool)
	// DeferRepeats lets the parser hold back the repeats of a recently
	// seen hybrid sample and deliver them later, their counts summed, as
	// one sample (first false): for hooks whose result is a sum over the
	// samples and their counts, as the unwinder's counters are
	// (repeats.go). The first occurrences, the distinct count and the
	// warnings are as without it. Parse only (not ParseEvents, whose
	// decoded samples gained nothing measurable), off with
	// ShowDetailedWarning.
	DeferRepeats bool
	// BuildID, if not nil, is the binary's GNU build id: an mmap event of
	// the binary that names another one (perf record --buildid-mmap) is
	// an ErrBuildIDMismatch error (see checkBuildID; llvm-profgen does not
	// check).
	BuildID []byte
	// ShowDetailedWarning adds the per-item warnings of
	// --show-detailed-warning before their summaries: each invalid return
	// address, each invalid range (in llvm-profgen's order, which costs a
	// copy of every distinct sample's LBR entries while parsing).
	ShowDetailedWarning bool
}

// Branch is one LBR entry after canonicalization: addresses outside the
// binary's code are ExternalAddr.
type Branch struct{ Source, Target uint64 }

// Counter is llvm-profgen's SampleCounter: inclusive address ranges
// [From, To] executed without a taken branch and taken branches
// (From→To), each with its count. Addresses are canonical (link-time).
type Counter struct {
	Ranges   map[Branch]uint64
	Branches map[Branch]uint64
}

func newCounter() *Counter {
	return &Counter{Ranges: map[Branch]uint64{}, Branches: map[Branch]uint64{}}
}

// Profile is the aggregated, unsymbolized profile of a trace.
type Profile struct {
	Content Content
	// CS is true for a context-sensitive profile (hybrid samples read
	// with their stacks); Counter is then empty.
	CS bool
	Counter
	// Samples counts the sample lines llvm-profgen counted
	// (NumTotalSample), Distinct the distinct aggregated samples of a
	// hybrid trace.
	Samples, Distinct uint64
	// BaseAddress is the binary's runtime base after the trace's mmap
	// events (the preferred base without one): what llvm-profgen
	// canonicalizes the data-access trace's IPs with (ParseDataAccess).
	BaseAddress uint64
}

// ErrContextSensitive reports hybrid samples read with their stacks: the
// context-sensitive aggregation needs the virtual unwinder, which this
// package does not have yet.
var ErrContextSensitive = errors.New("context-sensitive (hybrid) aggregation is not implemented: use IgnoreStackSamples")

// DetectContent is llvm-profgen's checkPerfScriptType: it reads up to the
// first LBR line and says whether call-stack lines precede it.
func DetectContent(name string, r io.Reader) (Content, error) {
	s := newLineStream(r)
	for !s.eof {
		if _, ok := parseUint(s.line, 10); ok {
			s.advance()
		}
		frames := 0
		for !s.eof {
			if _, ok := parseUint(ltrim(s.line), 16); !ok {
				break
			}
			frames++
			s.advance()
		}
		if !s.eof {
			if isLBRSample(s.line) {
				if frames > 0 {
					return Hybrid, nil
				}
				return LBR, nil
			}
			s.advance()
		}
	}
	if s.err != nil {
		return 0, s.failure(name, "trace")
	}
	return 0, &decode.Error{Format: "perfscript", File: name, Section: "trace", Offset: s.next, Msg: fmt.Sprintf("line %d: Invalid perf script input!", s.lineNo), Err: decode.ErrMalformed}
}

// isLBRSample: after trimming, the second of at most three space-separated
// pieces starts with "0x" and contains '/'.
func isLBRSample(line []byte) bool {
	s := rtrim(ltrim(line))
	var rec [3][]byte
	n := 0
	for split := 0; split < 2; split++ {
		i := bytes.IndexByte(s, ' ')
		if i < 0 {
			break
		}
		if i > 0 {
			rec[n] = s[:i]
			n++
		}
		s = s[i+1:]
	}
	if len(s) > 0 {
		rec[n] = s
		n++
	}
	return n >= 2 && bytes.HasPrefix(rec[1], []byte("0x")) && bytes.IndexByte(rec[1], '/') >= 0
}

// isMMapEvent: at least 50 bytes, not starting with a digit, containing
// PERF_RECORD_MMAP.
func isMMapEvent(line []byte) bool {
	if len(line) < 50 || (line[0] >= '0' && line[0] <= '9') {
		return false
	}
	// Most lines are LBR samples, which have no 'R': skip the search.
	return bytes.IndexByte(line, 'R') >= 0 && bytes.Contains(line, []byte("PERF_RECORD_MMAP"))
}

var (
	mmap2Re = regexp.MustCompile(`PERF_RECORD_MMAP2 (-?[0-9]+)/[0-9]+: \[(0x[a-f0-9]+)\((0x[a-f0-9]+)\) @ (0x[a-f0-9]+|0) .*\]: ([-a-z]+) (.*)`)
	mmapRe  = regexp.MustCompile(`PERF_RECORD_MMAP (-?[0-9]+)/[0-9]+: \[(0x[a-f0-9]+)\((0x[a-f0-9]+)\) @ (0x[a-f0-9]+|0)\]: ([-a-z]+) (.*)`)
)

// MMapEvent is a parsed PERF_RECORD_MMAP or PERF_RECORD_MMAP2 line.
type MMapEvent struct {
	PID                   int32
	Address, Size, Offset uint64
	Prot, Path            string
}

// parseMMap is extractMMapEventForBinary's parsing half.
func parseMMap(line []byte) (MMapEvent, bool) {
	var m [][]byte
	switch {
	case bytes.Contains(line, []byte("PERF_RECORD_MMAP2 ")):
		m = mmap2Re.FindSubmatch(line)
	case bytes.Contains(line, []byte("PERF_RECORD_MMAP ")):
		m = mmapRe.FindSubmatch(line)
	}
	if m == nil {
		return MMapEvent{}, false
	}
	var e MMapEvent
	pid, _ := parseInt(m[1])
	e.PID = int32(pid)
	e.Address, _ = parseAuto(m[2])
	e.Size, _ = parseAuto(m[3])
	e.Offset, _ = parseAuto(m[4])
	e.Prot, e.Path = string(m[5]), string(m[6])
	return e, true
}

// reader is one pass of PerfScriptReader over a trace.
type reader struct {
	name    string
	bin     *Binary
	opts    Options
	content Content
	s       *lineStream

	base          uint64 // runtime address of the first executable segment
	loadedByMMap  bool
	missingWarned bool

	prof *Profile
	// For the warnings llvm-profgen prints after parsing.
	numLeafExternalFrame uint64
	invalidReturnAddrs   map[uint64]struct{}
	fallThrough          BranchCounts // warnInvalidRange's ranges
	branches             BranchCounts // the branch counter, moved to prof at the end
	distinct             hashSet
	seed, seed2          maphash.Seed
	key                  []byte       // noteDistinct's encoding of a sample
	order                *sampleOrder // with ShowDetailedWarning (detailwarn.go)

	hyb     *hybridPipe  // the parallel hybrid parse (parallel.go)
	repeats *repeatCache // with Options.DeferRepeats (repeats.go)

	frames frameCache // extractCallstack's parsed stack lines

	// scratch
	recs  [][]byte
	lbr   []Branch
	stack []uint64
}

// Parse reads a perf script and aggregates it into an unsymbolized
// profile, as llvm-profgen --skip-symbolization does. It reads r twice
// (the first pass detects the content, as llvm-profgen does), so r must be
// seekable. Errors are *decode.Error with the line number in Msg and the
// byte offset of the line in Offset; skipped lines are warnings.
func Parse(name string, r io.ReadSeeker, bin *Binary, opts Options) (*Profile, error) {
	content, err := DetectContent(name, r)
	if err != nil {
		return nil, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if content == Hybrid && !opts.IgnoreStackSamples && opts.HybridSample == nil && opts.HybridRecord == nil {
		// Without an unwinder there is nothing to aggregate them into.
		return nil, ErrContextSensitive
	}
	return parseContent(name, r, bin, opts, content)
}

func parseContent(name string, r io.Reader, bin *Binary, opts Options, content Content) (*Profile, error) {
	if content == Hybrid && !opts.IgnoreStackSamples && opts.HybridSample == nil && opts.HybridRecord == nil {
		return nil, ErrContextSensitive
	}
	p := &reader{
		name: name, bin: bin, opts: opts, content: content,
		s:                  newLineStream(r),
		base:               bin.PreferredBase(),
		prof:               &Profile{Content: content, Counter: *newCounter(), CS: content == Hybrid && !opts.IgnoreStackSamples},
		invalidReturnAddrs: map[uint64]struct{}{},
		seed:               maphash.MakeSeed(),
		seed2:              maphash.MakeSeed(),
	}
	if opts.ShowDetailedWarning {
		p.order = newSampleOrder()
	}
	if content == LBR {
		if err := p.parseLBR(); err != nil {
			return nil, err
		}
	}
	if p.prof.CS && hybridParallel {
		if opts.DeferRepeats && !opts.ShowDetailedWarning {
			p.repeats = newRepeatCache(bin.codeLo)
		}
		p.startHybrid()
		defer p.stopHybrid()
	}
	for !p.s.eof {
		if isMMapEvent(p.s.line) {
			p.drainHybrid()
			if err := p.parseMMapEvent(); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.parseSample(); err != nil {
			return nil, err
		}
	}
	p.stopHybrid()
	if p.s.err == errLineTooLong {
		return nil, p.s.failure(p.name, "trace")
	}
	if p.s.err != nil {
		return nil, p.errorf(decode.ErrTruncated, "%v", p.s.err)
	}
	return p.done(), nil
}

// done completes the profile once every event is in (the text's or the
// decoded perf.data's): the counts of distinct samples and branches, the
// summary warnings, and, for non-CS profiles, the range counters.
func (p *reader) done() *Profile {
	p.prof.Distinct = uint64(p.distinct.len())
	p.prof.BaseAddress = p.base
	if n := p.branches.Len(); n > 0 {
		p.prof.Branches = make(map[Branch]uint64, n)
		for i, k := range p.branches.keys {
			p.prof.Branches[k] = p.branches.counts[i]
		}
	}
	p.summarize()
	if !p.prof.CS {
		p.finish()
	}
	return p.prof
}

func (p *reader) warn(format string, args ...any) {
	if p.opts.Warn != nil {
		p.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// errorf returns a *decode.Error about the current line.
func (p *reader) errorf(kind error, format string, args ...any) error {
	return &decode.Error{Format: "perfscript", File: p.name, Section: "trace", Offset: p.s.off,
		Msg: fmt.Sprintf("line %d: ", p.s.lineNo) + fmt.Sprintf(format, args...), Err: kind}
}

func (p *reader) canonical(addr uint64) uint64 { return addr - p.base + p.bin.PreferredBase() }

func (p *reader) parseMMapEvent() error {
	defer p.s.advance()
	e, ok := parseMMap(p.s.line)
	if !ok {
		p.warn("Cannot parse mmap event: %s ", p.s.line)
		return nil
	}
	if p.opts.MmapEvents != nil {
		fmt.Fprintf(p.opts.MmapEvents, "Mmap: Binary %s loaded at %#x: \n", e.Path, e.Address)
	}
	if fileName(e.Path) != p.bin.Name {
		return nil
	}
	if err := p.checkBuildID(e); err != nil {
		return err
	}
	return p.updateBinaryAddress(e)
}

// updateBinaryAddress applies an mmap event of the binary (PIE or not).
func (p *reader) updateBinaryAddress(e MMapEvent) error {
	if p.opts.HasPID && e.PID != p.opts.PID {
		return nil
	}
	if e.Address == p.base {
		p.loadedByMMap = true
		return nil
	}
	b := p.bin
	if e.Offset == b.TextSegmentOffsets[0] {
		p.base = e.Address
		p.loadedByMMap = true
		return nil
	}
	offs := b.TextSegmentOffsets
	i := 0
	for i < len(offs) && offs[i] < e.Offset {
		i++
	}
	if i < len(offs) && offs[i] == e.Offset {
		if b.PreferredTextSegmentAddresses[i]-b.PreferredBase() != e.Address-p.base {
			return p.errorf(decode.ErrMalformed, "Executable segments not loaded consecutively")
		}
		return nil
	}
	if i == 0 {
		return p.errorf(decode.ErrMalformed, "File offset not found")
	}
	if e.Offset-offs[i-1] != e.Address-p.base {
		return p.errorf(decode.ErrMalformed, "Segment not loaded by consecutive mmaps")
	}
	return nil
}

func (p *reader) warnIfMissingMMap() {
	if !p.missingWarned && !p.loadedByMMap {
		p.warn("No relevant mmap event is matched for %s, will use preferred address (%#x) as the base loading address!", p.bin.Name, p.bin.PreferredBase())
		p.missingWarned = true
	}
}

// parseSample is PerfScriptReader::parseSample: an optional repeat count
// line, then one sample.
func (p *reader) parseSample() error {
	p.prof.Samples++
	count := uint64(1)
	if c, ok := parseUint(p.s.line, 10); ok {
		count = c
		p.s.advance()
	}
	if p.content == LBR {
		if p.extractLBRStack() {
			p.warnIfMissingMMap()
			p.record(count)
		}
		return nil
	}
	return p.parseHybridSample(count)
}

// parseHybridSample is HybridPerfReader::parseSample.
func (p *reader) parseHybridSample(count uint64) error {
	s := p.s
	if !p.extractCallstack() {
		if !s.eof && bytes.HasPrefix(s.line, []byte(" 0x")) {
			s.advance()
		}
		return nil
	}
	if s.eof || !bytes.HasPrefix(s.line, []byte(" 0x")) {
		p.drainHybrid()
		p.warnIfMissingMMap()
		return p.errorf(decode.ErrMalformed, "'Hybrid perf sample is corrupted, No LBR sample line")
	}
	if p.hyb != nil {
		var k [2]uint64
		keyed := false
		if c := p.repeats; c != nil && c.active() {
			k, keyed = c.key(p.base, p.loadedByMMap, p.stack, s.line), true
			if c.hit(k, count) {
				s.advance()
				return nil
			}
		}
		p.queueHybrid(count, k, keyed)
		return nil
	}
	p.warnIfMissingMMap()
	if p.extractLBRStack() {
		if !p.opts.IgnoreStackSamples {
			p.stack[0] = p.lbr[0].Target
			p.noteOrder(p.stack, p.lbr)
			first := p.noteDistinct()
			p.countFallThrough(count)
			p.hybridSample(p.stack, p.lbr, p.key, count, first)
			return nil
		}
		// With IgnoreStackSamples the stack is dropped before aggregation.
		p.stack = p.stack[:0]
		p.record(count)
	}
	return nil
}

// extractLBRStack parses the current line's LBR entries into p.lbr and
// advances; it reports whether any entry was kept.
func (p *reader) extractLBRStack() bool {
	kept := p.parseLBRLine(p.s.line, p.s.lineNo)
	p.s.advance()
	return kept
}

// parseLBRLine parses the LBR entries of line (number lineNo) into p.lbr
// and reports whether any entry was kept.
func (p *reader) parseLBRLine(line []byte, lineNo int64) bool {
	var ok bool
	if p.lbr, ok = fastLBR(line, p.bin, p.base, p.lbr[:0]); ok {
		return len(p.lbr) > 0
	}
	p.lbr = p.lbr[:0]
	p.recs = fields(p.recs[:0], rtrim(line))
	recs := p.recs
	i := 0
	if len(recs) > 0 && bytes.IndexByte(recs[0], '/') < 0 {
		if _, ok := parseUint(recs[0], 16); !ok {
			p.warn("Invalid address in LBR record at line %d: %s", lineNo, line)
			return false
		}
		i = 1
	}
	for ; i < len(recs); i++ {
		tok := recs[i]
		from, rest, ok := bytes.Cut(tok, []byte("/"))
		var to []byte
		if ok {
			to, _, _ = bytes.Cut(rest, []byte("/"))
		}
		src, ok1 := parseUint(drop2(from), 16)
		dst, ok2 := parseUint(drop2(to), 16)
		if !ok || !ok1 || !ok2 {
			p.warn("Invalid address in LBR record at line %d: %s", lineNo, line)
			break
		}
		src, dst = p.canonical(src), p.canonical(dst)
		srcIn, dstIn := p.bin.IsCode(src), p.bin.IsCode(dst)
		if !srcIn {
			src = ExternalAddr
		}
		if !dstIn {
			dst = ExternalAddr
		}
		if !srcIn && !dstIn {
			continue
		}
		p.lbr = append(p.lbr, Branch{src, dst})
	}
	return len(p.lbr) > 0
}

// fastLBR appends the entries of an LBR line as perf prints it ("[IP]
// 0xF/0xT/... ...", single spaces between fields, no bad entry) to lbr, as
// parseLBRLine's general path would with the binary loaded at base; it
// reports false for any other line, which the general path then reads
// with its warnings.
func fastLBR(line []byte, bin *Binary, base uint64, lbr []Branch) ([]Branch, bool) {
	return fastLBRCached(line, bin, base, lbr, nil)
}

// fastLBRCached is fastLBR remembering its entries in c (when not nil):
// an LBR stack repeats a few branches over and over (955 distinct entries
// among the 64,000 of 2,000 lines of bench/profgen's probe trace), and an
// entry's text, up to the space after it, and the base decide what it
// adds, so that a remembered one is found without reading its digits.
func fastLBRCached(line []byte, bin *Binary, base uint64, lbr []Branch, c *lbrCache) ([]Branch, bool) {
	delta := bin.PreferredBase() - base // canonical: addr - base + preferred
	n := len(line)
	for n > 0 && isSpace(line[n-1]) {
		n--
	}
	line = line[:n]
	i := 0
	first := true
	for {
		for i < n && line[i] == ' ' {
			i++
		}
		if i == n {
			return lbr, true
		}
		if first {
			// A first field without '/' is the sample IP: hex digits,
			// checked and skipped.
			first = false
			end := bytes.IndexByte(line[i:], ' ')
			if end < 0 {
				end = n - i
			}
			if tok := line[i : i+end]; bytes.IndexByte(tok, '/') < 0 {
				if _, ok := parseHex(tok); !ok {
					return lbr, false
				}
				i += end
				continue
			}
		}
		var e *lbrCacheEntry
		start := i
		if c != nil {
			end := n
			if j := bytes.IndexByte(line[i:n], ' '); j >= 0 {
				end = i + j
			}
			if tok := line[i:end]; len(tok) <= len(e.tok) {
				e = c.entry(tok)
				if e.n == uint8(len(tok)) && e.base == base && string(e.tok[:e.n]) == string(tok) {
					if e.keep {
						lbr = append(lbr, e.br)
					}
					i = end
					continue
				}
			}
		}
		var src, dst uint64
		var ok bool
		if src, i, ok = hexField(line, i); !ok || i == n || line[i] != '/' {
			return lbr, false
		}
		if dst, i, ok = hexField(line, i+1); !ok {
			return lbr, false
		}
		for i < n && line[i] != ' ' {
			i++
		}
		src, dst = src+delta, dst+delta
		srcIn, dstIn := bin.IsCode(src), bin.IsCode(dst)
		if !srcIn {
			src = ExternalAddr
		}
		if !dstIn {
			dst = ExternalAddr
		}
		if srcIn || dstIn {
			lbr = append(lbr, Branch{src, dst})
		}
		if e != nil {
			e.n = uint8(copy(e.tok[:], line[start:i]))
			e.base, e.br, e.keep = base, Branch{src, dst}, srcIn || dstIn
		}
	}
}

// lbrCache remembers LBR entries fastLBRCached read: direct-mapped by a
// hash of the entry's text.
type lbrCache struct {
	entries [lbrCacheSize]lbrCacheEntry
}

const lbrCacheBits = 11
const lbrCacheSize = 1 << lbrCacheBits

type lbrCacheEntry struct {
	tok  [46]byte // the entry's text (n bytes; n is 0 while unused)
	n    uint8
	keep bool // the entry is kept (either address in the binary's code)
	base uint64
	br   Branch
}

// entry returns the slot of the entry text tok.
func (c *lbrCache) entry(tok []byte) *lbrCacheEntry {
	if n := len(tok); n >= 24 {
		// Four words (the addresses' digits, as perf prints them),
		// mixed independently.
		h := binary.LittleEndian.Uint64(tok)*0x9e3779b97f4a7c15 ^ binary.LittleEndian.Uint64(tok[8:])*0xbf58476d1ce4e5b9 ^
			binary.LittleEndian.Uint64(tok[16:])*0x94d049bb133111eb ^ binary.LittleEndian.Uint64(tok[n-8:])*0xd6e8feb86659fd93 ^ uint64(n)
		h ^= h >> 29
		return &c.entries[(h*0x9e3779b97f4a7c15)>>(64-lbrCacheBits)]
	}
	h := uint64(len(tok))
	for len(tok) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(tok)) * 0x9e3779b97f4a7c15
		h ^= h >> 32
		tok = tok[8:]
	}
	for _, b := range tok {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	h *= 0x9e3779b97f4a7c15
	return &c.entries[h>>(64-lbrCacheBits)]
}

// hexField parses "0x" and 1–16 hex digits at line[i:], ending at a '/',
// a ' ' or the end; it returns the value and the index after the digits.
// The first eight digits are looked up at once (eight independent table
// loads, checked together) when there are eight: a quarter faster than
// the loop alone on the trace's 10-digit addresses, where the loop's
// v<<4|d is one long chain. (A SWAR version, eight bytes converted in a
// register, was slower; so was a second step of two digits.)
func hexField(line []byte, i int) (uint64, int, bool) {
	if i+2 >= len(line) || line[i] != '0' || line[i+1] != 'x' {
		return 0, i, false
	}
	i += 2
	start := i
	var v uint64
	if i+8 <= len(line) {
		var ok bool
		if v, ok = hex8(line[i:]); ok {
			i += 8
		}
	}
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

// drop2 is StringRef::substr(2): the "0x" prefix is dropped unchecked.
func drop2(b []byte) []byte {
	if len(b) < 2 {
		return nil
	}
	return b[2:]
}

// extractCallstack parses the stack lines of a hybrid sample into p.stack
// (leaf first; return addresses turned into call addresses) and skips to
// the LBR line. It reports false for a line that is not a frame, an empty
// stack, or a leaf in a prolog or epilog.
func (p *reader) extractCallstack() bool {
	s := p.s
	p.stack = p.stack[:0]
	for !s.eof && !bytes.HasPrefix(s.line, []byte(" 0x")) {
		addr, ok := p.frames.parse(s.line)
		if !ok {
			s.advance()
			return false
		}
		s.advance()
		if !p.pushFrame(addr) {
			break
		}
	}
	p.trimExternalTail()
	for !s.eof && !bytes.HasPrefix(s.line, []byte(" 0x")) {
		s.advance()
	}
	return p.stackUsable()
}

// frameCache remembers parsed stack lines (parseUint(ltrim(line), 16)
// of a line as perf prints it, up to 24 bytes): a trace's stacks repeat
// the same few return addresses. Direct-mapped by the line's last eight
// bytes (its address's last digits) and length.
type frameCache struct {
	entries *[frameCacheSize]frameCacheEntry
	lines   int
}

const frameCacheBits = 10
const frameCacheSize = 1 << frameCacheBits

type frameCacheEntry struct {
	line [24]byte // n bytes; n is 0 while unused
	n    uint8
	ok   bool
	addr uint64
}

func (c *frameCache) parse(line []byte) (uint64, bool) {
	n := len(line)
	if n < 8 || n > 24 {
		return parseUint(ltrim(line), 16)
	}
	if c.entries == nil {
		// Made after the first frameCacheSize lines: a short trace (a
		// fuzzer's input) does not pay for it.
		if c.lines++; c.lines < frameCacheSize {
			return parseUint(ltrim(line), 16)
		}
		c.entries = new([frameCacheSize]frameCacheEntry)
	}
	h := (binary.LittleEndian.Uint64(line[n-8:]) ^ uint64(n)) * 0x9e3779b97f4a7c15
	e := &c.entries[h>>(64-frameCacheBits)]
	if int(e.n) == n && string(e.line[:n]) == string(line) {
		return e.addr, e.ok
	}
	addr, ok := parseUint(ltrim(line), 16)
	e.n, e.addr, e.ok = uint8(copy(e.line[:], line)), addr, ok
	return addr, ok
}

// pushFrame appends the frame at addr (leaf first) to p.stack as
// extractCallstack does: frames outside the binary fold into one
// ExternalAddr, a return address becomes its call's address. It reports
// false when the stack ends there (a return address with no call before
// it).
func (p *reader) pushFrame(addr uint64) bool {
	addr = p.canonical(addr)
	if !p.bin.IsCode(addr) {
		if len(p.stack) == 0 {
			p.numLeafExternalFrame++
		}
		if len(p.stack) == 0 || p.stack[len(p.stack)-1] != ExternalAddr {
			p.stack = append(p.stack, ExternalAddr)
		}
		return true
	}
	if len(p.stack) > 0 {
		call := p.bin.callAddrFromFrameAddr(addr)
		if call == 0 {
			p.invalidReturnAddrs[addr] = struct{}{}
			return false
		}
		addr = call
	}
	p.stack = append(p.stack, addr)
	return true
}

// trimExternalTail drops the outermost frame of p.stack when it is the
// external one (and not the only one).
func (p *reader) trimExternalTail() {
	if n := len(p.stack); n > 1 && p.stack[n-1] == ExternalAddr {
		p.stack = p.stack[:n-1]
	}
}

// stackUsable: the stack has frames and its leaf is not in a prolog or
// epilog.
func (p *reader) stackUsable() bool {
	return len(p.stack) > 0 && !p.bin.prologEpilog[p.stack[0]]
}

// record aggregates the sample in p.lbr with its repeat count, as
// computeCounterFromLBR does, applied per sample rather than per distinct
// sample (the counters are sums, so the result is the same). Every
// fall-through pair (TO of an entry, FROM of the more recent one) is
// counted, as warnInvalidRange needs them; the range counter is the subset
// of them that are valid, taken in finish.
func (p *reader) record(count uint64) {
	if p.content == Hybrid {
		p.noteDistinct()
		p.noteOrder(nil, p.lbr)
	}
	p.countFallThrough(count)
	for _, e := range p.lbr {
		if p.bin.IsCode(e.Target) {
			p.branches.Add(e, count)
		}
	}
}

// countFallThrough counts the pairs (TO of an entry, FROM of the more
// recent one) that warnInvalidRange checks.
func (p *reader) countFallThrough(count uint64) { countFallThrough(&p.fallThrough, p.lbr, count) }

func countFallThrough(c *BranchCounts, lbr []Branch, count uint64) {
	end := uint64(0)
	for _, e := range lbr {
		if end != 0 {
			c.Add(Branch{e.Target, end}, count)
		}
		end = e.Source
	}
}

// noteDistinct counts distinct (stack, LBR) samples, the denominator of the
// truncated-stack warning, by a 128-bit hash of each; it reports whether
// the sample is new.
func (p *reader) noteDistinct() bool {
	var k [2]uint64
	k, p.key = p.sampleHash(p.key, p.stack, p.lbr)
	return p.insertDistinct(k)
}

// sampleHash is the 128-bit hash of a (stack, LBR) sample, encoded into
// buf (returned for reuse).
func (p *reader) sampleHash(buf []byte, stack []uint64, lbr []Branch) ([2]uint64, []byte) {
	b := AppendHybridSample(buf[:0], stack, lbr)
	return [2]uint64{maphash.Bytes(p.seed, b), maphash.Bytes(p.seed2, b)}, b
}

// AppendHybridSample appends the encoding of a hybrid sample to buf: the
// stack's length, its addresses, then each LBR entry's source and target,
// little-endian uint64s (Options.HybridRecord).
func AppendHybridSample(buf []byte, stack []uint64, lbr []Branch) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(stack)))
	for _, a := range stack {
		buf = binary.LittleEndian.AppendUint64(buf, a)
	}
	for _, e := range lbr {
		buf = binary.LittleEndian.AppendUint64(buf, e.Source)
		buf = binary.LittleEndian.AppendUint64(buf, e.Target)
	}
	return buf
}

// hybridSample hands a sample to HybridRecord (as rec, its encoding) or
// HybridSample.
func (p *reader) hybridSample(stack []uint64, lbr []Branch, rec []byte, count uint64, first bool) {
	if p.opts.HybridRecord != nil {
		p.opts.HybridRecord(rec, count, first)
		return
	}
	p.opts.HybridSample(stack, lbr, count, first)
}

// insertDistinct adds a sample's hash to the distinct set and reports
// whether it is new.
func (p *reader) insertDistinct(k [2]uint64) bool {
	return p.distinct.insert(k)
}

// finish takes the range counter out of the fall-through pairs.
func (p *reader) finish() {
	b := p.bin
	for i, r := range p.fallThrough.keys {
		n := p.fallThrough.counts[i]
		if b.IsCode(r.Source) && b.IsCode(r.Target) && b.validFallThrough(r.Source, r.Target) {
			p.prof.Ranges[r] = n
		}
	}
}

// summarize emits the warnings llvm-profgen prints after parsing, in its
// order (parsePerfTraces: leaf external frames, truncated stacks, invalid
// ranges).
func (p *reader) summarize() {
	p.summary(p.numLeafExternalFrame, p.prof.Samples, "of samples have leaf external frame in call stack.")
	if p.opts.ShowDetailedWarning {
		p.detailTruncatedStacks()
	}
	p.summary(uint64(len(p.invalidReturnAddrs)), p.prof.Distinct, "of truncated stack samples due to invalid return address, likely caused by frame pointer omission.")
	if p.fallThrough.Len() == 0 {
		p.warn("No samples in perf script!")
		return
	}
	if p.opts.ShowDetailedWarning {
		p.detailInvalidRanges()
	}
	var total, notBoundary, unmatched, recovered, crossFunc, bogus uint64
	b := p.bin
	for i, r := range p.fallThrough.keys {
		n := p.fallThrough.counts[i]
		start, end := r.Source, r.Target
		total += n
		if !b.IsCode(start) && !b.IsCode(end) {
			continue
		}
		if !b.IsCode(start) || !b.isTransfer(end) {
			notBoundary += n
		}
		fr := b.findFuncRange(start)
		if fr == nil {
			unmatched += n
			continue
		}
		if fr.Func != nil && (fr.Func.Recovered || fr.Func.NameMismatch) {
			recovered += n
		}
		if end >= fr.End {
			crossFunc += n
		}
		if b.IsCode(start) && b.IsCode(end) && !b.validFallThrough(start, end) {
			bogus += n
		}
	}
	p.summary(notBoundary, total, "of samples are from ranges that are not on instruction boundary.")
	p.summary(unmatched, total, "of samples are from ranges that do not belong to any functions.")
	p.summary(recovered, total, "of samples are from ranges that belong to functions recovered from symbol table.")
	p.summary(crossFunc, total, "of samples are from ranges that do cross function boundaries.")
	p.summary(bogus, total, "of samples are from ranges that have range start after or too far from range end acrossing the unconditinal jmp.")
}

// summary is emitWarningSummary.
func (p *reader) summary(num, total uint64, msg string) {
	if num == 0 || total == 0 {
		return
	}
	p.warn("%.2f%%(%d/%d) %s", float64(num)*100/float64(total), num, total, msg)
}
