package mutation

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A mutant is one corrupted copy of a fixture.
type mutant struct {
	id   string // kind@0xOFF[:arg]
	seed string // the generator seed of a random mutant, "-" for a structural one
	data []byte
}

// field is a length, count or offset of a format that an oversized value
// is written into: a little-endian integer of width bytes, a ULEB128
// ("uleb"), or a decimal or hexadecimal number of a text ("num", "hex",
// width = its length).
type field struct {
	off, width int
	kind       string // "u", "uleb", "num", "hex"
}

// layout is what a format's parser found in a fixture: offsets where a
// truncation or a flipped byte is interesting (header fields, section
// boundaries) and the fields to make oversized.
type layout struct {
	points []int
	fields []field
}

// mutantSet builds the mutants of one fixture. Structural mutants come
// from the layout: a truncation and a 0xff flip at every point, every
// oversized variant of every field. Random ones are truncations, flips and
// oversized fields at offsets drawn from a PCG seeded by the seed and the
// reader's name. The CI set takes a seeded sample of nStruct structural
// ones, the pinned ones (by id, see fromID) and nRandom random ones of
// seed 1; big takes every structural one, the pinned ones and seeds 1–4 of
// four times as many random ones. unknown lists pinned ids that name no
// mutant of data.
func mutantSet(reader string, data []byte, l layout, nStruct, nRandom int, pinned []string, big bool) (_ []mutant, unknown []string) {
	h := fnv.New64a()
	h.Write([]byte(reader))
	stream := h.Sum64()
	var structural []mutant
	seen := map[string]bool{}
	add := func(list *[]mutant, m mutant) {
		if m.data == nil || seen[m.id] {
			return
		}
		seen[m.id] = true
		*list = append(*list, m)
	}
	points := uniqueSorted(l.points, len(data))
	for _, p := range points {
		add(&structural, truncate(data, p, "-"))
	}
	for _, p := range points {
		if p < len(data) {
			add(&structural, flip(data, p, 0xff, "-"))
		}
	}
	for _, f := range l.fields {
		for _, m := range oversize(data, f, "-") {
			add(&structural, m)
		}
	}
	var out []mutant
	if big {
		out = structural
	} else {
		rng := rand.New(rand.NewPCG(0, stream))
		rng.Shuffle(len(structural), func(i, j int) { structural[i], structural[j] = structural[j], structural[i] })
		out = structural[:min(nStruct, len(structural))]
		sort.SliceStable(out, func(i, j int) bool { return out[i].id < out[j].id })
		seen = map[string]bool{}
		for _, m := range out {
			seen[m.id] = true
		}
	}
	for _, id := range pinned {
		m, ok := fromID(data, id, "pinned")
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		add(&out, m)
	}
	seeds, n := 1, nRandom
	if big {
		seeds, n = 4, 4*nRandom
	}
	for s := 1; s <= seeds; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), stream))
		seed := fmt.Sprint(s)
		for i := 0; i < n; i++ {
			switch i % 3 {
			case 0:
				add(&out, truncate(data, 1+rng.IntN(len(data)-1), seed))
			case 1:
				add(&out, flip(data, rng.IntN(len(data)), byte(1+rng.IntN(255)), seed))
			default:
				if len(l.fields) == 0 {
					continue
				}
				ms := oversize(data, l.fields[rng.IntN(len(l.fields))], seed)
				add(&out, ms[rng.IntN(len(ms))])
			}
		}
	}
	return out, unknown
}

func uniqueSorted(points []int, size int) []int {
	var out []int
	m := map[int]bool{}
	for _, p := range points {
		if p > 0 && p < size+1 && !m[p] && p != size {
			m[p] = true
			out = append(out, p)
		}
	}
	sort.Ints(out)
	return out
}

func truncate(data []byte, n int, seed string) mutant {
	return mutant{id: fmt.Sprintf("trunc@%#x", n), seed: seed, data: append([]byte(nil), data[:n]...)}
}

func flip(data []byte, off int, v byte, seed string) mutant {
	b := append([]byte(nil), data...)
	b[off] ^= v
	return mutant{id: fmt.Sprintf("flip@%#x:%02x", off, v), seed: seed, data: b}
}

// oversize returns the oversized variants of a field (ids u16@, u32@,
// u64@, uleb@, num@, hex@): for integers the
// largest value and 2^32 (past every 32-bit size), for a ULEB128 a
// ten-byte encoding of 2^63, for text numbers 2^64 and 2^32.
func oversize(data []byte, f field, seed string) []mutant {
	id := func(arg string) string { return fmt.Sprintf("u%d@%#x:%s", 8*f.width, f.off, arg) }
	splice := func(n int, repl []byte) []byte {
		b := append([]byte(nil), data[:f.off]...)
		b = append(b, repl...)
		return append(b, data[f.off+n:]...)
	}
	switch f.kind {
	case "u":
		if f.off+f.width > len(data) {
			return nil
		}
		var out []mutant
		for _, v := range []struct {
			arg string
			val uint64
		}{{"max", ^uint64(0)}, {"2^32", 1 << 32}} {
			if f.width < 8 && v.val >= 1<<(8*f.width) {
				v.val = 1<<(8*f.width) - 1
				if v.arg != "max" {
					continue
				}
			}
			b := append([]byte(nil), data...)
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], v.val)
			copy(b[f.off:f.off+f.width], w[:f.width])
			out = append(out, mutant{id: id(v.arg), seed: seed, data: b})
		}
		return out
	case "uleb":
		n := 0
		for f.off+n < len(data) && data[f.off+n]&0x80 != 0 {
			n++
		}
		if f.off+n >= len(data) {
			return nil
		}
		big := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}
		return []mutant{{id: fmt.Sprintf("uleb@%#x", f.off), seed: seed, data: splice(n+1, big)}}
	case "num":
		return []mutant{
			{id: fmt.Sprintf("num@%#x:u64", f.off), seed: seed, data: splice(f.width, []byte("18446744073709551616"))},
			{id: fmt.Sprintf("num@%#x:u32", f.off), seed: seed, data: splice(f.width, []byte("4294967296"))},
		}
	case "hex":
		return []mutant{{id: fmt.Sprintf("hex@%#x", f.off), seed: seed, data: splice(f.width, []byte("fffffffffffffffffff"))}}
	}
	return nil
}

var (
	decimalRE = regexp.MustCompile(`[0-9]+`)
	hexRE     = regexp.MustCompile(`(0x)?[0-9a-f]{5,}`)
)

// textLayout: every line start and the character after every ':' are
// points; every decimal number (re) is a field.
func textLayout(data []byte, re *regexp.Regexp, kind string) layout {
	var l layout
	for i, c := range data {
		if i == 0 || data[i-1] == '\n' {
			l.points = append(l.points, i)
		}
		if c == ':' {
			l.points = append(l.points, i+1)
		}
	}
	for _, m := range re.FindAllIndex(data, -1) {
		l.fields = append(l.fields, field{off: m[0], width: m[1] - m[0], kind: kind})
	}
	return l
}

// perfScriptLayout: line starts, the middle of the mmap line, and every
// address (the hexadecimal numbers) as a field.
func perfScriptLayout(data []byte) layout {
	l := textLayout(data, hexRE, "hex")
	if i := bytes.IndexByte(data, '\n'); i > 0 {
		l.points = append(l.points, i/2, i-1)
	}
	// Only the points of the first lines: the rest are alike.
	var pts []int
	for _, p := range l.points {
		if p < 600 {
			pts = append(pts, p)
		}
	}
	l.points = pts
	return l
}

// uleb reads a ULEB128 at off; it returns the value and the offset after it.
func uleb(data []byte, off int) (uint64, int) {
	var v uint64
	for shift := 0; off < len(data) && shift < 64; shift += 7 {
		b := data[off]
		off++
		v |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			break
		}
	}
	return v, off
}

// ulebStarts returns the offsets in [from, to) where a ULEB128 starts
// when the bytes are read as a run of ULEB128s (strings read as one-byte
// ones).
func ulebStarts(data []byte, from, to int) []int {
	var out []int
	for off := from; off < to && off < len(data); {
		out = append(out, off)
		_, off = uleb(data, off)
	}
	return out
}

// sampleBinaryLayout: the raw binary sample format: ULEB magic and version,
// then ULEB128 fields (and NUL-terminated names).
func sampleBinaryLayout(data []byte) layout {
	var l layout
	_, verOff := uleb(data, 0)
	_, bodyOff := uleb(data, verOff)
	l.points = append(l.points, 1, verOff, bodyOff)
	for _, off := range ulebStarts(data, bodyOff, len(data)) {
		l.points = append(l.points, off)
		l.fields = append(l.fields, field{off: off, kind: "uleb"})
	}
	return l
}

// extBinaryLayout: ULEB magic and version, u64 section count, then per
// section u64 type, flags, offset (from the file's start) and size; the
// section bodies are ULEB128s (a compressed one: ULEB uncompressed and
// compressed sizes, then a zlib stream ending in its Adler-32).
func extBinaryLayout(data []byte) layout {
	var l layout
	_, verOff := uleb(data, 0)
	_, tabOff := uleb(data, verOff)
	l.points = append(l.points, 1, verOff, tabOff, tabOff+4)
	l.fields = append(l.fields, field{off: tabOff, width: 8, kind: "u"})
	if tabOff+8 > len(data) {
		return l
	}
	n := int(binary.LittleEndian.Uint64(data[tabOff:]))
	for i := 0; i < n; i++ {
		e := tabOff + 8 + 32*i
		if e+32 > len(data) {
			break
		}
		l.points = append(l.points, e, e+8, e+16, e+24)
		l.fields = append(l.fields, field{off: e + 16, width: 8, kind: "u"}, field{off: e + 24, width: 8, kind: "u"})
		flags := binary.LittleEndian.Uint64(data[e+8:])
		off := int(binary.LittleEndian.Uint64(data[e+16:]))
		size := int(binary.LittleEndian.Uint64(data[e+24:]))
		if off+size > len(data) || size == 0 {
			continue
		}
		l.points = append(l.points, off, off+1, off+size-1)
		for _, s := range ulebStarts(data, off, min(off+size, off+6)) {
			l.fields = append(l.fields, field{off: s, kind: "uleb"})
		}
		if flags&1 != 0 { // compressed: the Adler-32 trailer and the deflate data
			l.points = append(l.points, off+size-4, off+size-2, off+size/2)
		} else {
			for _, s := range ulebStarts(data, off, off+size) {
				l.fields = append(l.fields, field{off: s, kind: "uleb"})
			}
		}
	}
	return l
}

// u64Header: n little-endian u64 fields from 0; the ones from 16 on are
// fields to oversize, all are points.
func u64Header(n int) layout {
	var l layout
	for i := 0; i < n; i++ {
		l.points = append(l.points, 8*i, 8*i+4)
		if i >= 2 {
			l.fields = append(l.fields, field{off: 8 * i, width: 8, kind: "u"})
		}
	}
	return l
}

// profrawLayout: the v10 header (16 u64 fields) and the section
// boundaries it describes.
func profrawLayout(data []byte) layout {
	l := u64Header(16)
	if len(data) < 128 {
		return l
	}
	h := func(i int) int { return int(binary.LittleEndian.Uint64(data[8*i:])) }
	binIDs, numData, padBefore, numCtr, padAfter, numBitmap, padBitmap, namesSize := h(2), h(3), h(4), h(5), h(6), h(7), h(8), h(9)
	off := 128
	add := func(size int) {
		l.points = append(l.points, off, off+size/2)
		off += size
	}
	add(binIDs)
	add(numData*64 + padBefore)
	add(numCtr*8 + padAfter)
	add(numBitmap + padBitmap)
	add(namesSize + (8-namesSize%8)%8)
	l.points = append(l.points, off)
	// The binary id's length, the first data record's counts.
	l.fields = append(l.fields, field{off: 128, width: 8, kind: "u"},
		field{off: 128 + binIDs + 48, width: 4, kind: "u"}, field{off: 128 + binIDs + 52, width: 2, kind: "u"})
	return l
}

// indexedLayout: the v12+ header (9 u64 fields), the summary's two counts,
// and every offset the header holds.
func indexedLayout(data []byte) layout {
	l := u64Header(11)
	for i := 4; i <= 8 && 8*i+8 <= len(data); i++ {
		if v := int(binary.LittleEndian.Uint64(data[8*i:])); v > 0 && v < len(data) {
			l.points = append(l.points, v, v+8)
			l.fields = append(l.fields, field{off: v, width: 8, kind: "u"})
		}
	}
	return l
}

// memprofLayout: magic, version, total size and the segment, MIB and stack
// offsets; each section starts with a u64 count; a stack entry is u64 id,
// u64 number of PCs, the PCs.
func memprofLayout(data []byte) layout {
	l := u64Header(6)
	if len(data) < 48 {
		return l
	}
	for i := 3; i <= 5; i++ {
		v := int(binary.LittleEndian.Uint64(data[8*i:]))
		if v > 0 && v+24 <= len(data) {
			l.points = append(l.points, v, v+8, v+16)
			l.fields = append(l.fields, field{off: v, width: 8, kind: "u"})
		}
	}
	if st := int(binary.LittleEndian.Uint64(data[40:])); st+24 <= len(data) {
		l.fields = append(l.fields, field{off: st + 16, width: 8, kind: "u"})
	}
	return l
}

// elfLayout: the ELF header's table fields, and for every DWARF section,
// .symtab and .strtab its header's offset and size (oversized), its first
// bytes (a unit length) and its start, middle and end.
func elfLayout(data []byte) layout {
	l := layout{points: []int{4, 16, 0x20, 0x28, 0x3c, 64}}
	for _, o := range []struct{ off, w int }{{0x20, 8}, {0x28, 8}, {0x36, 2}, {0x38, 2}, {0x3a, 2}, {0x3c, 2}, {0x3e, 2}} {
		l.fields = append(l.fields, field{off: o.off, width: o.w, kind: "u"})
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return l
	}
	shoff := int(binary.LittleEndian.Uint64(data[0x28:]))
	l.points = append(l.points, shoff, int(f.Sections[len(f.Sections)-1].Offset))
	for i, s := range f.Sections {
		switch s.Name {
		case ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str", ".debug_addr",
			".debug_str_offsets", ".debug_rnglists", ".debug_aranges", ".symtab", ".strtab", ".text":
		default:
			continue
		}
		hdr := shoff + 64*i
		off, size := int(s.Offset), int(s.Size)
		l.fields = append(l.fields, field{off: hdr + 0x18, width: 8, kind: "u"}, field{off: hdr + 0x20, width: 8, kind: "u"})
		if s.Name != ".text" && s.Name != ".strtab" && s.Name != ".debug_str" && s.Name != ".debug_line_str" {
			l.fields = append(l.fields, field{off: off, width: 4, kind: "u"})
		}
		l.points = append(l.points, off, off+4, off+size/2, off+size-1, off+size)
	}
	return l
}

// fromID rebuilds the mutant an id names (as mutantSet makes it), for the
// pinned mutants of a reader; ok is false if the id names no mutant of
// data.
func fromID(data []byte, id, seed string) (mutant, bool) {
	kind, rest, _ := strings.Cut(id, "@")
	offText, arg, _ := strings.Cut(rest, ":")
	off64, err := strconv.ParseUint(offText, 0, 32)
	off := int(off64)
	if err != nil || off >= len(data) {
		return mutant{}, false
	}
	var ms []mutant
	switch kind {
	case "trunc":
		ms = []mutant{truncate(data, off, seed)}
	case "flip":
		v, err := strconv.ParseUint(arg, 16, 8)
		if err != nil {
			return mutant{}, false
		}
		ms = []mutant{flip(data, off, byte(v), seed)}
	case "u16", "u32", "u64":
		w, _ := strconv.Atoi(kind[1:])
		ms = oversize(data, field{off: off, width: w / 8, kind: "u"}, seed)
	case "uleb":
		ms = oversize(data, field{off: off, kind: "uleb"}, seed)
	case "num", "hex":
		re := map[string]*regexp.Regexp{"num": decimalRE, "hex": hexRE}[kind]
		m := re.FindIndex(data[off:])
		if m == nil || m[0] != 0 {
			return mutant{}, false
		}
		ms = oversize(data, field{off: off, width: m[1], kind: kind}, seed)
	}
	for _, m := range ms {
		if m.id == id {
			return m, true
		}
	}
	return mutant{}, false
}
