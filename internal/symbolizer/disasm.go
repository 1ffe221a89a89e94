package symbolizer

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/x86inst"
)

// disassemble prints the executable sections of obj the way
//
//	llvm-profgen --show-disassembly-only --show-source-locations
//
// lays them out: every SHF_EXECINSTR section, every symbol of it from its
// address to the next symbol's, each instruction as "%8x:" and its text
// padded to 40 columns (at least one space), then the inline context innermost first as
// "name:LINEOFFSET[.DISCRIMINATOR]" joined by " @ ". Line offsets are
// (line − the subprogram's DW_AT_decl_line) & 0xffff and discriminators
// are the raw DWARF values, as profgen prints them. The instruction text
// is GNU (AT&T) syntax from golang.org/x/arch, not LLVM's, so only the
// addresses and annotations are expected to match profgen byte for byte.
//
// funcs, if not empty, is a comma-separated list of symbol names (linkage
// or demangled) to print; the others are skipped.
func (s *session) disassemble(obj, funcs string) error {
	m, err := s.module(obj)
	if err != nil {
		return fmt.Errorf("'%s': %s", obj, errorMessage(err))
	}
	if !m.pb.X86_64() {
		return fmt.Errorf("%s: --disassemble supports x86-64 only (machine %v)", obj, m.pb.Machine())
	}
	want := map[string]bool{}
	for _, f := range strings.Split(funcs, ",") {
		if f != "" {
			want[f] = true
		}
	}
	bySection, err := m.pb.SectionSymbols()
	if err != nil {
		s.warnf("%s: reading symbol table: %v", obj, err)
	}
	w := s.out
	fmt.Fprintf(w, "\nDisassembly of %s:\n", obj)
	matched := map[string]bool{}
	for i, sec := range m.pb.Sections() {
		if !sec.Exec || sec.Size == 0 {
			continue
		}
		fmt.Fprintf(w, "\nDisassembly of section %s [0x%x, 0x%x]:\n\n", sec.Name, sec.Addr, sec.Addr+sec.Size)
		if sec.Name == ".plt" || sec.NoBits {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return fmt.Errorf("%s: section %s at offset 0x%x: %v", obj, sec.Name, sec.Offset, err)
		}
		syms := bySection[i]
		for j, sym := range syms {
			end := sec.Addr + sec.Size
			if j+1 < len(syms) {
				end = syms[j+1].Addr
			}
			if sym.Addr >= end || sym.Addr < sec.Addr {
				continue
			}
			show := len(want) == 0 || want[sym.Name] || want[demangleName(sym.Name)]
			if !show {
				continue
			}
			matched[sym.Name] = true
			fmt.Fprintf(w, "<%s>:\n", sym.Name)
			s.disassembleRange(m, data[sym.Addr-sec.Addr:end-sec.Addr], sym.Addr)
			w.WriteByte('\n')
		}
	}
	if len(want) > 0 && len(matched) == 0 {
		s.warnf("%s: no function named %s", obj, funcs)
	}
	return nil
}

func (s *session) disassembleRange(m *module, code []byte, addr uint64) {
	w := s.out
	var line []byte
	for off := 0; off < len(code); {
		pc := addr + uint64(off)
		text, size := decodeInst(code[off:], pc)
		line = append(line[:0], fmt.Sprintf("%8x:", pc)...)
		line = append(line, text...)
		// Pad to 40 columns as profgen does; unlike profgen, keep one space
		// before the annotation after a longer instruction.
		line = append(line, strings.Repeat(" ", max(40-len(text), 1))...)
		line = append(line, profgenContext(m, pc)...)
		line = append(line, '\n')
		w.Write(line)
		off += size
	}
}

// decodeInst returns the text and length of the instruction at the start
// of code: the length as LLVM's disassembler decodes it (x86inst:
// a lone LOCK, XACQUIRE or XRELEASE prefix is an instruction, VEX and
// EVEX instructions are measured), the text from golang.org/x/arch where
// it decodes the same bytes, else the bytes as a .byte directive;
// undecodable bytes are "\t<unknown>", as in profgen, as long as LLVM
// reads them.
func decodeInst(code []byte, pc uint64) (string, int) {
	in := x86inst.Decode(code)
	switch in.Kind {
	case x86inst.KindInvalid:
		return "\t<unknown>", in.Len
	case x86inst.KindX86:
		return "\t" + formatInst(in.X86, pc), in.Len
	case x86inst.KindLock:
		return "\tlock", in.Len
	case x86inst.KindXAcquire:
		return "\txacquire", in.Len
	case x86inst.KindXRelease:
		return "\txrelease", in.Len
	case x86inst.KindEndbr64:
		return "\tendbr64", in.Len
	case x86inst.KindEndbr32:
		return "\tendbr32", in.Len
	}
	if inst, err := x86asm.Decode(code[:in.Len], 64); err == nil && inst.Len == in.Len && inst.Op != 0 {
		return "\t" + formatInst(inst, pc), in.Len
	}
	var b strings.Builder
	b.WriteString("\t.byte\t")
	for i, c := range code[:in.Len] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "0x%02x", c)
	}
	return b.String(), in.Len
}

// formatInst renders inst in GNU (AT&T) syntax with a tab after the
// mnemonic, as LLVM's printer separates them.
func formatInst(inst x86asm.Inst, pc uint64) string {
	t := strings.Join(strings.Fields(x86asm.GNUSyntax(inst, pc, nil)), " ")
	if i := strings.IndexByte(t, ' '); i > 0 {
		t = t[:i] + "\t" + t[i+1:]
	}
	return t
}

// profgenContext returns the inline context of pc as llvm-profgen prints
// it: frames outermost to innermost are taken while they have a name, then
// printed innermost first.
func profgenContext(m *module, pc uint64) string {
	frames, _ := m.bin.Symbolize(pc)
	n := 0
	for i := len(frames) - 1; i >= 0; i-- {
		if profgenName(&frames[i]) == "" {
			break
		}
		n++
	}
	var b strings.Builder
	for i := len(frames) - n; i < len(frames); i++ {
		f := &frames[i]
		if b.Len() > 0 {
			b.WriteString(" @ ")
		}
		b.WriteString(profgenName(f))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(uint64((f.Line-f.StartLine)&0xffff), 10))
		if f.Discriminator != 0 {
			b.WriteByte('.')
			b.WriteString(strconv.FormatUint(uint64(f.Discriminator), 10))
		}
	}
	return b.String()
}

func profgenName(f *elfsym.Frame) string {
	if f.LinkageName != "" {
		return f.LinkageName
	}
	return f.Name
}
