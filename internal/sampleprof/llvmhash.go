package sampleprof

import (
	"encoding/binary"
	"math/bits"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// LLVM's hash_combine and hash_combine_range (llvm/ADT/Hashing.h, the
// CityHash-derived version that LLVM 16 to 22 ship), which key the profile
// map of context-sensitive profiles (and, in LLVM 16, of every profile):
// its iteration order shows in the FuncMetadata section and in the ties of
// show's hot-function list.
//
// The seed: Hashing.h uses a per-process seed only in builds with
// LLVM_ENABLE_ABI_BREAKING_CHECKS (assertions on); release builds such as
// Debian's and apt.llvm.org's use the constant below, so llvm-profdata
// writes the same bytes on every run (checked: TestSampleMergeConformance
// compares CS and LLVM 16 outputs byte for byte).

const (
	cityK0   = 0xc3a5c85c97cb3127
	cityK1   = 0xb492b66fbe98f273
	cityK2   = 0x9ae16a3b2f90404f
	cityK3   = 0xc949d7c7509e6557
	llvmSeed = 0xff51afd7ed558ccd // get_execution_seed() without ABI-breaking checks
)

func fetch64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }
func fetch32(s []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint32(s[i:])) }

func shiftMix(v uint64) uint64 { return v ^ v>>47 }

func hash16(lo, hi uint64) uint64 {
	const mul = 0x9ddfea08eb382d69
	a := (lo ^ hi) * mul
	a ^= a >> 47
	b := (hi ^ a) * mul
	b ^= b >> 47
	return b * mul
}

// hashShort is hash_short: inputs of at most 64 bytes.
func hashShort(s []byte, seed uint64) uint64 {
	n := len(s)
	ln := uint64(n)
	rot := bits.RotateLeft64
	switch {
	case n == 0:
		return cityK2 ^ seed
	case n <= 3:
		y := uint32(s[0]) + uint32(s[n>>1])<<8
		z := uint32(n) + uint32(s[n-1])<<2
		return shiftMix(uint64(y)*cityK2^uint64(z)*cityK3^seed) * cityK2
	case n <= 8:
		return hash16(ln+fetch32(s, 0)<<3, seed^fetch32(s, n-4))
	case n <= 16:
		a, b := fetch64(s, 0), fetch64(s, n-8)
		return hash16(seed^a, rot(b+ln, -int(ln%64))) ^ b
	case n <= 32:
		a := fetch64(s, 0) * cityK1
		b := fetch64(s, 8)
		c := fetch64(s, n-8) * cityK2
		d := fetch64(s, n-16) * cityK0
		return hash16(rot(a-b, -43)+rot(c^seed, -30)+d, a+rot(b^cityK3, -20)-c+ln+seed)
	}
	z := fetch64(s, 24)
	a := fetch64(s, 0) + (ln+fetch64(s, n-16))*cityK0
	b := rot(a+z, -52)
	c := rot(a, -37)
	a += fetch64(s, 8)
	c += rot(a, -7)
	a += fetch64(s, 16)
	vf := a + z
	vs := b + rot(a, -31) + c
	a = fetch64(s, 16) + fetch64(s, n-32)
	z = fetch64(s, n-8)
	b = rot(a+z, -52)
	c = rot(a, -37)
	a += fetch64(s, n-24)
	c += rot(a, -7)
	a += fetch64(s, n-16)
	wf := a + z
	ws := b + rot(a, -31) + c
	r := shiftMix((vf+ws)*cityK2 + (wf+vs)*cityK0)
	return shiftMix((seed^(r*cityK0))+vs) * cityK2
}

// cityState is hash_state: the state of inputs longer than 64 bytes.
type cityState struct{ h0, h1, h2, h3, h4, h5, h6 uint64 }

func newCityState(s []byte, seed uint64) cityState {
	st := cityState{0, seed, hash16(seed, cityK1), bits.RotateLeft64(seed^cityK1, -49), seed * cityK1, shiftMix(seed), 0}
	st.h6 = hash16(st.h4, st.h5)
	st.mix(s)
	return st
}

func mix32(s []byte, a, b *uint64) {
	*a += fetch64(s, 0)
	c := fetch64(s, 24)
	*b = bits.RotateLeft64(*b+*a+c, -21)
	d := *a
	*a += fetch64(s, 8) + fetch64(s, 16)
	*b += bits.RotateLeft64(*a, -44) + d
	*a += c
}

func (st *cityState) mix(s []byte) {
	rot := bits.RotateLeft64
	st.h0 = rot(st.h0+st.h1+st.h3+fetch64(s, 8), -37) * cityK1
	st.h1 = rot(st.h1+st.h4+fetch64(s, 48), -42) * cityK1
	st.h0 ^= st.h6
	st.h1 += st.h3 + fetch64(s, 40)
	st.h2 = rot(st.h2+st.h5, -33) * cityK1
	st.h3 = st.h4 * cityK1
	st.h4 = st.h0 + st.h5
	mix32(s, &st.h3, &st.h4)
	st.h5 = st.h2 + st.h6
	st.h6 = st.h1 + fetch64(s, 16)
	mix32(s[32:], &st.h5, &st.h6)
	st.h0, st.h2 = st.h2, st.h0
}

func (st *cityState) finalize(n uint64) uint64 {
	return hash16(hash16(st.h3, st.h5)+shiftMix(st.h1)*cityK1+st.h2,
		hash16(st.h4, st.h6)+shiftMix(n)*cityK1+st.h0)
}

// llvmHashBytes is hash_combine_range over a byte sequence, which is also
// what hash_combine and hash_combine_range of integers hash: the bytes of
// their values, one after the other.
func llvmHashBytes(s []byte) uint64 {
	n := len(s)
	if n <= 64 {
		return hashShort(s, llvmSeed)
	}
	st := newCityState(s, llvmSeed)
	end := n &^ 63
	for i := 64; i < end; i += 64 {
		st.mix(s[i:])
	}
	if n&63 != 0 {
		st.mix(s[n-64:])
	}
	return st.finalize(uint64(n))
}

// frameHash is hash_value of one context frame, per release: LLVM 16
// hash_combine(hash_value(name), line, discriminator); LLVM 19 and 22
// SampleContextFrame::getHashCode, MD5(name) + 33·(disc<<32 | line).
func frameHash(f Frame, llvm llvmrelease.Release, md5 func(FunctionID) uint64) uint64 {
	if !llvm.SampleMapHashesMD5() {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], llvmStringHash(f.Func))
		binary.LittleEndian.PutUint32(b[8:], f.Loc.Line)
		binary.LittleEndian.PutUint32(b[12:], f.Loc.Disc)
		return hashShort(b[:], llvmSeed)
	}
	loc := uint64(f.Loc.Disc)<<32 | uint64(f.Loc.Line)
	return md5(f.Func) + loc<<5 + loc
}

// llvmStringHash is LLVM 16's hash_value(StringRef) of a name (an MD5
// name is its decimal string there).
func llvmStringHash(f FunctionID) uint64 {
	var buf [64]byte
	return llvmHashBytes(f.appendTo(buf[:0]))
}

// contextHash is SampleContext::getHashCode of a top-level profile: the key
// of LLVM's profile map (SampleProfileMap) in release llvm. md5 is
// FunctionID.MD5, or a cache of it.
func contextHash(fs *FunctionSamples, llvm llvmrelease.Release, md5 func(FunctionID) uint64) uint64 {
	if fs.Context == nil {
		if !llvm.SampleMapHashesMD5() {
			return llvmStringHash(fs.Name)
		}
		return md5(fs.Name)
	}
	var small [8 * 8]byte
	b := small[:0]
	for _, f := range fs.Context {
		b = binary.LittleEndian.AppendUint64(b, frameHash(f, llvm, md5))
	}
	return llvmHashBytes(b)
}

// mapKey returns the key function of LLVM's profile map in release llvm
// (which remembers the MD5s of the names it has seen).
func mapKey(llvm llvmrelease.Release) func(*FunctionSamples) uint64 {
	md5 := md5Memo()
	return func(fs *FunctionSamples) uint64 { return contextHash(fs, llvm, md5) }
}

// md5Memo returns FunctionID.MD5 remembering the names it has hashed.
func md5Memo() func(FunctionID) uint64 {
	md5s := map[string]uint64{}
	return func(f FunctionID) uint64 {
		if f.isHash {
			return f.hash
		}
		h, ok := md5s[f.name]
		if !ok {
			h = llvmname.GUID(f.name)
			md5s[f.name] = h
		}
		return h
	}
}
