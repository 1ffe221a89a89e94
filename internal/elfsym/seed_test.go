package elfsym

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// Fuzz seeds: ELF images of a few hundred bytes, assembled here rather than
// compiled, so that the fuzzer's minimizer (quadratic in the input size)
// keeps up and every execution stays in the tens of microseconds. Each one
// holds a compile unit with a function f, into which an abstract function
// sq is inlined, a line program with a few rows, and optionally a symbol
// table, a build-id note and compressed sections.

// seedSection is one section of a seed image.
type seedSection struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	data  []byte
	link  uint32
	ent   uint64
}

// seedELF lays out an ELF header, the sections' contents, .shstrtab and the
// section header table, in that order, without program headers.
func seedELF(class elf.Class, secs []seedSection) []byte {
	le := binary.LittleEndian
	var shstr bytes.Buffer
	shstr.WriteByte(0)
	secs = append(secs, seedSection{name: ".shstrtab", typ: elf.SHT_STRTAB})
	names := make([]uint32, len(secs))
	for i, s := range secs {
		names[i] = uint32(shstr.Len())
		shstr.WriteString(s.name + "\x00")
	}
	secs[len(secs)-1].data = shstr.Bytes()

	ehsize, shentsize := 52, 40
	if class == elf.ELFCLASS64 {
		ehsize, shentsize = 64, 64
	}
	var body bytes.Buffer
	offs := make([]int, len(secs))
	for i, s := range secs {
		offs[i] = ehsize + body.Len()
		body.Write(s.data)
	}
	shoff := ehsize + body.Len()
	shnum := len(secs) + 1

	var out bytes.Buffer
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(class), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	if class == elf.ELFCLASS64 {
		binary.Write(&out, le, elf.Header64{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_X86_64),
			Version: uint32(elf.EV_CURRENT), Entry: 0x1000, Shoff: uint64(shoff), Ehsize: uint16(ehsize),
			Shentsize: uint16(shentsize), Shnum: uint16(shnum), Shstrndx: uint16(shnum - 1)})
	} else {
		binary.Write(&out, le, elf.Header32{Ident: ident, Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_386),
			Version: uint32(elf.EV_CURRENT), Entry: 0x1000, Shoff: uint32(shoff), Ehsize: uint16(ehsize),
			Shentsize: uint16(shentsize), Shnum: uint16(shnum), Shstrndx: uint16(shnum - 1)})
	}
	out.Write(body.Bytes())
	out.Write(make([]byte, shentsize)) // SHN_UNDEF
	for i, s := range secs {
		if class == elf.ELFCLASS64 {
			binary.Write(&out, le, elf.Section64{Name: names[i], Type: uint32(s.typ), Flags: uint64(s.flags),
				Off: uint64(offs[i]), Size: uint64(len(s.data)), Link: s.link, Addralign: 1, Entsize: s.ent})
		} else {
			binary.Write(&out, le, elf.Section32{Name: names[i], Type: uint32(s.typ), Flags: uint32(s.flags),
				Off: uint32(offs[i]), Size: uint32(len(s.data)), Link: s.link, Addralign: 1, Entsize: uint32(s.ent)})
		}
	}
	return out.Bytes()
}

// dw assembles DWARF bytes.
type dw struct {
	bytes.Buffer
	addr int // address size
}

func (w *dw) u8(v ...byte)  { w.Write(v) }
func (w *dw) u16(v uint16)  { w.Write(binary.LittleEndian.AppendUint16(nil, v)) }
func (w *dw) u32(v uint32)  { w.Write(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *dw) str(s string)  { w.WriteString(s + "\x00") }
func (w *dw) uleb(v uint64) { w.Write(appendUleb(nil, v)) }
func (w *dw) address(v uint64) {
	if w.addr == 8 {
		w.Write(binary.LittleEndian.AppendUint64(nil, v))
	} else {
		w.u32(uint32(v))
	}
}

func appendUleb(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// withLength prefixes body with its 32-bit unit length.
func withLength(body []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// seedDWARF returns .debug_info, .debug_abbrev, .debug_line and (version
// 5 only, where the unit's range comes from DW_AT_ranges) .debug_rnglists.
func seedDWARF(version uint16, addrSize int) (info, abbrev, line, rnglists []byte) {
	const lo, size = 0x1000, 0x20
	// Abbreviations: 1 unit, 2 f, 3 the inlined sq, 4 the abstract sq.
	var a dw
	a.u8(1, tagCompileUnit, 1, atName, formString, atStmtList, formSecOffset)
	if version >= 5 {
		a.u8(atRanges, formSecOffset)
	} else {
		a.u8(atLowPC, formAddr, atHighPC, formData4)
	}
	a.u8(atCompDir, formString, 0, 0)
	a.u8(2, tagSubprogram, 1, atName, formString, atLowPC, formAddr, atHighPC, formData4, atDeclFile, formData1, atDeclLine, formData1, 0, 0)
	a.u8(3, tagInlinedSubroutine, 0, atAbstractOrigin, formRef4, atLowPC, formAddr, atHighPC, formData4,
		atCallFile, formData1, atCallLine, formData1, atCallColumn, formData1, 0, 0)
	a.u8(4, tagSubprogram, 0, atName, formString, atDeclLine, formData1, 0x20 /* DW_AT_inline */, formData1, 0, 0)
	a.u8(0)
	abbrev = a.Bytes()

	i := dw{addr: addrSize}
	i.u16(version)
	if version >= 5 {
		i.u8(utCompile, byte(addrSize))
		i.u32(0)
	} else {
		i.u32(0)
		i.u8(byte(addrSize))
	}
	i.u8(1)
	i.str("a.c")
	i.u32(0) // stmt_list
	if version >= 5 {
		i.u32(12) // the list after the .debug_rnglists header
	} else {
		i.address(lo)
		i.u32(size)
	}
	i.str("/s")
	sq := 4 + i.Len() // unit offset of the abstract sq
	i.u8(4)
	i.str("sq")
	i.u8(1, 1)
	i.u8(2)
	i.str("f")
	i.address(lo)
	i.u32(size)
	i.u8(1, 3)
	i.u8(3)
	i.u32(uint32(sq))
	i.address(lo + 8)
	i.u32(4)
	i.u8(1, 5, 7)
	i.u8(0, 0)
	info = withLength(i.Bytes())

	// The line program: rows at lo (line 1), lo+8 (line 3, discriminator 3)
	// and lo+8 (line 2), ending at lo+size.
	var p dw
	p.addr = addrSize
	p.u8(0, byte(addrSize+1), lneSetAddress)
	p.address(lo)
	file := byte(1) // a.c: file indexes start at 1 before DWARF 5
	if version >= 5 {
		file = 0
	}
	p.u8(lnsSetFile, file, lnsSetColumn, 3, lnsCopy)
	p.u8(0, 2, lneSetDiscriminator, 3)
	p.u8(byte((2 + 5) + 14*8 + 13)) // special: line +2, address +8
	p.u8(lnsAdvanceLine, 0x7f, lnsCopy)
	p.u8(lnsAdvancePC, size-8, 0, 1, lneEndSequence)
	var h dw
	h.u8(1, 1, 1, 0xfb, 14, 13)              // min_inst, max_ops, is_stmt, line_base -5, line_range, opcode_base
	h.u8(0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1) // standard opcode lengths
	if version >= 5 {
		h.u8(1, lnctPath, formString, 1)
		h.str("/s")
		h.u8(2, lnctPath, formString, lnctDirectoryIndex, formData1, 2)
		h.str("a.c")
		h.u8(0)
		h.str("b.h")
		h.u8(0)
	} else {
		h.u8(0) // no include directories
		h.str("a.c")
		h.u8(0, 0, 0)
		h.str("b.h")
		h.u8(0, 0, 0, 0)
	}
	var l dw
	l.u16(version)
	if version >= 5 {
		l.u8(byte(addrSize), 0)
	}
	l.u32(uint32(h.Len()))
	l.Write(h.Bytes())
	l.Write(p.Bytes())
	line = withLength(l.Bytes())

	if version >= 5 {
		r := dw{addr: addrSize}
		r.u16(5)
		r.u8(byte(addrSize), 0)
		r.u32(0)
		r.u8(rleStartLength)
		r.address(lo)
		r.uleb(size)
		r.u8(rleEndOfList)
		rnglists = withLength(r.Bytes())
	}
	return info, abbrev, line, rnglists
}

// seedSymtab returns .symtab and .strtab with one function symbol f,
// defined in section 1 (an SHN_ABS symbol would be skipped, as LLVM skips it).
func seedSymtab(class elf.Class) (symtab, strtab []byte) {
	var b bytes.Buffer
	le := binary.LittleEndian
	info := elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC)
	if class == elf.ELFCLASS64 {
		binary.Write(&b, le, elf.Sym64{})
		binary.Write(&b, le, elf.Sym64{Name: 1, Info: info, Shndx: 1, Value: 0x1000, Size: 0x20})
	} else {
		binary.Write(&b, le, elf.Sym32{})
		binary.Write(&b, le, elf.Sym32{Name: 1, Info: info, Shndx: 1, Value: 0x1000, Size: 0x20})
	}
	return b.Bytes(), []byte("\x00f\x00")
}

func zlibBytes(data []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// fuzzSeeds returns the seed images: ELF32 DWARF 4 with a symbol table;
// ELF32 DWARF 5 with a range list and a build-id note; ELF64 DWARF 4 with
// a SHF_COMPRESSED .debug_info and a legacy .zdebug_line; and ELF32 with
// only a symbol table.
func fuzzSeeds(t testing.TB) [][]byte {
	dwarfSecs := func(version uint16, addrSize int) []seedSection {
		info, abbrev, line, rl := seedDWARF(version, addrSize)
		s := []seedSection{
			{name: ".debug_info", typ: elf.SHT_PROGBITS, data: info},
			{name: ".debug_abbrev", typ: elf.SHT_PROGBITS, data: abbrev},
			{name: ".debug_line", typ: elf.SHT_PROGBITS, data: line},
		}
		if rl != nil {
			s = append(s, seedSection{name: ".debug_rnglists", typ: elf.SHT_PROGBITS, data: rl})
		}
		return s
	}
	// symSecs returns .symtab and .strtab for section indexes sym, sym+1.
	symSecs := func(class elf.Class, sym uint32) []seedSection {
		symtab, strtab := seedSymtab(class)
		ent := uint64(16)
		if class == elf.ELFCLASS64 {
			ent = 24
		}
		return []seedSection{
			{name: ".symtab", typ: elf.SHT_SYMTAB, data: symtab, link: sym + 1, ent: ent},
			{name: ".strtab", typ: elf.SHT_STRTAB, data: strtab},
		}
	}
	var seeds [][]byte

	s := dwarfSecs(4, 4)
	seeds = append(seeds, seedELF(elf.ELFCLASS32, append(s, symSecs(elf.ELFCLASS32, uint32(len(s)+1))...)))

	s = dwarfSecs(5, 4)
	note := binary.LittleEndian.AppendUint32(nil, 4)
	note = binary.LittleEndian.AppendUint32(note, 4)
	note = binary.LittleEndian.AppendUint32(note, 3) // NT_GNU_BUILD_ID
	note = append(note, "GNU\x00\x01\x02\x03\x04"...)
	s = append(s, seedSection{name: ".note.gnu.build-id", typ: elf.SHT_NOTE, flags: elf.SHF_ALLOC, data: note})
	seeds = append(seeds, seedELF(elf.ELFCLASS32, s))

	s = dwarfSecs(4, 8)
	chdr := binary.LittleEndian.AppendUint32(nil, uint32(elf.COMPRESS_ZLIB))
	chdr = binary.LittleEndian.AppendUint32(chdr, 0)
	chdr = binary.LittleEndian.AppendUint64(chdr, uint64(len(s[0].data)))
	chdr = binary.LittleEndian.AppendUint64(chdr, 1)
	s[0].data, s[0].flags = append(chdr, zlibBytes(s[0].data)...), elf.SHF_COMPRESSED
	z := binary.BigEndian.AppendUint64([]byte("ZLIB"), uint64(len(s[2].data)))
	s[2].name, s[2].data = ".zdebug_line", append(z, zlibBytes(s[2].data)...)
	seeds = append(seeds, seedELF(elf.ELFCLASS64, s))

	seeds = append(seeds, seedELF(elf.ELFCLASS32, symSecs(elf.ELFCLASS32, 1)))

	// Each seed must open and symbolize f's address through the path it
	// is meant to cover.
	for i, data := range seeds {
		b, err := newFromBytes("seed", data, &Options{DWPFile: "/nonexistent.dwp", DebugFileDirectories: []string{"/nonexistent"}})
		if err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
		fr, err := b.Symbolize(0x1008)
		if err != nil || len(fr) == 0 || fr[len(fr)-1].Name != "f" {
			t.Fatalf("seed %d: Symbolize(0x1008) = %+v, %v; want frames ending in f", i, fr, err)
		}
		if i < 3 && (len(fr) != 2 || fr[0].Name != "sq" || fr[0].File != "/s/a.c" || fr[1].Line != 5) {
			t.Fatalf("seed %d: Symbolize(0x1008) = %+v; want sq inlined into f at line 5", i, fr)
		}
	}
	return seeds
}

func TestFuzzSeeds(t *testing.T) {
	for i, s := range fuzzSeeds(t) {
		t.Logf("seed %d: %d bytes", i, len(s))
	}
}
