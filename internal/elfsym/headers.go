package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// elfLayout is what the ELF file header says about the header tables.
type elfLayout struct {
	order                  binary.ByteOrder
	is64                   bool
	phoff, phent, phnum    uint64
	shoff, shent, shnum    uint64
	shstrndx               uint64
	phnumAt, phoffAt       int // where e_phnum and e_phoff are in the file header
	shstrndxAt             int
	wantPhent, wantShent   uint64
	flagsAt, offAt, sizeAt int // within a section header
}

// readLayout reads the ELF file header and checks that the section
// header table lies in the file (debug/elf would read every claimed header
// first). The program header table is checked by phdrProblem.
func readLayout(path string, data []byte) (*elfLayout, error) {
	fail := func(off uint64, msg string) error {
		return newError(path, "ELF header", off, decode.ErrMalformed, "%s", msg)
	}
	if len(data) < 16 || string(data[:4]) != elf.ELFMAG {
		return nil, newError(path, "ELF header", 0, decode.ErrBadMagic, "not an ELF file (bad magic)")
	}
	l := &elfLayout{}
	switch elf.Data(data[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		l.order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		l.order = binary.BigEndian
	default:
		return nil, fail(elf.EI_DATA, fmt.Sprintf("unknown data encoding %d", data[elf.EI_DATA]))
	}
	o := l.order
	switch elf.Class(data[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		if len(data) < 64 {
			return nil, fail(0, fmt.Sprintf("truncated header: %d bytes, need 64", len(data)))
		}
		l.is64 = true
		l.phoff, l.shoff = o.Uint64(data[32:]), o.Uint64(data[40:])
		l.phent, l.phnum = uint64(o.Uint16(data[54:])), uint64(o.Uint16(data[56:]))
		l.shent, l.shnum = uint64(o.Uint16(data[58:])), uint64(o.Uint16(data[60:]))
		l.shstrndx = uint64(o.Uint16(data[62:]))
		l.phoffAt, l.phnumAt, l.shstrndxAt = 32, 56, 62
		l.wantPhent, l.wantShent = 56, 64
		l.flagsAt, l.offAt, l.sizeAt = 8, 24, 32
	case elf.ELFCLASS32:
		if len(data) < 52 {
			return nil, fail(0, fmt.Sprintf("truncated header: %d bytes, need 52", len(data)))
		}
		l.phoff, l.shoff = uint64(o.Uint32(data[28:])), uint64(o.Uint32(data[32:]))
		l.phent, l.phnum = uint64(o.Uint16(data[42:])), uint64(o.Uint16(data[44:]))
		l.shent, l.shnum = uint64(o.Uint16(data[46:])), uint64(o.Uint16(data[48:]))
		l.shstrndx = uint64(o.Uint16(data[50:]))
		l.phoffAt, l.phnumAt, l.shstrndxAt = 28, 44, 50
		l.wantPhent, l.wantShent = 32, 40
		l.flagsAt, l.offAt, l.sizeAt = 8, 16, 20
	default:
		return nil, fail(elf.EI_CLASS, fmt.Sprintf("unknown class %d", data[elf.EI_CLASS]))
	}
	size := uint64(len(data))
	if l.shnum > 0 && (l.shoff > size || l.shnum*l.shent > size-l.shoff) {
		return nil, fail(0, fmt.Sprintf("section headers (%d at %#x) exceed the file (%#x bytes)", l.shnum, l.shoff, size))
	}
	return l, nil
}

// phdrProblem says what makes the program header table unreadable, or "".
func (l *elfLayout) phdrProblem(data []byte) string {
	if l.phnum == 0 {
		return ""
	}
	size := uint64(len(data))
	if l.phoff > size || l.phnum*l.phent > size-l.phoff {
		return fmt.Sprintf("program headers (%d at %#x) exceed the file (%#x bytes)", l.phnum, l.phoff, size)
	}
	if l.phent < l.wantPhent {
		return fmt.Sprintf("program header entry size %d, need %d", l.phent, l.wantPhent)
	}
	if l.is64 {
		for i := range l.phnum {
			e := data[l.phoff+i*l.phent:]
			if off, fsz := l.order.Uint64(e[8:]), l.order.Uint64(e[32:]); off>>63 != 0 || fsz>>63 != 0 {
				return fmt.Sprintf("program header %d: offset %#x or size %#x past 2^63", i, off, fsz)
			}
		}
	}
	return ""
}

// rawSection is a section header's placement as the file states it
// (parseELF may have sanitized what debug/elf sees).
type rawSection struct {
	off, size uint64
	flags     elf.SectionFlag
}

func (l *elfLayout) section(data []byte, i int) (rawSection, bool) {
	at := l.shoff + uint64(i)*l.shent
	if l.shent < l.wantShent || at > uint64(len(data)) || l.wantShent > uint64(len(data))-at {
		return rawSection{}, false
	}
	h := data[at:]
	if l.is64 {
		return rawSection{l.order.Uint64(h[l.offAt:]), l.order.Uint64(h[l.sizeAt:]), elf.SectionFlag(l.order.Uint64(h[l.flagsAt:]))}, true
	}
	return rawSection{uint64(l.order.Uint32(h[l.offAt:])), uint64(l.order.Uint32(h[l.sizeAt:])), elf.SectionFlag(l.order.Uint32(h[l.flagsAt:]))}, true
}

// chdrSize is the size of the compression header of an SHF_COMPRESSED
// section: Elf64_Chdr (type, reserved, size, addralign) or Elf32_Chdr
// (type, size, addralign).
func (l *elfLayout) chdrSize() uint64 {
	if l.is64 {
		return 24
	}
	return 12
}

// overlay is the file with a few header fields rewritten, for debug/elf.
type overlay struct {
	data    []byte
	patches []patch
}

type patch struct {
	off int64
	b   []byte
}

func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(o.data)) {
		return 0, fmt.Errorf("read at %#x outside the file", off)
	}
	n := copy(p, o.data[off:])
	for _, pt := range o.patches {
		for i, c := range pt.b {
			if at := pt.off + int64(i) - off; at >= 0 && at < int64(n) {
				p[at] = c
			}
		}
	}
	if n < len(p) {
		return n, errShortRead
	}
	return n, nil
}

var errShortRead = fmt.Errorf("read past the end of the file")

// sanitize returns the header rewrites debug/elf needs to parse a file
// LLVM reads: a section whose offset or size is past 2^63 becomes empty,
// and one flagged SHF_COMPRESSED whose compression header is not in the
// file loses the flag (debug/elf would fail on either; the section, read
// from its raw header by sectionBytes, is then unusable); an unusable
// section name table (index out of range, not SHT_STRTAB, outside the
// file) goes, and a name outside the table becomes "" (LLVM then finds no
// section by those names: no DWARF, the symbol table answers); and, when
// dropPhdrs is set, the program header table goes.
func (l *elfLayout) sanitize(data []byte, dropPhdrs bool) []patch {
	var ps []patch
	put := func(at uint64, n int, v uint64) {
		b := make([]byte, n)
		switch {
		case n == 2:
			l.order.PutUint16(b, uint16(v))
		case n == 4:
			l.order.PutUint32(b, uint32(v))
		default:
			l.order.PutUint64(b, v)
		}
		ps = append(ps, patch{int64(at), b})
	}
	word := 4
	if l.is64 {
		word = 8
	}
	if dropPhdrs {
		put(uint64(l.phoffAt), word, 0)
		put(uint64(l.phnumAt), 2, 0)
	}
	size := uint64(len(data))
	if l.shnum > 0 && l.shstrndx == uint64(elf.SHN_XINDEX) {
		// The index is section 0's sh_link, as LLVM reads it (debug/elf
		// takes it from there only when e_shnum is 0 too); 0 there means no
		// section names.
		link := uint64(0)
		if at := l.shoff + 24; !l.is64 && at+4 <= size {
			link = uint64(l.order.Uint32(data[at:]))
		} else if at := l.shoff + 40; l.is64 && at+4 <= size {
			link = uint64(l.order.Uint32(data[at:]))
		}
		if link >= uint64(elf.SHN_LORESERVE) {
			link = uint64(elf.SHN_UNDEF)
		}
		l.shstrndx = link
		put(uint64(l.shstrndxAt), 2, link)
	}
	if l.shnum > 0 && l.shstrndx != uint64(elf.SHN_UNDEF) && l.shstrndx < uint64(elf.SHN_LORESERVE) {
		strtab, ok := l.section(data, int(l.shstrndx))
		at := l.shoff + l.shstrndx*l.shent
		ok = ok && l.shstrndx < l.shnum && strtab.off <= size && strtab.size <= size-strtab.off &&
			elf.SectionType(l.order.Uint32(data[at+4:])) == elf.SHT_STRTAB
		if !ok {
			put(uint64(l.shstrndxAt), 2, 0)
		} else {
			names := data[strtab.off : strtab.off+strtab.size]
			for i := range int(l.shnum) {
				at := l.shoff + uint64(i)*l.shent
				if at+4 > size {
					break
				}
				if n := uint64(l.order.Uint32(data[at:])); n >= uint64(len(names)) || bytes.IndexByte(names[n:], 0) < 0 {
					put(at, 4, 0)
				}
			}
		}
	}
	for i := range int(l.shnum) {
		s, ok := l.section(data, i)
		if !ok {
			break
		}
		at := l.shoff + uint64(i)*l.shent
		if s.off>>63 != 0 || s.size>>63 != 0 {
			put(at+uint64(l.offAt), word, 0)
			put(at+uint64(l.sizeAt), word, 0)
			continue
		}
		if s.flags&elf.SHF_COMPRESSED != 0 && (s.off > size || s.size > size-s.off || s.size < l.chdrSize()) {
			put(at+uint64(l.flagsAt), word, uint64(s.flags&^elf.SHF_COMPRESSED))
		}
	}
	return ps
}
