package profbinary

import (
	"debug/elf"
	"errors"
	"sort"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/pseudoprobe"
)

// This file is the binary's ELF structure as the layers above see it:
// sections, symbols and loadable segments in the project's terms, so
// that only elfsym and profbinary use debug/elf.

// Section is one section header of the binary.
type Section struct {
	// Index is the section's index in the section header table.
	Index int
	Name  string
	// Addr, Size and Offset are sh_addr, sh_size and sh_offset.
	Addr, Size, Offset uint64
	// Exec and Alloc are SHF_EXECINSTR and SHF_ALLOC; NoBits and
	// ProgBits say the type is SHT_NOBITS or SHT_PROGBITS.
	Exec, Alloc, NoBits, ProgBits bool

	s *elf.Section
	b *elfsym.Binary
}

// Data returns the section's bytes (decompressed): a plainly stored
// section is a slice of the mapping (not to be written to), others are
// read from it.
func (s *Section) Data() ([]byte, error) {
	if d, ok := s.b.MappedSection(s.Index); ok {
		return d, nil
	}
	return s.s.Data()
}

// Symbol is one entry of the binary's .symtab.
type Symbol struct {
	Name        string
	Value, Size uint64
	// Section is the index of the section that defines the symbol; -1 for
	// an undefined, absolute or common symbol, or an index past the
	// section table.
	Section int
	// Func is STT_FUNC, SectionSym STT_SECTION.
	Func, SectionSym bool
}

// Segment is a PT_LOAD program header.
type Segment = elfsym.Segment

// Sections returns the section headers, in table order.
func (b *Binary) Sections() []*Section {
	b.secsOnce.Do(func() {
		for i, s := range b.ELF().Sections {
			b.secs = append(b.secs, &Section{Index: i, Name: s.Name, Addr: s.Addr, Size: s.Size, Offset: s.Offset,
				Exec: s.Flags&elf.SHF_EXECINSTR != 0, Alloc: s.Flags&elf.SHF_ALLOC != 0,
				NoBits: s.Type == elf.SHT_NOBITS, ProgBits: s.Type == elf.SHT_PROGBITS, s: s, b: b.elf})
		}
	})
	return b.secs
}

// Section returns the first section named name, or nil.
func (b *Binary) Section(name string) *Section {
	for _, s := range b.Sections() {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Symbols returns the binary's .symtab in table order, read once; none
// (nil, nil) when it has no .symtab.
func (b *Binary) Symbols() ([]Symbol, error) {
	b.symsOnce.Do(func() {
		syms, err := b.ELF().Symbols()
		if errors.Is(err, elf.ErrNoSymbols) {
			return
		}
		if err != nil {
			b.symsErr = err
			return
		}
		n := len(b.ELF().Sections)
		b.syms = make([]Symbol, len(syms))
		for i, s := range syms {
			sec := -1
			if s.Section != elf.SHN_UNDEF && s.Section < elf.SHN_LORESERVE && int(s.Section) < n {
				sec = int(s.Section)
			}
			b.syms[i] = Symbol{Name: s.Name, Value: s.Value, Size: s.Size, Section: sec,
				Func: elf.ST_TYPE(s.Info) == elf.STT_FUNC, SectionSym: elf.ST_TYPE(s.Info) == elf.STT_SECTION}
		}
	})
	return b.syms, b.symsErr
}

// LoadSegments returns the PT_LOAD program headers in header order.
func (b *Binary) LoadSegments() []Segment { return b.elf.LoadSegments() }

// X86_64 reports whether the binary is for x86-64.
func (b *Binary) X86_64() bool { return b.elf.Machine() == "EM_X86_64" }

// Machine names the binary's machine (EM_AARCH64).
func (b *Binary) Machine() string { return b.elf.Machine() }

// probeSymbols is every .symtab symbol with its name for the pseudo
// probes: a section symbol by its section's name (llvm-profgen's).
func (b *Binary) probeSymbols() []pseudoprobe.Symbol {
	syms, _ := b.Symbols()
	secs := b.Sections()
	out := make([]pseudoprobe.Symbol, len(syms))
	for i, s := range syms {
		name := s.Name
		if s.SectionSym && s.Section >= 0 {
			name = secs[s.Section].Name
		}
		out[i] = pseudoprobe.Symbol{Addr: s.Value, Name: name}
	}
	return out
}

// SymbolStarts is llvm-profgen's SymbolStartAddrs: the GUID of every
// .symtab symbol's name to its address (the last of a repeated name).
func (b *Binary) SymbolStarts() map[uint64]uint64 { return pseudoprobe.SymbolStarts(b.probeSymbols()) }

// SymbolsAt is llvm-profgen's StartAddrToSymMap: the GUIDs of the names of
// the .symtab symbols at each address.
func (b *Binary) SymbolsAt() map[uint64][]uint64 { return pseudoprobe.SymbolsAt(b.probeSymbols()) }

// SectionSymbols groups the .symtab symbols by section index, sorted by
// (address, name) as llvm-profgen's stable sort of SymbolInfoTy leaves
// them, for disassembling symbol by symbol. Every symbol defined in a
// section counts, whatever its type; a section symbol is named after its
// section.
func (b *Binary) SectionSymbols() (map[int][]elfsym.Symbol, error) {
	syms, err := b.Symbols()
	secs := b.Sections()
	out := map[int][]elfsym.Symbol{}
	for _, s := range syms {
		if s.Section < 0 {
			continue
		}
		name := s.Name
		if s.SectionSym {
			name = secs[s.Section].Name
		}
		out[s.Section] = append(out[s.Section], elfsym.Symbol{Addr: s.Value, Size: s.Size, Name: name})
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool {
			if l[i].Addr != l[j].Addr {
				return l[i].Addr < l[j].Addr
			}
			return l[i].Name < l[j].Name
		})
	}
	return out, err
}
