package main

import (
	"debug/elf"
	"errors"
	"sort"
)

// symtab is the ELF symbol table as llvm-symbolizer's
// SymbolizableObjectFile sees it. llvm-symbolizer consults it for the
// outermost frame whenever function names are printed as linkage names
// (the default): a symbol covering the address replaces that frame's name
// and start address, and an address with no DWARF function gets its name
// from here. Reproducing the exact selection rules is what keeps our output
// identical to LLVM's for stripped-DWARF, assembly and alias cases.
type symtab struct {
	syms []symDesc // sorted by (addr, size), one per address
	// files holds the STT_FILE symbols in table order; a local symbol's
	// source file name is the last STT_FILE before it.
	files []fileSym
}

type symDesc struct {
	addr, size uint64
	name       string
	localIdx   uint32 // symbol-table index of an STB_LOCAL symbol, else 0
}

type fileSym struct {
	idx  uint32
	name string
}

// loadSymtab reads .symtab, or .dynsym when there is no .symtab, the way
// LLVM's computeSymbolSizes does.
func loadSymtab(f *elf.File) (*symtab, error) {
	syms, err := f.Symbols()
	if errors.Is(err, elf.ErrNoSymbols) || (err == nil && len(syms) == 0) {
		syms, err = f.DynamicSymbols()
	}
	if errors.Is(err, elf.ErrNoSymbols) {
		return &symtab{}, nil
	}
	if err != nil {
		return nil, err
	}
	st := &symtab{}
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
		switch typ {
		case elf.STT_NOTYPE, elf.STT_FUNC, elf.STT_OBJECT, elf.STT_GNU_IFUNC:
		default:
			continue // STT_SECTION, STT_FILE, STT_TLS, ...
		}
		d := symDesc{addr: s.Value, size: s.Size, name: s.Name}
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
		if a.addr != b.addr {
			return a.addr < b.addr
		}
		return a.size < b.size
	})
	out := st.syms[:0]
	for i := 0; i < len(st.syms); {
		j := i
		for j+1 < len(st.syms) && st.syms[j+1].addr == st.syms[i].addr {
			j++
		}
		out = append(out, st.syms[j])
		i = j + 1
	}
	st.syms = out
	return st, nil
}

// lookup returns the symbol covering addr: the last symbol starting at or
// before addr, unless it has a non-zero size that ends at or before addr.
// A zero-size symbol covers everything up to the next symbol (and beyond
// the last one), as in LLVM.
func (st *symtab) lookup(addr uint64) (symDesc, bool) {
	if st == nil {
		return symDesc{}, false
	}
	i := sort.Search(len(st.syms), func(i int) bool { return st.syms[i].addr > addr })
	if i == 0 {
		return symDesc{}, false
	}
	s := st.syms[i-1]
	if s.size != 0 && s.addr+s.size <= addr {
		return symDesc{}, false
	}
	return s, true
}

// fileOf returns the STT_FILE name preceding a local symbol, or "".
func (st *symtab) fileOf(s symDesc) string {
	if s.localIdx == 0 {
		return ""
	}
	i := sort.Search(len(st.files), func(i int) bool { return st.files[i].idx > s.localIdx })
	if i == 0 {
		return ""
	}
	return st.files[i-1].name
}

// byName returns the first symbol (in address order) named name.
func (st *symtab) byName(name string) (symDesc, bool) {
	if st == nil {
		return symDesc{}, false
	}
	for _, s := range st.syms {
		if s.name == name {
			return s, true
		}
	}
	return symDesc{}, false
}
