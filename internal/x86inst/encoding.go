package x86inst

import "golang.org/x/arch/x86/x86asm"

// enc is the encoding that follows the legacy prefixes.
type enc uint8

const (
	encLegacy enc = iota
	encVEX2       // C5: 2-byte VEX
	encVEX3       // C4: 3-byte VEX
	encEVEX       // 62: EVEX (always EVEX in 64-bit mode)
	encXOP        // 8F with ModR/M.reg ≠ 0 (else POP)
	encREX2       // D5: REX2 (APX)
)

// prefixes is what LLVM's readPrefixes found at the start of code.
type prefixes struct {
	// n is the number of legacy prefix and REX bytes; with split set,
	// the instruction is code[:n+1] (a lone LOCK, XACQUIRE or XRELEASE).
	n     int
	split Kind
	// fail: the bytes end inside the prefixes (LLVM reads n bytes).
	fail bool
	enc  enc
	// deadREX lists REX bytes followed by another prefix: LLVM 22
	// ignores them (LLVM 19 does not decode such bytes; see Decode).
	deadREX        []int
	opSize, adSize bool
	rexW           bool
	// rep is the last F2 or F3 prefix (0 if none).
	rep byte
}

// scanPrefixes reads the prefixes as LLVM's readPrefixes does in 64-bit
// mode: a LOCK as the very first byte, and an F2/F3 that makes an
// XACQUIRE/XRELEASE, end the instruction there.
func scanPrefixes(code []byte) prefixes {
	var p prefixes
	i := 0
	for ; i < len(code); i++ {
		b := code[i]
		if i == 0 && b == 0xf0 {
			return prefixes{split: KindLock}
		}
		if (b == 0xf2 || b == 0xf3) && i+1 < len(code) {
			nb := code[i+1]
			if nb == 0xf0 || nb&0xfe == 0x86 || nb&0xf8 == 0x90 {
				if !(b == 0xf3 && nb == 0x90) {
					return prefixes{n: i, split: xKind(b)}
				}
			}
			if b == 0xf3 && (nb == 0x88 || nb == 0x89 || nb == 0xc6 || nb == 0xc7) {
				return prefixes{n: i, split: KindXRelease}
			}
			if nb&0xf0 == 0x40 && i+2 >= len(code) {
				// A REX after F2/F3 must be followed by a byte.
				return prefixes{n: i + 2, fail: true}
			}
		}
		switch {
		case b == 0xf2 || b == 0xf3:
			p.rexW, p.rep = false, b
		case b == 0xf0 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65:
			p.rexW = false
		case b == 0x66:
			p.opSize, p.rexW = true, false
		case b == 0x67:
			p.adSize, p.rexW = true, false
		case b&0xf0 == 0x40:
			p.rexW = b&8 != 0
			if i+1 < len(code) && isPrefix(code[i+1]) {
				p.deadREX = append(p.deadREX, i)
			}
		default:
			p.n = i
			p.enc = vectorEnc(code, i)
			return p
		}
	}
	// Only prefixes: LLVM un-reads the last one and fails to read an
	// opcode.
	return prefixes{n: len(code) - 1, fail: true}
}

func isPrefix(b byte) bool {
	switch b {
	case 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65, 0x66, 0x67:
		return true
	}
	return b&0xf0 == 0x40
}

func xKind(b byte) Kind {
	if b == 0xf2 {
		return KindXAcquire
	}
	return KindXRelease
}

// vectorEnc says which encoding starts at code[i] after the prefixes.
func vectorEnc(code []byte, i int) enc {
	switch code[i] {
	case 0xc5:
		return encVEX2
	case 0xc4:
		return encVEX3
	case 0x62:
		return encEVEX
	case 0xd5:
		return encREX2
	case 0x8f:
		if i+1 < len(code) && code[i+1]&0x38 != 0 {
			return encXOP
		}
	}
	return encLegacy
}

// modRMLen returns the length of the ModR/M byte at code[0] with its SIB
// and displacement (32- and 64-bit addressing), or ok false if code ends
// before them.
func modRMLen(code []byte) (n int, ok bool) {
	if len(code) == 0 {
		return 0, false
	}
	m := code[0]
	mod, rm := m>>6, m&7
	n = 1
	if mod != 3 && rm == 4 {
		if len(code) < 2 {
			return 0, false
		}
		n++
		if mod == 0 && code[1]&7 == 5 {
			n += 4
		}
	}
	switch {
	case mod == 1:
		n++
	case mod == 2:
		n += 4
	case mod == 0 && rm == 5:
		n += 4
	}
	if n > len(code) {
		return 0, false
	}
	return n, true
}

// decodeVector measures a VEX, EVEX or XOP instruction: its prefix bytes,
// the opcode, the ModR/M (every opcode but VEX 0F 77, VZEROUPPER and
// VZEROALL, has one) with SIB and displacement, and the immediate of its
// map and opcode. On truncation or an opcode map LLVM does not know, the
// length is what LLVM had read.
func decodeVector(code []byte, p prefixes) Inst {
	i := p.n
	var vlen int
	var m byte
	switch p.enc {
	case encVEX2:
		vlen, m = 2, 1
	case encVEX3, encXOP:
		vlen = 3
	case encEVEX:
		vlen = 4
	}
	if i+vlen > len(code) {
		// LLVM reads the bytes that are there (it peeks the second).
		return Inst{Len: max(len(code), 1)}
	}
	switch p.enc {
	case encVEX3:
		m = code[i+1] & 0x1f
		if m < 1 || m > 3 {
			return Inst{Len: i + vlen}
		}
	case encXOP:
		m = code[i+1] & 0x1f
		if m < 8 || m > 10 {
			return Inst{Len: i + vlen}
		}
	case encEVEX:
		m = code[i+1] & 7
		if m != 1 && m != 2 && m != 3 && m != 4 && m != 5 && m != 6 {
			return Inst{Len: i + vlen}
		}
	}
	pos := i + vlen
	if pos >= len(code) {
		return Inst{Len: pos}
	}
	op := code[pos]
	pos++
	if p.enc == encVEX2 || p.enc == encVEX3 {
		if m == 1 && op == 0x77 {
			return Inst{Len: pos, OK: true, Kind: KindVector}
		}
	}
	if m == 1 && p.enc != encXOP && (hasBit(&noVector0F, op) || !maskContextOK(code, p, op)) {
		// No VEX or EVEX instruction has this 0F opcode (in this
		// context): LLVM fails after reading it.
		return Inst{Len: pos}
	}
	n, ok := modRMLen(code[pos:])
	if !ok {
		return Inst{Len: len(code)}
	}
	pos += n
	if m == 4 {
		// EVEX map 4 (APX promoted legacy instructions): not modelled;
		// LLVM reads the ModR/M of these (for the NF bit) before it
		// can tell, as far as measured.
		return Inst{Len: pos}
	}
	imm := 0
	switch {
	case m == 3 || m == 8:
		imm = 1
	case m == 1 && (op >= 0x70 && op <= 0x73 || op == 0xc2 || op >= 0xc4 && op <= 0xc6):
		imm = 1
	case m == 10 && p.enc == encXOP:
		imm = 4
	}
	if pos+imm > len(code) {
		return Inst{Len: len(code)}
	}
	return Inst{Len: pos + imm, OK: true, Kind: KindVector}
}

// decodeREX2 decodes a REX2-prefixed (D5) instruction by giving x86asm
// the same instruction with a REX prefix (and 0F for map 1).
func decodeREX2(code []byte, p prefixes) Inst {
	i := p.n
	if i+2 > len(code) {
		return Inst{Len: max(len(code), 1)}
	}
	r := code[i+1]
	syn := make([]byte, 0, len(code)+1)
	syn = append(syn, code[:i]...)
	syn = append(syn, 0x40|r&0x0f)
	extra := 1
	if r&0x80 != 0 {
		syn = append(syn, 0x0f)
		extra = 2
	}
	syn = append(syn, code[i+2:min(len(code), i+2+15)]...)
	inst, err := x86asm.Decode(syn, 64)
	if err != nil || inst.Len <= extra+i || inst.Op == 0 || r&0x80 != 0 && i+2 < len(code) && code[i+2] == 0xff {
		return Inst{Len: min(i+3, len(code))}
	}
	out := Inst{Len: inst.Len - extra + 2, OK: true, Kind: KindREX2}
	out.Class, out.Rel, out.HasRel = classify(&inst)
	return out
}

// oneByteModRM and twoByteModRM have a bit for every opcode of the
// one-byte and 0F maps whose LLVM decision reads a ModR/M byte (with its
// SIB and displacement) before it can tell an invalid encoding.
var oneByteModRM, twoByteModRM [4]uint64

func init() {
	set := func(t *[4]uint64, lo, hi int) {
		for o := lo; o <= hi; o++ {
			t[o>>6] |= 1 << (o & 63)
		}
	}
	for b := 0x00; b < 0x40; b += 8 {
		set(&oneByteModRM, b, b+3)
	}
	set(&oneByteModRM, 0x62, 0x63)
	set(&oneByteModRM, 0x69, 0x69)
	set(&oneByteModRM, 0x6b, 0x6b)
	set(&oneByteModRM, 0x80, 0x81)
	set(&oneByteModRM, 0x83, 0x8f)
	set(&oneByteModRM, 0xc0, 0xc1)
	set(&oneByteModRM, 0xc4, 0xc7)
	set(&oneByteModRM, 0xd0, 0xd3)
	set(&oneByteModRM, 0xd8, 0xdf)
	set(&oneByteModRM, 0xf6, 0xf7)
	set(&oneByteModRM, 0xfe, 0xff)

	set(&twoByteModRM, 0x00, 0x03)
	set(&twoByteModRM, 0x0d, 0x0d)
	set(&twoByteModRM, 0x10, 0x1d)
	set(&twoByteModRM, 0x1f, 0x23)
	set(&twoByteModRM, 0x28, 0x2f)
	set(&twoByteModRM, 0x40, 0x76)
	set(&twoByteModRM, 0x78, 0x79)
	set(&twoByteModRM, 0x7c, 0x7f)
	set(&twoByteModRM, 0x90, 0x9f)
	set(&twoByteModRM, 0xa3, 0xa5)
	set(&twoByteModRM, 0xab, 0xaf)
	set(&twoByteModRM, 0xb0, 0xc7)
	set(&twoByteModRM, 0xd0, 0xfe)
	twoByteModRM[0xff>>6] &^= 1 << (0xff & 63) // no UD0 in LLVM
}

// noVector0F has a bit for every opcode of the 0F map that no VEX or
// EVEX instruction uses (legacy-only opcodes and holes).
var noVector0F [4]uint64

func init() {
	for _, r := range [][2]int{{0x00, 0x0f}, {0x18, 0x27}, {0x30, 0x3f}, {0x40, 0x40}, {0x43, 0x43}, {0x48, 0x49}, {0x80, 0x8f}, {0x9a, 0xad}, {0xaf, 0xc1}, {0xc3, 0xc3}, {0xc7, 0xcf}, {0xff, 0xff}} {
		for o := r[0]; o <= r[1]; o++ {
			noVector0F[o>>6] |= 1 << (o & 63)
		}
	}
}

// maskContextOK reports whether a VEX 0F opcode of the mask-register
// instructions (KAND…KUNPCK at 41–4B, KMOV at 90–93, KORTEST and KTEST at
// 98–99) has a VEX.L and VEX.pp that one of them uses; EVEX has none of
// them. Other opcodes pass.
func maskContextOK(code []byte, p prefixes, op byte) bool {
	var l, pp byte
	switch p.enc {
	case encVEX2:
		b := code[p.n+1]
		l, pp = b>>2&1, b&3
	case encVEX3:
		b := code[p.n+2]
		l, pp = b>>2&1, b&3
	case encEVEX:
		return !(op >= 0x41 && op <= 0x4b || op >= 0x90 && op <= 0x93 || op == 0x98 || op == 0x99)
	default:
		return true
	}
	switch {
	case op == 0x44 || op == 0x90 || op == 0x91 || op == 0x98 || op == 0x99:
		return l == 0 && pp <= 1
	case op == 0x92 || op == 0x93:
		return l == 0 && pp != 2
	case op >= 0x41 && op <= 0x4b:
		return l == 1 && pp <= 1
	}
	return true
}

func hasBit(t *[4]uint64, op byte) bool { return t[op>>6]&(1<<(op&63)) != 0 }

// failLen is the number of bytes LLVM's decoder has read when it fails on
// the legacy instruction at code (prefixes p): the prefixes, the opcode
// bytes, and the ModR/M with its SIB and displacement when the opcode's
// table entry needs it to decide.
func failLen(code []byte, p prefixes) int {
	i := p.n
	if i >= len(code) {
		return max(len(code), 1)
	}
	op := code[i]
	pos := i + 1
	modrm := hasBit(&oneByteModRM, op)
	if op == 0x0f {
		if pos >= len(code) {
			return len(code)
		}
		op = code[pos]
		pos++
		switch op {
		case 0x38, 0x3a:
			if pos >= len(code) {
				return len(code)
			}
			pos++
			modrm = true
		case 0x0f:
			// 3DNow!: the ModR/M and displacement come before the
			// opcode byte.
			n, ok := modRMLen(code[pos:])
			if !ok || pos+n >= len(code) {
				return len(code)
			}
			return pos + n + 1
		default:
			modrm = hasBit(&twoByteModRM, op)
		}
	}
	if !modrm {
		return pos
	}
	n, ok := modRMLen(code[pos:])
	if !ok {
		return len(code)
	}
	return pos + n
}
