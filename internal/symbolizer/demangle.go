package symbolizer

import (
	"unsafe"

	"github.com/rules-pgo/rules_pgo/internal/demangle"
)

// demangleCached memoizes demangleName: a run asks for the same names
// over and over.
func (s *session) demangleCached(name string) string {
	k := strKey{unsafe.StringData(name), len(name)}
	s.dmu.Lock()
	d, ok := s.byPtr[k]
	if !ok {
		if d, ok = s.demangled[name]; ok {
			s.byPtr[k] = d
		}
	}
	s.dmu.Unlock()
	if ok {
		return d
	}
	d = demangleName(name)
	s.dmu.Lock()
	if s.demangled == nil {
		s.demangled = make(map[string]string, 1024)
		s.byPtr = make(map[strKey]string, 1024)
	}
	s.demangled[name] = d
	s.byPtr[k] = d
	s.dmu.Unlock()
	return d
}

// strKey identifies a string by its bytes' address and length.
type strKey struct {
	p *byte
	n int
}

// demangleName is LLVMSymbolizer::DemangleName for ELF: demangle.Name,
// the one rendering every view prints. There is no fallback demangler: a
// name LLVM leaves mangled (or one whose construct internal/demangle does
// not implement) is printed as it is, never as a guess LLVM would not make.
func demangleName(name string) string {
	return demangle.Name(name)
}
