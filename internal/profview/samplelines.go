package profview

import (
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleGUID is the GUID views look a sample profile's function up by in
// Symbols: an MD5 profile's hash as it is, else the GUID of the name's
// canonical form (llvmname.Canonical, .__uniq suffixes kept), which is
// how the profiled binary's linkage names are keyed.
func SampleGUID(id sampleprof.FunctionID) uint64 {
	if id.IsHash() {
		return id.MD5()
	}
	return llvmname.GUID(llvmname.Canonical(id.String()))
}

// SampleFunc is what s knows of the sample profile's function id (its
// DW_AT_decl_file and DW_AT_decl_line from the profiled binary).
func (s *Symbols) SampleFunc(id sampleprof.FunctionID) Func {
	return s.fn(SampleGUID(id))
}

// SampleLine is the absolute source line of location l of function id.
// LLVM's sample line offsets count from the DISubprogram's line, which
// is DW_AT_decl_line, modulo 2^16 (FunctionSamples::getOffset:
// (DILocation line - subprogram line) & 0xffff), so a line before the
// function's start, or line 0 (no source line), wraps around: those
// come back here as the line itself (0 for line 0). ok is false when s
// has no start line for the function, or when probe is set (probe ids
// are not lines).
func (s *Symbols) SampleLine(id sampleprof.FunctionID, l sampleprof.LineLocation, probe bool) (file string, line int64, ok bool) {
	if probe {
		return "", 0, false
	}
	fn := s.SampleFunc(id)
	if fn.Line == 0 {
		return "", 0, false
	}
	line = int64(fn.Line) + int64(l.Line)
	if line >= 1<<16 {
		line -= 1 << 16
	}
	return fn.File, line, true
}

// sampleLoc is how views print location l of function id: the absolute
// line ("42", ".disc" appended) when s knows the function's start, else
// the profile's offset, marked "+3" when s has a binary (so that an
// offset is never mistaken for a line) and bare without one (the view
// then says once that lines are offsets).
func (s *Symbols) sampleLoc(id sampleprof.FunctionID, l sampleprof.LineLocation, probe bool) string {
	if _, line, ok := s.SampleLine(id, l, probe); ok {
		str := strconv.FormatInt(line, 10)
		if l.Disc != 0 {
			str += "." + strconv.FormatUint(uint64(l.Disc), 10)
		}
		return str
	}
	if s != nil && s.Binary != "" && !probe {
		return "+" + locString(l)
	}
	return locString(l)
}

// sampleWhere is "file:line" where function id starts, "" when unknown.
func (s *Symbols) sampleWhere(id sampleprof.FunctionID) string {
	fn := s.SampleFunc(id)
	if fn.Line == 0 {
		return ""
	}
	return fn.File + ":" + strconv.FormatUint(uint64(fn.Line), 10)
}

// sampleLineNote says what a sample view's line numbers are.
func (s *Symbols) sampleLineNote(probe bool) string {
	switch {
	case probe:
		return "pseudo-probe ids (probe-based profile: ids, not lines, even with the profiled binary)"
	case s == nil || s.Binary == "":
		return "line offsets from the function's first line (DW_AT_decl_line; no --profiled-binary given), .discriminator"
	}
	return "source lines of the profiled binary (each function's file and first line at its name; 0: no source line), .discriminator; +N is an offset where the binary does not describe the function"
}
