package symbolizer

import (
	"debug/elf"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
)

// SectionSymbols groups the .symtab symbols of f by section index in the
// order llvm-profgen disassembles them (for tools/profgen's
// --show-disassembly-only).
func SectionSymbols(f *elf.File) (map[int][]elfsym.Symbol, error) { return sectionSymbols(f) }

// DecodeInst returns the AT&T text ("\tmnemonic operands") and length of
// the x86-64 instruction at the start of code, at address pc, with LLVM's
// instruction boundaries (x86inst); undecodable bytes are "\t<unknown>"
// of the length LLVM reads.
func DecodeInst(code []byte, pc uint64) (string, int) { return decodeInst(code, pc) }
