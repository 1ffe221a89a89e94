package sampleprof

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// Format is the encoding of a sample profile file.
type Format int

const (
	FormatUnknown   Format = iota
	FormatText             // SPF_Text
	FormatBinary           // SPF_Binary (raw binary)
	FormatExtBinary        // SPF_Ext_Binary
)

func (f Format) String() string {
	switch f {
	case FormatText:
		return "text"
	case FormatBinary:
		return "binary"
	case FormatExtBinary:
		return "extbinary"
	}
	return "unknown"
}

// Detect tells the encoding of data as SampleProfileReader::create does:
// the extbinary and raw binary magic numbers, then a text profile whose
// first line that is neither empty nor a '#' comment is a function header.
// Anything else (an empty file too) is FormatUnknown, which llvm-profdata
// reports as "Unrecognized sample profile encoding format".
func Detect(data []byte) Format {
	c := decode.NewCursor(format, "", "header", data, 0)
	switch magic := c.Uleb(); {
	case c.Err() == nil && magic == magicExt:
		return FormatExtBinary
	case c.Err() == nil && magic == magicRaw:
		return FormatBinary
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if line[0] == ' ' {
			return FormatUnknown
		}
		if _, _, _, ok := parseHead(sref(line)); ok {
			return FormatText
		}
		return FormatUnknown
	}
	return FormatUnknown
}

// Merger merges whole sample profiles one at a time, as `llvm-profdata
// merge --sample` does (mergeSampleProfile): each input's top-level
// profiles, in the order its reader's map holds them, are merged with the
// input's weight into one map (FunctionSamples::merge), the profile symbol
// lists are united, and the summary is computed when the result is
// written. An input can be dropped as soon as it is added: the merged
// profile owns nothing of it but the function samples it adopts, so memory
// is the merged profile plus one input.
type Merger struct {
	// Release is the release whose llvm-profdata to follow (0 means llvmrelease.Default).
	Release llvmrelease.Release
	// Warnf, if set, receives what LLVM reports and goes on after: a
	// function whose checksum differs from the one merged before (dropped)
	// and counts that saturate.
	Warnf func(format string, args ...any)

	out   Profile
	begun bool
	byMD5 map[uint64]int32 // non-CS, LLVM 19+: the map is keyed by MD5
	// CS, LLVM 19+: contexts are keyed by their frames' MD5s, so that a
	// context of names and the same one of hashes are one: the last one
	// of a key, and ctxNext chains the others (-1 ends).
	byMD5Ctx map[uint64]int32
	ctxNext  []int32
	syms     map[string]bool
	md5s     map[string]uint64 // MD5Hash of the names seen

	// AddText's: inlinees and call targets are allocated a chunk at a
	// time; the stack of the line's profiles.
	slab  []FunctionSamples
	calls []CallTarget
	stack textStack
}

// md5 is f.MD5(), remembered.
func (m *Merger) md5(f FunctionID) uint64 {
	if f.isHash {
		return f.hash
	}
	h, ok := m.md5s[f.name]
	if !ok {
		if m.md5s == nil {
			m.md5s = map[string]uint64{}
		}
		h = llvmname.GUID(f.name)
		m.md5s[f.name] = h
	}
	return h
}

// Add merges p, read from the file name, with weight w (≥ 1). p must not
// be used afterwards: its function samples may become part of the result.
// Mixing CS and non-CS, or probe-based and other profiles, is an error, as
// in llvm-profdata.
func (m *Merger) Add(name string, p *Profile, w uint64) error {
	if w == 0 {
		w = 1
	}
	if err := m.begin(name, p); err != nil {
		return err
	}
	return m.add(name, p, w, m.Release.OrDefault())
}

// begin checks that p may join what was merged before and takes its
// flags.
func (m *Merger) begin(name string, p *Profile) error {
	if m.begun {
		if p.ProbeBased != m.out.ProbeBased {
			return fmt.Errorf("%s: cannot merge probe-based profile with non-probe-based profile", name)
		}
		if p.CS != m.out.CS {
			return fmt.Errorf("%s: cannot merge CS profile with non-CS profile", name)
		}
	}
	m.begun = true
	m.out.CS, m.out.ProbeBased = p.CS, p.ProbeBased
	// llvm-profdata writes the flags of FunctionSamples' globals, which
	// each reader sets as it reads: the text reader assigns
	// ProfileIsPreInlined, the binary readers only ever set it.
	if p.fromText {
		m.out.PreInlined = p.PreInlined
	} else {
		m.out.PreInlined = m.out.PreInlined || p.PreInlined
	}
	m.out.FS = m.out.FS || p.FS
	m.out.merged = true
	return nil
}

// add merges the profiles of p, read from the file name, with weight w.
func (m *Merger) add(name string, p *Profile, w uint64, llvm llvmrelease.Release) error {
	byMD5 := !p.CS && llvm.SampleMapHashesMD5()
	// The input's profiles, in its reader map's order.
	order := stdMapPass(p.Funcs, func(fs *FunctionSamples) uint64 { return contextHash(fs, llvm, m.md5) })
	for _, fs := range order {
		var dst *FunctionSamples
		switch {
		case fs.Context != nil && llvm.SampleMapHashesMD5():
			i, ok := m.byMD5Ctx[m.md5FramesKey(fs.Context)]
			for ; ok && i >= 0; i = m.ctxNext[i] {
				if m.sameMD5Frames(m.out.Funcs[i].Context, fs.Context) {
					dst = m.out.Funcs[i]
					break
				}
			}
		case fs.Context != nil:
			dst = m.out.LookupContext(fs.Context)
		case byMD5:
			if i, ok := m.byMD5[m.md5(fs.Name)]; ok {
				dst = m.out.Funcs[i]
			}
		default:
			dst = m.out.Lookup(fs.Name)
		}
		if dst == nil && w == 1 {
			// Merging into an empty profile copies it: adopt it instead.
			m.adopt(fs, byMD5, llvm)
			continue
		}
		if dst == nil {
			dst = &FunctionSamples{Name: fs.Name, Context: fs.Context}
			m.adopt(dst, byMD5, llvm)
		}
		if err := dst.mergeTop(fs, w, true); err != nil && m.Warnf != nil {
			m.Warnf("%s: %s: %v", name, fs.ContextString(), err)
		}
	}
	if len(p.SymbolList) > 0 {
		if m.syms == nil {
			m.syms = map[string]bool{}
		}
		for _, s := range p.SymbolList {
			m.syms[s] = true
		}
	}
	return nil
}

// md5FramesKey hashes a context by its frames' MD5s and locations.
func (m *Merger) md5FramesKey(frames []Frame) uint64 {
	h := uint64(14695981039346656037)
	for _, f := range frames {
		for _, v := range [2]uint64{m.md5(f.Func), uint64(f.Loc.Line) | uint64(f.Loc.Disc)<<32} {
			h = (h ^ v) * 1099511628211
			h ^= h >> 29
		}
	}
	return h
}

func (m *Merger) sameMD5Frames(a, b []Frame) bool {
	return slices.EqualFunc(a, b, func(x, y Frame) bool { return x.Loc == y.Loc && (x.Func == y.Func || m.md5(x.Func) == m.md5(y.Func)) })
}

// adopt appends fs as a new top-level profile of the result.
// Contexts are indexed for the lookups of the release only (the result's
// own index is built if it is asked for).
func (m *Merger) adopt(fs *FunctionSamples, byMD5 bool, llvm llvmrelease.Release) {
	i := int32(len(m.out.Funcs))
	switch {
	case fs.Context != nil && !llvm.SampleMapHashesMD5():
		if m.out.byCtx == nil {
			m.out.indexContexts()
		}
		k := framesKey(fs.Context)
		m.out.byCtx[k] = append(m.out.byCtx[k], i)
	case fs.Context != nil:
		if m.byMD5Ctx == nil {
			m.byMD5Ctx = map[uint64]int32{}
		}
		for len(m.ctxNext) <= int(i) {
			m.ctxNext = append(m.ctxNext, -1)
		}
		k := m.md5FramesKey(fs.Context)
		if j, ok := m.byMD5Ctx[k]; ok {
			m.ctxNext[i] = j
		} else {
			m.ctxNext[i] = -1
		}
		m.byMD5Ctx[k] = i
	default:
		if m.out.byName == nil {
			m.out.byName = map[FunctionID]int32{}
		}
		if _, ok := m.out.byName[fs.Name]; !ok {
			m.out.byName[fs.Name] = i
		}
		if byMD5 {
			if m.byMD5 == nil {
				m.byMD5 = map[uint64]int32{}
			}
			m.byMD5[m.md5(fs.Name)] = i
		}
	}
	m.out.Funcs = append(m.out.Funcs, fs)
}

// Reset forgets everything merged so far.
func (m *Merger) Reset() { *m = Merger{Release: m.Release, Warnf: m.Warnf} }

// Profile returns the merged profile (empty if nothing was added). The
// Merger must not be used afterwards.
func (m *Merger) Profile() *Profile {
	p := &m.out
	p.merged = true
	p.SymbolList = p.SymbolList[:0]
	for s := range m.syms {
		p.SymbolList = append(p.SymbolList, s)
	}
	slices.Sort(p.SymbolList)
	if len(p.SymbolList) == 0 {
		p.SymbolList = nil
	}
	return p
}

// AddSymbols adds names to the profile symbol list of the result
// (llvm-profdata's --prof-sym-list).
func (m *Merger) AddSymbols(names ...string) {
	if m.syms == nil {
		m.syms = map[string]bool{}
	}
	for _, s := range names {
		m.syms[s] = true
	}
}

// DropVTables removes every vtable type count from p and reports whether
// there were any.
func (p *Profile) DropVTables() bool {
	var had bool
	var walk func(fs *FunctionSamples)
	walk = func(fs *FunctionSamples) {
		if len(fs.VTables) > 0 {
			had = true
			fs.VTables = nil
		}
		for _, c := range fs.Callsites {
			walk(c.Callee)
		}
	}
	for _, fs := range p.Funcs {
		walk(fs)
	}
	return had
}
