// Package x86inst finds x86-64 instruction boundaries as LLVM's MC
// disassembler (X86GenericDisassembler::getInstruction, LLVM 19 and 22)
// draws them, and classifies each instruction as llvm-profgen's
// ProfiledBinary does with its MCInstrDesc: call, return, branch (an
// indirect or conditional one) or direct unconditional branch.
//
// golang.org/x/arch/x86/x86asm decodes the instructions. It is right on
// most of them; this package closes the gaps where LLVM decodes otherwise,
// each found by comparing with llvm-objdump-19 and -22 on real binaries
// (testdata/x86corpus) and on crafted bytes (the tests of this package):
//
//   - LOCK (F0) as the first byte is an instruction of its own in LLVM
//     ("lock", one byte), followed by the instruction it prefixes; a LOCK
//     after another prefix stays a prefix. x86asm decodes "lock add" as one.
//   - XACQUIRE/XRELEASE: an F2 or F3 followed by F0, by XCHG (86, 87,
//     90–97, except F3 90, PAUSE) or, for F3, by MOV to memory (88, 89, C6,
//     C7) ends the instruction: the prefixes up to it are one instruction
//     ("xacquire"/"xrelease") and the rest is decoded after it.
//   - VEX, EVEX and XOP encoded instructions (AVX, AVX2, AVX-512, FMA4,
//     XOP) and REX2 (APX) are measured here by their encoding (map,
//     opcode, ModR/M, SIB, displacement and immediate), with legacy
//     prefixes before them as LLVM reads them. x86asm (v0.32) decodes
//     VEX/EVEX only without a prefix before them and only the opcodes of
//     its tables, and no XOP or REX2.
//   - JMP and Jcc with an operand-size prefix (66 E9, 66 0F 8x) take a
//     16-bit displacement in LLVM (CALL does not); x86asm reads 32 bits.
//   - A REX prefix followed by another prefix is ignored by LLVM 22, which
//     reads on; x86asm keeps it and decodes a shorter instruction.
//     (LLVM 19 instead ends the instruction after the byte that follows
//     such a REX; compilers never emit it, and this package follows 22.)
//   - Length: LLVM has no 15-byte limit (a NOP with 15 0x66 prefixes is 16
//     bytes); x86asm stops at 15.
//   - 0F 1E, which x86asm does not know: with F3, ENDBR64/ENDBR32 (FA/FB)
//     and RDSSPD/RDSSPQ (C8–CF, glibc's and libgcc's shadow-stack code).
//   - Undecodable bytes: x86asm answers a lone prefix before an invalid
//     opcode and decodes 0F FF (UD0), which LLVM rejects. LLVM's
//     undecodable bytes take as many bytes as its decoder read before it
//     failed (getInstruction's readerCursor − start: the prefixes, the
//     opcode bytes, and the ModR/M, SIB and displacement when the
//     opcode's table entry needs them), at least one, as llvm-profgen and
//     llvm-objdump advance; x86asm's failure is one byte.
//
// Where validity depends on details of LLVM's decoder tables that this
// package does not model (reserved VEX/EVEX/XOP opcodes, operand
// combinations LLVM rejects), the length is the encoding's and the bytes
// count as an instruction; such bytes occur only in data placed in code
// sections. On random bytes about 0.1% of LLVM 22's boundaries (0.3% of
// LLVM 19's) differ (TestCrafted). The whole real-code corpus
// (testdata/x86corpus/run.sh: 37 files, 143,651,665 instructions in 173
// sections) agrees with llvm-objdump-22 at every address; its last
// difference was data llvm-objdump decodes in a symbol-less stretch of
// libLLVM.so.19.1 (a mask-register VEX opcode in a context no instruction
// has, which LLVM rejects before its ModR/M: maskContextOK).
package x86inst

import (
	"slices"

	"golang.org/x/arch/x86/x86asm"
)

// Class is what llvm-profgen records about an instruction.
type Class uint8

const (
	// Other is any instruction that does not transfer control.
	Other Class = iota
	// Call is MCInstrDesc::isCall (CALL, far CALL).
	Call
	// Return is isReturn (RET, far RET, IRET).
	Return
	// Branch is a branch that is not a direct unconditional one:
	// conditional jumps, LOOP, JCXZ, XBEGIN, indirect and far jumps.
	Branch
	// UncondBranch is isUnconditionalBranch: a direct JMP.
	UncondBranch
)

// Inst is one decoded instruction.
type Inst struct {
	// Len is the number of bytes LLVM advances by: the instruction's
	// length, or for undecodable bytes the bytes LLVM's decoder read
	// before it failed (at least 1).
	Len int
	// OK is false for bytes LLVM cannot decode (llvm-objdump's
	// "<unknown>").
	OK    bool
	Class Class
	// Rel is the displacement of a direct branch or call (Class Call or
	// Branch or UncondBranch with HasRel): its target is address+Len+Rel.
	Rel    int64
	HasRel bool
	// Kind says how the instruction was decoded, for printing.
	Kind Kind
	// X86 is x86asm's decoding when Kind is KindX86.
	X86 x86asm.Inst
}

// Kind says which decoder measured an instruction.
type Kind uint8

const (
	KindInvalid  Kind = iota // undecodable bytes
	KindX86                  // x86asm decoded it with LLVM's length (X86)
	KindLock                 // a lone LOCK prefix
	KindXAcquire             // a lone F2 (XACQUIRE) with the prefixes before it
	KindXRelease             // a lone F3 (XRELEASE) with the prefixes before it
	KindEndbr64
	KindEndbr32
	KindVector // VEX, EVEX or XOP encoded
	KindREX2   // REX2 encoded
	KindLegacy // legacy encoding measured here (x86asm could not decode it)
)

// Decode decodes the instruction at the start of code, in 64-bit mode.
// code should extend to the end of the section (LLVM reads past symbol
// ends). An empty code is an undecodable 1-byte instruction.
func Decode(code []byte) Inst {
	if len(code) == 0 {
		return Inst{Len: 1}
	}
	p := scanPrefixes(code)
	switch {
	case p.split != 0:
		return Inst{Len: p.n + 1, OK: true, Kind: p.split}
	case p.fail:
		return Inst{Len: max(p.n, 1)}
	}
	i := p.n
	switch p.enc {
	case encVEX2, encVEX3, encEVEX, encXOP:
		return decodeVector(code, p)
	case encREX2:
		return decodeREX2(code, p)
	}
	if i+1 < len(code) && code[i] == 0x0f && code[i+1] == 0x1e {
		return decode0F1E(code, p)
	}
	return decodeLegacy(code, p)
}

// decodeLegacy decodes a legacy (non-VEX) instruction whose prefixes p
// describes with x86asm, or measures the bytes LLVM reads before failing.
func decodeLegacy(code []byte, p prefixes) Inst {
	if n, ok := rel16Len(code, p); ok {
		// LLVM reads a 16-bit displacement for JMP rel and Jcc rel
		// with an operand-size prefix (not for CALL); x86asm a 32-bit one.
		out := Inst{Len: n, OK: true, Kind: KindLegacy, HasRel: true}
		out.Class = Branch
		if code[p.n] == 0xe9 {
			out.Class = UncondBranch
		}
		out.Rel = int64(int16(uint16(code[n-2]) | uint16(code[n-1])<<8))
		return out
	}
	src := code
	if len(p.deadREX) > 0 {
		// x86asm keeps a REX that another prefix follows.
		src = make([]byte, 0, min(len(code), p.n+16))
		for i, b := range code[:min(len(code), p.n+16)] {
			if !slices.Contains(p.deadREX, i) {
				src = append(src, b)
			}
		}
	}
	// x86asm reads at most 15 bytes; LLVM takes any number of prefixes.
	// Redundant leading prefixes beyond that are skipped for x86asm.
	skip := max(p.n-len(p.deadREX)-11, 0)
	inst, err := x86asm.Decode(src[skip:], 64)
	skip += len(p.deadREX)
	// A lone prefix (x86asm's answer when what follows it is invalid)
	// is no instruction for LLVM.
	if err == nil && inst.Len > 0 && inst.Op != 0 && !(code[p.n] == 0x0f && p.n+1 < len(code) && code[p.n+1] == 0xff) {
		out := Inst{Len: inst.Len + skip, OK: true, Kind: KindX86, X86: inst}
		out.Class, out.Rel, out.HasRel = classify(&inst)
		return out
	}
	return Inst{Len: failLen(code, p)}
}

// decode0F1E decodes the 0F 1E opcode, which x86asm does not know: with
// an F3 prefix, ENDBR64/ENDBR32 (ModR/M FA/FB) and RDSSPD/RDSSPQ (ModR/M
// C8–CF); other ModR/M bytes are undecodable after the ModR/M, and
// without F3 after the opcode, as in LLVM.
func decode0F1E(code []byte, p prefixes) Inst {
	pos := p.n + 2
	if p.rep != 0xf3 {
		return Inst{Len: pos}
	}
	n, ok := modRMLen(code[pos:])
	if !ok {
		return Inst{Len: len(code)}
	}
	switch m := code[pos]; {
	case m == 0xfa:
		return Inst{Len: pos + 1, OK: true, Kind: KindEndbr64}
	case m == 0xfb:
		return Inst{Len: pos + 1, OK: true, Kind: KindEndbr32}
	case m&0xf8 == 0xc8:
		return Inst{Len: pos + 1, OK: true, Kind: KindLegacy}
	}
	return Inst{Len: pos + n}
}

// rel16Len returns the length of a JMP rel16 (66 E9) or Jcc rel16 (66 0F
// 8x) as LLVM decodes them, ok false for other instructions.
func rel16Len(code []byte, p prefixes) (int, bool) {
	if !p.opSize || p.rexW {
		return 0, false
	}
	i := p.n
	n := 0
	switch {
	case code[i] == 0xe9:
		n = i + 3
	case code[i] == 0x0f && i+1 < len(code) && code[i+1]&0xf0 == 0x80:
		n = i + 4
	default:
		return 0, false
	}
	return n, n <= len(code)
}

// classify maps an instruction to LLVM's MCInstrDesc flags as
// llvm-profgen uses them: isCall, isReturn, isBranch and
// isUnconditionalBranch (a branch that is a barrier and not indirect:
// only a direct JMP).
func classify(inst *x86asm.Inst) (c Class, rel int64, hasRel bool) {
	if r, ok := inst.Args[0].(x86asm.Rel); ok {
		rel, hasRel = int64(r), true
	}
	switch inst.Op {
	case x86asm.CALL, x86asm.LCALL:
		return Call, rel, hasRel
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ:
		return Return, 0, false
	case x86asm.JMP:
		if hasRel {
			return UncondBranch, rel, true
		}
		return Branch, 0, false
	case x86asm.LJMP:
		return Branch, 0, false
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE, x86asm.XBEGIN:
		return Branch, rel, hasRel
	}
	return Other, 0, false
}
