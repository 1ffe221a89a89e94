// Package demangle turns Itanium C++ ABI mangled names (_Z…) into the
// text LLVM 19's demangler (llvm-cxxfilt-19, llvm-symbolizer-19) prints
// for them, byte for byte. It follows llvm/Demangle/ItaniumDemangle.h of
// that release, including its quirks (which later releases fix in places,
// such as the substitution numbering of template-template parameters).
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
// The package covers what compilers emit for ordinary C++ (templates,
// packs, lambdas, ABI tags, clone suffixes, a practical subset of
// expressions). Whatever it does not implement (fold and new expressions,
// floating-point literals, C++20 modules and requires clauses, explicit
// lambda template parameters, Objective-C extensions, …) makes Demangle
// report ok=false, so callers can fall back to a more complete demangler;
// it never guesses.
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
