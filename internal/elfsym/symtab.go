package elfsym

import (
	"debug/elf"
	"errors"
	"sort"
)

// SymbolTable is an ELF symbol table as llvm-symbolizer's
// SymbolizableObjectFile sees it: the function, object and untyped
// symbols defined in a section, one per address, with the STT_FILE
// symbols that name the source files of local ones. llvm-symbolizer
// consults it for the outermost frame when it prints linkage names, for
// addresses no DWARF function covers, for DATA requests and for symbol
// names given as requests.
type SymbolTable struct {
	syms []Symbol // sorted by (Addr, Size), one per address
	// files holds the STT_FILE symbols in table order; a local symbol's
	// source file name is the last STT_FILE before it.
	files []fileSym
}

// Symbol is one entry of a SymbolTable.
type Symbol struct {
	Addr, Size uint64
	Name       string
	localIdx   uint32 // symbol-table index of an STB_LOCAL symbol, else 0
}

type fileSym struct {
	idx  uint32
	name string
}

// ReadSymbolTable reads .symtab, or .dynsym when there is no .symtab, the
// way LLVM's computeSymbolSizes and SymbolizableObjectFile::addSymbol do.
// A file with neither yields an empty table.
func ReadSymbolTable(f *elf.File) (*SymbolTable, error) {
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) || (err == nil && len(syms) == 0) {
		syms, err = f.DynamicSymbols()
	}
	if errors.Is(err, elf.ErrNoSymbols) {
		return &SymbolTable{}, nil
	}
	if err != nil {
		return nil, err
	}
	st := &SymbolTable{}
	for i, s := range syms {
		idx := uint32(i + 1) // debug/elf drops the null symbol at index 0
		typ := elf.ST_TYPE(s.Info)
		// Symbols without a section (undefined, absolute, common) are
		// skipped; STT_FILE ones are remembered for local symbols.
		if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			if typ == elf.STT_FILE {
				st.files = append(st.files, fileSym{idx, s.Name})
			}
			continue
		}
		if int(s.Section) >= len(f.Sections) {
			continue // no such section: LLVM's getSection fails and the symbol is left out
		}
		switch typ {
		case elf.STT_NOTYPE, elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
		default:
			continue // STT_SECTION, STT_FILE, STT_TLS, ...
		}
		d := Symbol{Addr: s.Value, Size: s.Size, Name: s.Name}
		if elf.ST_BIND(s.Info) == elf.STB_LOCAL {
			d.localIdx = idx
		}
		st.syms = append(st.syms, d)
	}
	// Stable sort by (addr, size); of several symbols at one address keep
	// the last, i.e. the largest, and among equal sizes the one that comes
	// last in the table.
	sort.SliceStable(st.syms, func(i, j int) bool {
		a, b := st.syms[i], st.syms[j]
		if a.Addr != b.Addr {
			return a.Addr < b.Addr
		}
		return a.Size < b.Size
	})
	out := st.syms[:0]
	for i := 0; i < len(st.syms); {
		j := i
		for j+1 < len(st.syms) && st.syms[j+1].Addr == st.syms[i].Addr {
			j++
		}
		out = append(out, st.syms[j])
		i = j + 1
	}
	st.syms = out
	return st, nil
}

// Symbols returns the table's symbols in address order. The caller must
// not modify the slice.
func (st *SymbolTable) Symbols() []Symbol {
	if st == nil {
		return nil
	}
	return st.syms
}

// Lookup returns the symbol covering addr: the last symbol starting at or
// before addr, unless it has a non-zero size that ends at or before addr.
// A zero-size symbol covers everything up to the next symbol (and beyond
// the last one), as in LLVM.
func (st *SymbolTable) Lookup(addr uint64) (Symbol, bool) {
	if st == nil {
		return Symbol{}, false
	}
	i := sort.Search(len(st.syms), func(i int) bool { return st.syms[i].Addr > addr })
	if i == 0 {
		return Symbol{}, false
	}
	s := st.syms[i-1]
	if s.Size != 0 && s.Addr+s.Size <= addr {
		return Symbol{}, false
	}
	return s, true
}

// File returns the name of the STT_FILE symbol preceding s in the table
// when s is a local symbol, or "".
func (st *SymbolTable) File(s Symbol) string {
	if st == nil || s.localIdx == 0 {
		return ""
	}
	i := sort.Search(len(st.files), func(i int) bool { return st.files[i].idx > s.localIdx })
	if i == 0 {
		return ""
	}
	return st.files[i-1].name
}
