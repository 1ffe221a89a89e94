package symbolizer

import (
	"regexp"
	"strings"
	"unsafe"

	"github.com/ianlancetaylor/demangle"
	itanium "github.com/rules-pgo/rules_pgo/internal/demangle"
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

// demangleName is LLVMSymbolizer::DemangleName for ELF: Itanium (_Z…) and
// Rust v0 (_R…) names are demangled in LLVM's style; anything else, or a
// name that fails to demangle, is returned unchanged.
func demangleName(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return name
	}
	// Our demangler prints exactly what LLVM prints and is much faster; it
	// declines the constructs it does not implement, and for those (and
	// Rust names) the general-purpose library is the fallback.
	if d, ok := itanium.Demangle(name); ok {
		return d
	}
	d, err := demangle.ToString(name, demangle.LLVMStyle, demangle.NoRust)
	if err != nil {
		return name
	}
	if strings.Contains(d, "operator") {
		// LLVM prints template arguments right after an operator name
		// ("operator<<char>"); the Go demangler separates them with a space
		// ("operator< <char>").
		d = operatorTemplateSpace.ReplaceAllString(d, "$1<")
	}
	return d
}

var operatorTemplateSpace = regexp.MustCompile(`(operator(?:<=>|<<=|>>=|<<|>>|<=|>=|->\*|->|<|>)) <`)
