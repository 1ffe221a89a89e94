package demangle

import "strconv"

const noPack = ^uint32(0)

// maxOutput bounds the demangled text (1 MiB); longer results fail.
const maxOutput = 1 << 20

// printer is LLVM's OutputBuffer plus the node printing methods.
type printer struct {
	p      *parser
	buf    []byte
	gtIsGt int
	// inTA is set while template arguments (or a cast's type) print:
	// there LLVM 22 parenthesizes a '>' or '>>' expression only outside
	// any parentheses (gtIsGt == 0); everywhere else it always does
	// (LLVM 19 never did outside template arguments).
	inTA    bool
	packIdx uint32
	packMax uint32
	depth   int
	fail    bool
	// printing marks reference and forward-reference nodes being printed,
	// LLVM's cycle guard.
	printing []bool
	// memo caches, per node, whether its printed form is independent of
	// the printing context and where in buf it was last printed, so a
	// substitution that names a long type is copied instead of re-printed.
	memo []memo
	gen  uint32
}

type memo struct {
	gen        uint32
	start, end int32
}

func (w *printer) str(s string) { w.buf = append(w.buf, s...) }

func (w *printer) open()  { w.gtIsGt++; w.buf = append(w.buf, '(') }
func (w *printer) close() { w.gtIsGt--; w.buf = append(w.buf, ')') }

// angle prints "<", what body prints, ">" with LLVM's state for template
// arguments: a '>' there is not taken for the closing bracket.
func (w *printer) angle(body func()) {
	old, oldTA := w.gtIsGt, w.inTA
	w.gtIsGt, w.inTA = 0, true
	w.str("<")
	body()
	w.str(">")
	w.gtIsGt, w.inTA = old, oldTA
}

func (w *printer) back() byte {
	if len(w.buf) == 0 {
		return 0
	}
	return w.buf[len(w.buf)-1]
}

func (w *printer) n(i int32) *node { return &w.p.nodes[i] }

func (w *printer) enter() bool {
	w.depth++
	if w.depth > 4*maxDepth || len(w.buf) > maxOutput {
		w.fail = true
	}
	return !w.fail
}

// initPack is ParameterPack::initializePackExpansion.
func (w *printer) initPack(n *node) {
	if w.packMax == noPack {
		w.packMax = uint32(n.listN)
		w.packIdx = 0
	}
}

func (w *printer) packElem(n *node) int32 {
	w.initPack(n)
	if w.packIdx < uint32(n.listN) {
		return w.p.lists[n.listOff+int32(w.packIdx)]
	}
	return -1
}

func (w *printer) hasRHS(i int32) bool {
	n := w.n(i)
	if n.rhs != cUnknown {
		return n.rhs == cYes
	}
	return w.slow(i, 0)
}

func (w *printer) hasArray(i int32) bool {
	n := w.n(i)
	if n.arr != cUnknown {
		return n.arr == cYes
	}
	return w.slow(i, 1)
}

func (w *printer) hasFunction(i int32) bool {
	n := w.n(i)
	if n.fn != cUnknown {
		return n.fn == cYes
	}
	return w.slow(i, 2)
}

func (w *printer) ask(i int32, what int) bool {
	switch what {
	case 0:
		return w.hasRHS(i)
	case 1:
		return w.hasArray(i)
	}
	return w.hasFunction(i)
}

// slow answers a cache query for a node whose cache is Unknown.
func (w *printer) slow(i int32, what int) bool {
	if !w.enter() {
		return false
	}
	defer func() { w.depth-- }()
	n := w.n(i)
	switch n.k {
	case kPack:
		if e := w.packElem(n); e >= 0 {
			return w.ask(e, what)
		}
		return false
	case kFwdRef:
		if w.printing[i] || n.a < 0 {
			w.fail = true
			return false
		}
		w.printing[i] = true
		r := w.ask(n.a, what)
		w.printing[i] = false
		return r
	case kPointer, kRef:
		if what == 0 {
			return w.hasRHS(n.a)
		}
		return false
	case kPtrMem:
		if what == 0 {
			return w.hasRHS(n.b)
		}
		return false
	case kQual, kAbiTag:
		return w.ask(n.a, what)
	}
	return false
}

// syntaxNode is Node::getSyntaxNode.
func (w *printer) syntaxNode(i int32) int32 {
	for steps := 0; steps < 64; steps++ {
		n := w.n(i)
		switch n.k {
		case kPack:
			e := w.packElem(n)
			if e < 0 {
				return i
			}
			i = e
		case kFwdRef:
			if n.a < 0 {
				w.fail = true
				return i
			}
			i = n.a
		default:
			return i
		}
	}
	w.fail = true
	return i
}

func (w *printer) print(i int32) {
	if m := &w.memo[i]; m.end > 0 && m.gen == w.gen {
		if len(w.buf)+int(m.end-m.start) > maxOutput {
			w.fail = true
			return
		}
		w.buf = append(w.buf, w.buf[m.start:m.end]...)
		return
	}
	start := len(w.buf)
	w.printLeft(i)
	if w.n(i).rhs != cNo {
		w.printRight(i)
	}
	if len(w.buf)-start >= 16 && !w.n(i).impure {
		m := &w.memo[i]
		m.start, m.end, m.gen = int32(start), int32(len(w.buf)), w.gen
	}
}

func (w *printer) printAsOperand(i int32, p prec, strictlyWorse bool) {
	pr := w.n(i).prec
	paren := int(pr) >= int(p)+b2i(strictlyWorse)
	if paren {
		w.open()
	}
	w.print(i)
	if paren {
		w.close()
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (w *printer) printWithComma(l []int32) {
	first := true
	for _, e := range l {
		before := len(w.buf)
		if !first {
			w.str(", ")
		}
		after := len(w.buf)
		w.printAsOperand(e, pComma, false)
		if after == len(w.buf) {
			w.buf = w.buf[:before]
			continue
		}
		first = false
	}
}

func (w *printer) quals(q uint8) {
	if q&qConst != 0 {
		w.str(" const")
	}
	if q&qVolatile != 0 {
		w.str(" volatile")
	}
	if q&qRestrict != 0 {
		w.str(" restrict")
	}
}

func (w *printer) refQual(r uint8) {
	if r == refLValue {
		w.str(" &")
	} else if r == refRValue {
		w.str(" &&")
	}
}

// baseName is Node::getBaseName.
func (w *printer) baseName(i int32) string {
	for steps := 0; steps < 64; steps++ {
		n := w.n(i)
		switch n.k {
		case kName:
			return w.get(n.s)
		case kNameTA, kAbiTag:
			i = n.a
		case kNested, kFriend, kModuleEntity:
			i = n.b
		case kSpecialSub:
			s := ssBase[n.flag]
			if n.flag >= ssString {
				s = s[len("basic_"):]
			}
			return s
		case kExpandedSub:
			return ssBase[n.flag]
		default:
			return ""
		}
	}
	return ""
}

func (w *printer) printLeft(i int32) {
	if !w.enter() {
		return
	}
	w.printLeft1(i)
	w.depth--
}

func (w *printer) printLeft1(i int32) {
	n := w.n(i)
	switch n.k {
	case kName:
		w.str(w.get(n.s))
	case kNested, kQualified:
		w.print(n.a)
		w.str("::")
		w.print(n.b)
	case kLocal:
		w.print(n.a)
		w.str("::")
		w.print(n.b)
	case kNameTA:
		w.print(n.a)
		w.print(n.b)
	case kTemplateArgs:
		w.angle(func() { w.printWithComma(w.p.list(n)) })
	case kSpecialSub:
		w.str("std::")
		w.str(w.baseName(i))
	case kExpandedSub:
		w.str("std::")
		w.str(ssBase[n.flag])
		if n.flag >= ssString {
			w.str("<char, std::char_traits<char>")
			if n.flag == ssString {
				w.str(", std::allocator<char>")
			}
			w.str(">")
		}
	case kCtorDtor:
		if n.flag != 0 {
			w.str("~")
		}
		w.str(w.baseName(n.a))
	case kConvOp:
		w.str("operator ")
		w.print(n.a)
	case kLiteralOp:
		w.str("operator\"\" ")
		w.print(n.a)
	case kAbiTag:
		w.printLeft(n.a)
		w.str("[abi:")
		w.str(w.get(n.s))
		w.str("]")
	case kSpecial:
		w.str(w.get(n.s))
		w.print(n.a)
	case kCtorVtable:
		w.str("construction vtable for ")
		w.print(n.b)
		w.str("-in-")
		w.print(n.a)
	case kQual:
		w.printLeft(n.a)
		w.quals(n.quals)
	case kPointer:
		w.printLeft(n.a)
		if w.hasArray(n.a) {
			w.str(" ")
		}
		if w.hasArray(n.a) || w.hasFunction(n.a) {
			w.str("(")
		}
		w.str("*")
	case kRef:
		if w.printing[i] {
			return
		}
		w.printing[i] = true
		rk, t := w.collapse(i)
		if t >= 0 {
			w.printLeft(t)
			if w.hasArray(t) {
				w.str(" ")
			}
			if w.hasArray(t) || w.hasFunction(t) {
				w.str("(")
			}
			if rk == refLValue {
				w.str("&")
			} else {
				w.str("&&")
			}
		}
		w.printing[i] = false
	case kPtrMem:
		w.printLeft(n.b)
		if w.hasArray(n.b) || w.hasFunction(n.b) {
			w.str("(")
		} else {
			w.str(" ")
		}
		w.print(n.a)
		w.str("::*")
	case kArray:
		w.printLeft(n.a)
	case kFunctionType:
		w.printLeft(n.a)
		w.str(" ")
	case kEncoding:
		if n.a >= 0 {
			w.printLeft(n.a)
			if !w.hasRHS(n.a) {
				w.str(" ")
			}
		}
		w.print(n.b)
	case kPack:
		if e := w.packElem(n); e >= 0 {
			w.printLeft(e)
		}
	case kTemplateArgPack:
		w.printWithComma(w.p.list(n))
	case kPackExpansion:
		w.printPackExpansion(n.a)
	case kFwdRef:
		if w.printing[i] || n.a < 0 {
			w.fail = true
			return
		}
		w.printing[i] = true
		w.printLeft(n.a)
		w.printing[i] = false
	case kPostfixQual:
		w.printLeft(n.a)
		w.str(w.get(n.s))
	case kElaborated:
		w.str(w.get(n.s))
		w.str(" ")
		w.print(n.a)
	case kTransformed:
		w.str(w.get(n.s))
		w.str("(")
		w.print(n.a)
		w.str(")")
	case kBinaryFP:
		w.str("_Float")
		w.print(n.a)
	case kVendorExtQual:
		w.print(n.a)
		w.str(" ")
		w.str(w.get(n.s))
		if n.b >= 0 {
			w.print(n.b)
		}
	case kClosure:
		w.str("'lambda")
		w.str(w.get(n.s))
		w.str("'")
		if n.a >= 0 {
			w.angle(func() { w.print(n.a) })
		}
		if n.b >= 0 {
			w.str(" requires ")
			w.print(n.b)
			w.str(" ")
		}
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
		if n.c >= 0 {
			w.str(" requires ")
			w.print(n.c)
		}
	case kSynthParam:
		w.str([...]string{"$T", "$N", "$TT"}[n.flag])
		if n.s2.n > 0 {
			w.buf = strconv.AppendInt(w.buf, int64(n.s2.n-1), 10)
		}
	case kTypeParamDecl:
		w.str("typename ")
	case kConstrainedParamDecl:
		w.print(n.a)
		w.str(" ")
	case kNonTypeParamDecl:
		w.printLeft(n.b)
		if !w.hasRHS(n.b) {
			w.str(" ")
		}
	case kTemplateParamDecl:
		old := w.gtIsGt
		w.gtIsGt = 0
		w.str("template<")
		w.printWithComma(w.p.list(n))
		w.str("> typename ")
		w.gtIsGt = old
	case kParamPackDecl:
		w.printLeft(n.a)
		w.str("...")
	case kUnnamed:
		w.str("'unnamed")
		w.str(w.get(n.s))
		w.str("'")
	case kDotSuffix:
		w.print(n.a)
		w.str(" (")
		w.str(w.get(n.s))
		w.str(")")
	case kEnableIf:
		w.str(" [enable_if:")
		w.printWithComma(w.p.list(n))
		w.str("]")
	case kNoexceptSpec:
		w.str("noexcept")
		w.open()
		w.print(n.a)
		w.close()
	case kDynExcSpec:
		w.str("throw")
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
	case kIntLit:
		if n.s.n > 3 {
			w.open()
			w.str(w.get(n.s))
			w.close()
		}
		if w.get(n.s2)[0] == 'n' {
			w.str("-")
			w.str(w.get(n.s2)[1:])
		} else {
			w.str(w.get(n.s2))
		}
		if n.s.n <= 3 {
			w.str(w.get(n.s))
		}
	case kBoolLit:
		if n.flag != 0 {
			w.str("true")
		} else {
			w.str("false")
		}
	case kEnumLit:
		w.open()
		w.print(n.a)
		w.close()
		if w.get(n.s)[0] == 'n' {
			w.str("-")
			w.str(w.get(n.s)[1:])
		} else {
			w.str(w.get(n.s))
		}
	case kStringLit:
		w.str("\"<")
		w.print(n.a)
		w.str(">\"")
	case kLambdaExpr:
		w.str("[]")
		if w.n(n.a).k == kClosure {
			w.open()
			w.printWithComma(w.p.list(w.n(n.a)))
			w.close()
		}
		w.str("{...}")
	case kFuncParam:
		w.str("fp")
		w.str(w.get(n.s))
	case kBinary:
		parenAll := (w.gtIsGt == 0 || !w.inTA) && (w.get(n.s) == ">" || w.get(n.s) == ">>")
		if parenAll {
			w.open()
		}
		isAssign := n.prec == pAssign
		if isAssign {
			w.printAsOperand(n.a, pOrIf, false)
		} else {
			w.printAsOperand(n.a, n.prec, true)
		}
		if w.get(n.s) != "," {
			w.str(" ")
		}
		w.str(w.get(n.s))
		w.str(" ")
		w.printAsOperand(n.b, n.prec, isAssign)
		if parenAll {
			w.close()
		}
	case kPrefix:
		w.str(w.get(n.s))
		w.printAsOperand(n.a, n.prec, false)
	case kPostfix:
		w.printAsOperand(n.a, n.prec, true)
		w.str(w.get(n.s))
	case kArraySub:
		w.printAsOperand(n.a, n.prec, false)
		w.gtIsGt++
		w.str("[")
		w.printAsOperand(n.b, pDefault, false)
		w.gtIsGt--
		w.str("]")
	case kMember:
		w.printAsOperand(n.a, n.prec, true)
		w.str(w.get(n.s))
		w.printAsOperand(n.b, n.prec, false)
	case kCall:
		if n.flag != 0 {
			w.open()
		}
		w.print(n.a)
		if n.flag != 0 {
			w.close()
		}
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
	case kConversion:
		w.open()
		w.print(n.a)
		w.close()
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
	case kConditional:
		w.printAsOperand(n.a, n.prec, false)
		w.str(" ? ")
		w.printAsOperand(n.b, pDefault, false)
		w.str(" : ")
		w.printAsOperand(n.c, pAssign, true)
	case kCast:
		w.str(w.get(n.s))
		w.angle(func() { w.printLeft(n.a) })
		w.open()
		w.printAsOperand(n.b, pDefault, false)
		w.close()
	case kEnclosing:
		w.str(w.get(n.s))
		w.open()
		w.print(n.a)
		w.close()
	case kSizeofPack:
		w.str("sizeof...")
		w.open()
		w.printPackExpansion(n.a)
		w.close()
	case kGlobalQualified:
		w.str("::")
		w.print(n.a)
	case kDtorName:
		w.str("~")
		w.printLeft(n.a)
	case kInitList:
		if n.a >= 0 {
			if w.n(n.a).k == kArray {
				w.fail = true // printInitListAsType is not implemented
				return
			}
			w.print(n.a)
		}
		w.str("{")
		w.printWithComma(w.p.list(n))
		w.str("}")
	case kTPQualArg:
		w.print(n.a)
	case kFriend:
		w.print(n.a)
		w.str("::friend ")
		w.print(n.b)
	case kExprList:
		w.printWithComma(w.p.list(n))
	case kModuleName:
		if n.a >= 0 {
			w.print(n.a)
		}
		if n.a >= 0 || n.flag != 0 {
			if n.flag != 0 {
				w.str(":")
			} else {
				w.str(".")
			}
		}
		w.print(n.b)
	case kModuleEntity:
		w.print(n.b)
		w.str("@")
		w.print(n.a)
	case kBinding:
		w.gtIsGt++
		w.str("[")
		w.printWithComma(w.p.list(n))
		w.gtIsGt--
		w.str("]")
	case kMemberConv:
		w.open()
		w.print(n.a)
		w.close()
		w.open()
		w.print(n.b)
		w.close()
	case kExplicitObj:
		w.str("this ")
		w.print(n.a)
	case kBraced, kBracedRange:
		init := n.b
		if n.k == kBracedRange {
			w.str("[")
			w.print(n.a)
			w.str(" ... ")
			w.print(n.b)
			w.str("]")
			init = n.c
		} else if n.flag != 0 {
			w.str("[")
			w.print(n.a)
			w.str("]")
		} else {
			w.str(".")
			w.print(n.a)
		}
		if k := w.n(init).k; k != kBraced && k != kBracedRange {
			w.str(" = ")
		}
		w.print(init)
	case kFold:
		// '(' [(init|pack) op ] '...' [ op (pack|init)] ')'
		printPack := func() {
			w.open()
			w.printPackExpansion(n.a)
			w.close()
		}
		w.open()
		op := w.get(n.s)
		if n.flag == 0 || n.b >= 0 {
			if n.flag != 0 {
				w.printAsOperand(n.b, pCast, true)
			} else {
				printPack()
			}
			w.str(" ")
			w.str(op)
			w.str(" ")
		}
		w.str("...")
		if n.flag != 0 || n.b >= 0 {
			w.str(" ")
			w.str(op)
			w.str(" ")
			if n.flag != 0 {
				printPack()
			} else {
				w.printAsOperand(n.b, pCast, true)
			}
		}
		w.close()
	case kFloatLit:
		w.buf = appendHexFloat(w.buf, w.get(n.s))
		if n.flag == 'f' {
			w.str("f")
		}
	case kNew, kDelete:
		if n.flag&1 != 0 {
			w.str("::")
		}
		if n.k == kDelete {
			w.str("delete")
			if n.flag&2 != 0 {
				w.str("[]")
			}
			w.str(" ")
			w.print(n.a)
			break
		}
		w.str("new")
		if n.flag&2 != 0 {
			w.str("[]")
		}
		if n.listN > 0 {
			w.open()
			w.printWithComma(w.p.list(n))
			w.close()
		}
		w.str(" ")
		w.print(n.a)
		if w.n(n.b).listN > 0 {
			w.open()
			w.print(n.b)
			w.close()
		}
	case kRequiresExpr:
		w.str("requires")
		if n.a >= 0 && w.n(n.a).listN > 0 {
			w.str(" ")
			w.open()
			w.print(n.a)
			w.close()
		}
		w.str(" ")
		w.gtIsGt++
		w.str("{")
		for _, r := range w.p.list(n) {
			w.print(r)
		}
		w.str(" ")
		w.gtIsGt--
		w.str("}")
	case kExprReq:
		w.str(" ")
		braces := n.flag != 0 || n.b >= 0
		if braces {
			w.gtIsGt++
			w.str("{")
		}
		w.print(n.a)
		if braces {
			w.gtIsGt--
			w.str("}")
		}
		if n.flag != 0 {
			w.str(" noexcept")
		}
		if n.b >= 0 {
			w.str(" -> ")
			w.print(n.b)
		}
		w.str(";")
	case kTypeReq:
		w.str(" typename ")
		w.print(n.a)
		w.str(";")
	case kNestedReq:
		w.str(" requires ")
		w.print(n.a)
		w.str(";")
	case kThrow:
		w.str("throw ")
		w.print(n.a)
	default:
		w.fail = true
	}
}

func (w *printer) printRight(i int32) {
	if !w.enter() {
		return
	}
	w.printRight1(i)
	w.depth--
}

func (w *printer) printRight1(i int32) {
	n := w.n(i)
	switch n.k {
	case kQual, kAbiTag:
		if n.k == kQual {
			w.printRight(n.a)
		}
	case kPointer:
		if w.hasArray(n.a) || w.hasFunction(n.a) {
			w.str(")")
		}
		w.printRight(n.a)
	case kRef:
		if w.printing[i] {
			return
		}
		w.printing[i] = true
		_, t := w.collapse(i)
		if t >= 0 {
			if w.hasArray(t) || w.hasFunction(t) {
				w.str(")")
			}
			w.printRight(t)
		}
		w.printing[i] = false
	case kPtrMem:
		if w.hasArray(n.b) || w.hasFunction(n.b) {
			w.str(")")
		}
		w.printRight(n.b)
	case kArray:
		if w.back() != ']' {
			w.str(" ")
		}
		w.str("[")
		if n.b >= 0 {
			w.print(n.b)
		}
		w.str("]")
		w.printRight(n.a)
	case kFunctionType:
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
		w.printRight(n.a)
		w.quals(n.quals)
		w.refQual(n.ref)
		if n.c >= 0 {
			w.str(" ")
			w.print(n.c)
		}
	case kEncoding:
		w.open()
		w.printWithComma(w.p.list(n))
		w.close()
		if n.a >= 0 {
			w.printRight(n.a)
		}
		w.quals(n.quals)
		w.refQual(n.ref)
		if n.c >= 0 {
			w.print(n.c)
		}
		if n.flag > 0 {
			w.str(" requires ")
			w.print(n.flag - 1)
		}
	case kPack:
		if e := w.packElem(n); e >= 0 {
			w.printRight(e)
		}
	case kFwdRef:
		if w.printing[i] || n.a < 0 {
			w.fail = true
			return
		}
		w.printing[i] = true
		w.printRight(n.a)
		w.printing[i] = false
	case kTypeParamDecl:
		w.print(n.a)
	case kConstrainedParamDecl:
		w.print(n.b)
	case kNonTypeParamDecl:
		w.print(n.a)
		w.printRight(n.b)
	case kTemplateParamDecl:
		w.print(n.a)
		if n.b >= 0 {
			w.str(" requires ")
			w.print(n.b)
		}
	case kParamPackDecl:
		w.printRight(n.a)
	}
}

// collapse is ReferenceType::collapse: reference collapsing through
// packs and forward references.
func (w *printer) collapse(i int32) (uint8, int32) {
	n := w.n(i)
	rk, t := n.ref, n.a
	for steps := 0; ; steps++ {
		if steps > 64 {
			w.fail = true
			return rk, -1
		}
		sn := w.syntaxNode(t)
		s := w.n(sn)
		if s.k != kRef {
			break
		}
		t = s.a
		if s.ref < rk {
			rk = s.ref
		}
	}
	return rk, t
}

// printPackExpansion is ParameterPackExpansion::printLeft.
func (w *printer) printPackExpansion(child int32) {
	oldIdx, oldMax := w.packIdx, w.packMax
	w.packIdx, w.packMax = noPack, noPack
	start := len(w.buf)
	w.print(child)
	switch {
	case w.packMax == noPack:
		w.str("...")
	case w.packMax == 0:
		w.buf = w.buf[:start]
		w.gen++ // cached ranges past start are gone
	default:
		for k, e := uint32(1), w.packMax; k < e; k++ {
			w.str(", ")
			w.packIdx = k
			w.print(child)
		}
	}
	w.packIdx, w.packMax = oldIdx, oldMax
}
