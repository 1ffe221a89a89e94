package profview

import (
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Func is what a view shows of one function of a profile.
type Func struct {
	// Name is the function's linkage (mangled) name, "" when unknown;
	// views print it demangled, as llvm-symbolizer does.
	Name string
	// File and Line are where the function starts in the source
	// (DW_AT_decl_file, DW_AT_decl_line of the profiled binary), the line
	// MemProf's line offsets count from; "" and 0 when unknown.
	File string
	Line uint32
}

// Symbols names the functions of a profile by their GUIDs (MD5 of the
// linkage name, as MemProf frames and instrumented records hold them).
type Symbols struct {
	Funcs map[uint64]Func
	// Binary is the profiled binary the names and lines come from, "" when
	// there was none: views then say once that frames show what the
	// profile holds (GUIDs or its own names, lines as offsets).
	Binary string
}

// NamesOnly wraps a map of GUIDs to linkage names (a profile's own, no
// source lines) as Symbols.
func NamesOnly(names map[uint64]string) *Symbols {
	s := &Symbols{Funcs: make(map[uint64]Func, len(names))}
	for g, n := range names {
		s.Funcs[g] = Func{Name: n}
	}
	return s
}

// NoBinaryNote is what views say when no profiled binary named the
// functions.
const NoBinaryNote = "no profiled binary given (--profiled-binary): functions are named as the profile names them (GUIDs otherwise) and lines are offsets from each function's first line"

// Note is NoBinaryNote when s has no binary, else "".
func (s *Symbols) Note() string {
	if s == nil || s.Binary == "" {
		return NoBinaryNote
	}
	return ""
}

func (s *Symbols) fn(guid uint64) Func {
	if s == nil {
		return Func{}
	}
	return s.Funcs[guid]
}

// Name is the demangled name of the function guid, or its GUID in hex.
func (s *Symbols) Name(guid uint64) string {
	if n := s.fn(guid).Name; n != "" {
		return demangle.Name(n)
	}
	return fmt.Sprintf("0x%016x", guid)
}

// LinkageName is the function's linkage name, or its GUID in hex.
func (s *Symbols) LinkageName(guid uint64) string {
	if n := s.fn(guid).Name; n != "" {
		return n
	}
	return fmt.Sprintf("0x%016x", guid)
}

// Line returns f's absolute source line and file (the function's first
// line plus f's offset, modulo 2^32 as the offset was taken), ok false
// when the function's start is unknown.
func (s *Symbols) Line(f memprof.Frame) (file string, line int64, ok bool) {
	fn := s.fn(f.Function)
	if fn.Line == 0 {
		return "", 0, false
	}
	// The offset is line - start line in unsigned 32-bit arithmetic
	// (memprof.Frame), so a line before the start (line 0: none) wraps.
	return fn.File, int64(fn.Line + f.LineOffset), true
}

// Position is "file:line:column" (absolute) when the function's start is
// known, else "+LineOffset:Column" as MemProf stores it.
func (s *Symbols) Position(f memprof.Frame) string {
	if file, line, ok := s.Line(f); ok {
		return fmt.Sprintf("%s:%d:%d", file, line, f.Column)
	}
	return fmt.Sprintf("+%d:%d", f.LineOffset, f.Column)
}

// Frame is how every view prints a frame: "name file:line:column" with
// the binary's lines, "name:+offset:column" without.
func (s *Symbols) Frame(f memprof.Frame) string {
	if _, _, ok := s.Line(f); ok {
		return s.Name(f.Function) + " " + s.Position(f)
	}
	return s.Name(f.Function) + ":" + s.Position(f)
}
