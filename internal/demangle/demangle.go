// Package demangle turns Itanium C++ ABI mangled names (_Z…) into the
// text LLVM 22's demangler (llvm-cxxfilt-22, llvm-symbolizer-22) prints
// for them, byte for byte. It follows llvm/Demangle/ItaniumDemangle.h of
// that release; where LLVM 19 prints differently, it says so beside the
// code (19 numbers substitutions after a template-template parameter with
// arguments differently, has no "cp" call and no "pm" operator name, and
// leaves "__Z" names alone). On every name of the corpus test (the C++
// libraries and tools of LLVM 16, 19 and 22) the two releases agree.
// LLVM 16 does not: it leaves names with a "Tn" template parameter
// declaration or a leading dot mangled; no tool here prints names as 16.
//
// Name is what the tools print: LLVM's choice of which symbol names to
// demangle, and the name unchanged whenever LLVM's demangler gives up on
// it or it uses a construct this package does not implement. There is no
// fallback to a general-purpose demangler: such a demangler accepts names
// LLVM rejects, and the output must be LLVM's.
//
// It is built for speed: one pass over the mangled name builds a compact
// arena of nodes (a slice of structs linked by indices), substitutions and
// template parameters are slices of indices, and the result is printed
// into one byte slice with the spacing and parenthesization rules of
// LLVM's ItaniumDemangle.h. Parser state is pooled, so demangling a name
// allocates little more than the returned string.
//
// Printing copies the text of a context-free subtree printed before
// (a substitution naming a long type) instead of printing it again.
//
// The package covers what compilers emit for C++ up to C++23 (templates,
// packs, lambdas with template parameters, ABI tags, clone suffixes, block
// invocation functions, constraints and requires clauses, modules, explicit
// object parameters, fold, new and most other expressions). Whatever it
// does not implement (long double literals, the so and u expressions,
// string literals printed from their initializer lists, Objective-C
// extensions) makes Demangle report ok=false and Name
// return the name as it is; it never guesses. Nor does it demangle Rust
// (_R) or D (_D) names, which LLVM does.
//
// Tests compare Name with llvm-cxxfilt-22 (and llvm-symbolizer-22) on
// real names: every symbol name of clang 16/19/22, the libraries they load
// and their LLVM installations (testdata/corpus.sh: 310 ELF files, 445,365
// symbols, 151,885 distinct names, 78 of them mangled names LLVM leaves as
// they are; 0 differ; 44,761 function symbols of libstdc++ and libLLVM
// symbolized by llvm-symbolizer-22, 0 differ; CI compares a sample), the
// 393 names of a C++20 program and module built by clang++-22, and 30,000
// mutated names (400,000 by hand: LLVM demangles 89,240, so do we, none
// differently).
//
// Security: input is untrusted. Recursion depth and the number of nodes
// per name are bounded, every length is checked against the input, and
// output is capped at 1 MiB; bad input yields ok=false, never a panic.
package demangle

import "sync"

var pool = sync.Pool{New: func() any { return new(state) }}

type state struct {
	p       parser
	w       printer
	scratch []byte
}

// Demangle returns LLVM's rendering of the Itanium-mangled name and true,
// or "" and false when mangled is not a valid mangled name or uses a
// construct this package does not implement.
func Demangle(mangled string) (string, bool) {
	if len(mangled) < 2 || mangled[0] != '_' {
		return "", false
	}
	st := pool.Get().(*state)
	defer pool.Put(st)
	b, ok := st.demangle(mangled, st.scratch[:0])
	if !ok {
		return "", false
	}
	s := string(b)
	if cap(b) <= 1<<16 {
		st.scratch = b
	}
	return s, true
}

// Name returns what llvm-symbolizer-22 and llvm-cxxfilt-22 print for the
// symbol name on an ELF target (LLVM's nonMicrosoftDemangle): a name
// starting with one to four underscores and 'Z', after an optional leading
// dot that is printed as it is, demangled; any other name unchanged. A name
// LLVM cannot demangle is returned unchanged too, and so is one that uses a
// construct this package does not implement: Name never prints a rendering
// LLVM would not print. Every view that prints a demangled name (symbolize,
// the profile views) calls Name, or AppendName.
//
// LLVM also demangles Rust v0 (_R…) and D (_D…) names; Name returns those
// unchanged.
func Name(name string) string {
	if !itaniumEncoding(name) {
		return name
	}
	st := pool.Get().(*state)
	defer pool.Put(st)
	b, ok := st.name(name, st.scratch[:0])
	if !ok {
		return name
	}
	s := string(b)
	if cap(b) <= 1<<16 {
		st.scratch = b
	}
	return s
}

// AppendName appends Name(name) to dst.
func AppendName(dst []byte, name string) []byte {
	if !itaniumEncoding(name) {
		return append(dst, name...)
	}
	st := pool.Get().(*state)
	defer pool.Put(st)
	b, ok := st.name(name, dst)
	if !ok {
		return append(dst, name...)
	}
	return b
}

// itaniumEncoding is LLVM 22's isItaniumEncoding, after the leading dot
// nonMicrosoftDemangle sets aside: one to four underscores, then 'Z'.
// (LLVM 19 accepted "_Z" and "___Z" only: it prints "__Z3foov" and
// "____Z3foov_block_invoke" as they are.)
func itaniumEncoding(name string) bool {
	if len(name) > 0 && name[0] == '.' {
		name = name[1:]
	}
	i := 0
	for i < len(name) && i < 5 && name[i] == '_' {
		i++
	}
	return i >= 1 && i <= 4 && i < len(name) && name[i] == 'Z'
}

func (st *state) name(name string, dst []byte) ([]byte, bool) {
	start := len(dst)
	if name[0] == '.' {
		dst = append(dst, '.')
		name = name[1:]
	}
	b, ok := st.demangle(name, dst)
	if !ok {
		return dst[:start], false
	}
	return b, true
}

// AppendDemangle appends LLVM's rendering of mangled to dst; on failure it
// returns dst unchanged and false.
func AppendDemangle(dst []byte, mangled string) ([]byte, bool) {
	st := pool.Get().(*state)
	defer pool.Put(st)
	b, ok := st.demangle(mangled, dst)
	if !ok {
		return dst, false
	}
	return b, true
}

// maxInput bounds the mangled names accepted: offsets into the input are
// int32, and no real symbol comes close.
const maxInput = 1 << 24

func (st *state) demangle(mangled string, dst []byte) ([]byte, bool) {
	if len(mangled) > maxInput {
		return nil, false
	}
	p := &st.p
	*p = parser{
		in:          mangled,
		nodes:       p.nodes[:0],
		lists:       p.lists[:0],
		names:       p.names[:0],
		subs:        p.subs[:0],
		tparams:     p.tparams[:0],
		pool:        p.pool,
		tpStack:     p.tpStack[:0],
		fwdRefs:     p.fwdRefs[:0],
		tryTA:       true,
		lambdaLevel: -1,
	}
	p.outer = p.newList()
	root := p.parse()
	if root < 0 || p.fail {
		st.trim()
		return nil, false
	}
	w := &st.w
	printing := w.printing[:0]
	for range p.nodes {
		printing = append(printing, false)
	}
	memos := w.memo[:0]
	for range p.nodes {
		memos = append(memos, memo{})
	}
	*w = printer{p: p, buf: dst, gtIsGt: 1, packIdx: noPack, packMax: noPack, printing: printing, memo: memos}
	w.print(root)
	out := w.buf
	w.buf = nil
	st.trim()
	if w.fail {
		return nil, false
	}
	return out, true
}

// trim drops oversized buffers so the pool does not pin memory after a
// pathological name.
func (st *state) trim() {
	p := &st.p
	if cap(p.nodes) > 4096 {
		p.nodes = nil
		p.lists = nil
		st.w.printing = nil
		st.w.memo = nil
	}
	p.in = ""
	st.w.p = nil
}
