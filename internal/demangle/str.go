package demangle

import "unsafe"

// str is a string stored without pointers, so the node arena is invisible
// to the garbage collector: off >= 0 is a range of the mangled input,
// off < 0 names an entry of statics.
type str struct{ off, n int32 }

// statics holds the fixed strings nodes refer to. It is filled during
// package initialization only.
var statics []string

func lit(s string) str {
	statics = append(statics, s)
	return str{off: -int32(len(statics)), n: int32(len(s))}
}

// sub returns s, which must be a substring of the input, as a str.
func (p *parser) sub(s string) str {
	if len(s) == 0 {
		return str{}
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(p.in)))
	return str{off: int32(off), n: int32(len(s))}
}

// get returns the text of s.
func (w *printer) get(s str) string {
	if s.off < 0 {
		return statics[-s.off-1]
	}
	return w.p.in[s.off : s.off+s.n]
}

var (
	lAnonymousNamespace                  = lit("(anonymous namespace)")
	lAuto                                = lit("auto")
	lBfloat16                            = lit("std::bfloat16_t")
	lBlockLiteral                        = lit("'block-literal'")
	lChar16T                             = lit("char16_t")
	lChar32T                             = lit("char32_t")
	lChar8T                              = lit("char8_t")
	lComplex                             = lit(" complex")
	lCovariantReturnThunkTo              = lit("covariant return thunk to ")
	lDecimal128                          = lit("decimal128")
	lDecimal32                           = lit("decimal32")
	lDecimal64                           = lit("decimal64")
	lDecltype                            = lit("decltype")
	lDecltypeAuto                        = lit("decltype(auto)")
	lSpaceAuto                           = lit(" auto")
	lSpaceDecltypeAuto                   = lit(" decltype(auto)")
	lEnum                                = lit("enum")
	lGuardVariableFor                    = lit("guard variable for ")
	lHalf                                = lit("half")
	lImaginary                           = lit(" imaginary")
	lInvocationFunctionForBlockIn        = lit("invocation function for block in ")
	lInitializerForModule                = lit("initializer for module ")
	lNoexcept                            = lit("noexcept")
	lNoexcept2                           = lit("noexcept ")
	lNonVirtualThunkTo                   = lit("non-virtual thunk to ")
	lNullptr                             = lit("nullptr")
	lReferenceTemporaryFor               = lit("reference temporary for ")
	lSizeof                              = lit("sizeof... ")
	lStd                                 = lit("std")
	lStdBfloat16T                        = lit("std::bfloat16_t")
	lStdNullptrT                         = lit("std::nullptr_t")
	lStringLiteral                       = lit("string literal")
	lStruct                              = lit("struct")
	lTemplateParameterObjectFor          = lit("template parameter object for ")
	lThis                                = lit("this")
	lThreadLocalInitializationRoutineFor = lit("thread-local initialization routine for ")
	lThreadLocalWrapperRoutineFor        = lit("thread-local wrapper routine for ")
	lThrow                               = lit("throw")
	lTypeinfoFor                         = lit("typeinfo for ")
	lTypeinfoNameFor                     = lit("typeinfo name for ")
	lUnion                               = lit("union")
	lVirtualThunkTo                      = lit("virtual thunk to ")
	lVtableFor                           = lit("vtable for ")
	lVttFor                              = lit("VTT for ")
)

var builtinTypesS, intLitTypesS [26]str

func init() {
	for i := range builtinTypes {
		if builtinTypes[i] != "" {
			builtinTypesS[i] = lit(builtinTypes[i])
		}
	}
	for i := range intLitTypes {
		intLitTypesS[i] = lit(intLitTypes[i])
	}
	for i := range ops {
		opStrs[i].name = lit(ops[i].name)
		opStrs[i].sym = lit(ops[i].symbol())
	}
}
