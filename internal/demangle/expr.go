package demangle

import (
	"fmt"
	"math"
	"strconv"
)

type opKind uint8

const (
	opBinary opKind = iota
	opPrefix
	opPostfix
	opArray
	opMember
	opNew
	opDel
	opCall
	opCCast
	opConditional
	opNameOnly
	// Kinds below are not nameable as operator-function-ids.
	opNamedCast
	opOfIdOp
)

type opInfo struct {
	enc  string
	kind opKind
	flag bool
	prec prec
	name string
}

// ops is LLVM 22's operator table, sorted by encoding. LLVM 19 had no
// "cp" (a call whose callee is printed in parentheses) and did not
// accept "pm" as an operator name.
var ops = [...]opInfo{
	{"aN", opBinary, false, pAssign, "operator&="},
	{"aS", opBinary, false, pAssign, "operator="},
	{"aa", opBinary, false, pAndIf, "operator&&"},
	{"ad", opPrefix, false, pUnary, "operator&"},
	{"an", opBinary, false, pAnd, "operator&"},
	{"at", opOfIdOp, true, pUnary, "alignof "},
	{"aw", opNameOnly, false, pPrimary, "operator co_await"},
	{"az", opOfIdOp, false, pUnary, "alignof "},
	{"cc", opNamedCast, false, pPostfix, "const_cast"},
	{"cl", opCall, false, pPostfix, "operator()"},
	{"cm", opBinary, false, pComma, "operator,"},
	{"co", opPrefix, false, pUnary, "operator~"},
	{"cp", opCall, true, pPostfix, "operator()"},
	{"cv", opCCast, false, pCast, "operator"},
	{"dV", opBinary, false, pAssign, "operator/="},
	{"da", opDel, true, pUnary, "operator delete[]"},
	{"dc", opNamedCast, false, pPostfix, "dynamic_cast"},
	{"de", opPrefix, false, pUnary, "operator*"},
	{"dl", opDel, false, pUnary, "operator delete"},
	{"ds", opMember, false, pPtrMem, "operator.*"},
	{"dt", opMember, false, pPostfix, "operator."},
	{"dv", opBinary, false, pAssign, "operator/"},
	{"eO", opBinary, false, pAssign, "operator^="},
	{"eo", opBinary, false, pXor, "operator^"},
	{"eq", opBinary, false, pEquality, "operator=="},
	{"ge", opBinary, false, pRelational, "operator>="},
	{"gt", opBinary, false, pRelational, "operator>"},
	{"ix", opArray, false, pPostfix, "operator[]"},
	{"lS", opBinary, false, pAssign, "operator<<="},
	{"le", opBinary, false, pRelational, "operator<="},
	{"ls", opBinary, false, pShift, "operator<<"},
	{"lt", opBinary, false, pRelational, "operator<"},
	{"mI", opBinary, false, pAssign, "operator-="},
	{"mL", opBinary, false, pAssign, "operator*="},
	{"mi", opBinary, false, pAdditive, "operator-"},
	{"ml", opBinary, false, pMultiplicative, "operator*"},
	{"mm", opPostfix, false, pPostfix, "operator--"},
	{"na", opNew, true, pUnary, "operator new[]"},
	{"ne", opBinary, false, pEquality, "operator!="},
	{"ng", opPrefix, false, pUnary, "operator-"},
	{"nt", opPrefix, false, pUnary, "operator!"},
	{"nw", opNew, false, pUnary, "operator new"},
	{"oR", opBinary, false, pAssign, "operator|="},
	{"oo", opBinary, false, pOrIf, "operator||"},
	{"or", opBinary, false, pIor, "operator|"},
	{"pL", opBinary, false, pAssign, "operator+="},
	{"pl", opBinary, false, pAdditive, "operator+"},
	{"pm", opMember, true, pPtrMem, "operator->*"},
	{"pp", opPostfix, false, pPostfix, "operator++"},
	{"ps", opPrefix, false, pUnary, "operator+"},
	{"pt", opMember, true, pPostfix, "operator->"},
	{"qu", opConditional, false, pConditional, "operator?"},
	{"rM", opBinary, false, pAssign, "operator%="},
	{"rS", opBinary, false, pAssign, "operator>>="},
	{"rc", opNamedCast, false, pPostfix, "reinterpret_cast"},
	{"rm", opBinary, false, pMultiplicative, "operator%"},
	{"rs", opBinary, false, pShift, "operator>>"},
	{"sc", opNamedCast, false, pPostfix, "static_cast"},
	{"ss", opBinary, false, pSpaceship, "operator<=>"},
	{"st", opOfIdOp, true, pUnary, "sizeof "},
	{"sz", opOfIdOp, false, pUnary, "sizeof "},
	{"te", opOfIdOp, false, pPostfix, "typeid "},
	{"ti", opOfIdOp, true, pPostfix, "typeid "},
}

// symbol is the operator's name without "operator" (OperatorInfo::getSymbol).
func (o *opInfo) symbol() string {
	if o.kind < opNamedCast && len(o.name) > 8 && o.name[:8] == "operator" {
		s := o.name[8:]
		if s[0] == ' ' {
			s = s[1:]
		}
		return s
	}
	return o.name
}

// opStrs holds each operator's name and symbol() as static strings.
var opStrs [len(ops)]struct{ name, sym str }

func (p *parser) parseOperatorEncoding() (*opInfo, int) {
	if p.left() < 2 {
		return nil, 0
	}
	a, b := p.in[p.pos], p.in[p.pos+1]
	lo, hi := 0, len(ops)
	for lo < hi {
		m := (lo + hi) / 2
		e := ops[m].enc
		if e[0] < a || e[0] == a && e[1] < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ops) && ops[lo].enc[0] == a && ops[lo].enc[1] == b {
		p.pos += 2
		return &ops[lo], lo
	}
	return nil, 0
}

func (p *parser) parseOperatorName(st *nameState) int32 {
	if op, oi := p.parseOperatorEncoding(); op != nil {
		if op.kind == opCCast {
			oldTA, oldFwd := p.tryTA, p.permitFwd
			p.tryTA = false
			p.permitFwd = p.permitFwd || st != nil
			t := p.parseType()
			p.tryTA, p.permitFwd = oldTA, oldFwd
			if t < 0 {
				return -1
			}
			if st != nil {
				st.ctorDtorConv = true
			}
			return p.mk1(kConvOp, t)
		}
		if op.kind >= opNamedCast {
			return -1
		}
		if op.kind == opMember && !op.flag {
			return -1
		}
		return p.mkName(opStrs[oi].name)
	}
	if p.consumeStr("li") {
		sn := p.parseSourceName()
		if sn < 0 {
			return -1
		}
		return p.mk1(kLiteralOp, sn)
	}
	if p.consume('v') {
		if isDigit(p.look(0)) {
			p.pos++
			sn := p.parseSourceName()
			if sn < 0 {
				return -1
			}
			return p.mk1(kConvOp, sn)
		}
	}
	return -1
}

func (p *parser) parseExpr() int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseExpr1()
	p.depth--
	return r
}

// parseOperands parses the two operand expressions of a binary-like
// operator and makes n of them (n.a, n.b; no third operand).
func (p *parser) parseOperands(n node) int32 {
	a := p.parseExpr()
	if a < 0 {
		return -1
	}
	b := p.parseExpr()
	if b < 0 {
		return -1
	}
	n.a, n.b, n.c = a, b, -1
	return p.mk(n)
}

func (p *parser) parseExpr1() int32 {
	global := p.consumeStr("gs")
	if op, oi := p.parseOperatorEncoding(); op != nil {
		sym := opStrs[oi].sym
		switch op.kind {
		case opBinary:
			return p.parseOperands(node{k: kBinary, s: sym, prec: op.prec})
		case opPrefix:
			e := p.parseExpr()
			if e < 0 {
				return -1
			}
			return p.mk(node{k: kPrefix, a: e, b: -1, c: -1, s: sym, prec: op.prec})
		case opPostfix:
			if p.consume('_') {
				e := p.parseExpr()
				if e < 0 {
					return -1
				}
				return p.mk(node{k: kPrefix, a: e, b: -1, c: -1, s: sym, prec: op.prec})
			}
			e := p.parseExpr()
			if e < 0 {
				return -1
			}
			return p.mk(node{k: kPostfix, a: e, b: -1, c: -1, s: sym, prec: op.prec})
		case opArray:
			return p.parseOperands(node{k: kArraySub, prec: op.prec})
		case opMember:
			return p.parseOperands(node{k: kMember, s: sym, prec: op.prec})
		case opCall:
			callee := p.parseExpr()
			if callee < 0 {
				return -1
			}
			off, n, ok := p.parseListUntil('E', p.parseExpr)
			if !ok {
				return -1
			}
			fl := int32(0)
			if op.flag {
				fl = 1
			}
			return p.mk(node{k: kCall, a: callee, b: -1, c: -1, listOff: off, listN: n, flag: fl, prec: op.prec})
		case opCCast:
			oldTA := p.tryTA
			p.tryTA = false
			t := p.parseType()
			p.tryTA = oldTA
			if t < 0 {
				return -1
			}
			begin := len(p.names)
			many := p.consume('_')
			for !p.consume('E') {
				e := p.parseExpr()
				if e < 0 {
					return -1
				}
				p.names = append(p.names, e)
				if !many {
					break
				}
			}
			off, n := p.popList(begin)
			if !many && n != 1 {
				return -1
			}
			return p.mk(node{k: kConversion, a: t, b: -1, c: -1, listOff: off, listN: n, prec: op.prec})
		case opConditional:
			a := p.parseExpr()
			if a < 0 {
				return -1
			}
			b := p.parseExpr()
			if b < 0 {
				return -1
			}
			c := p.parseExpr()
			if c < 0 {
				return -1
			}
			return p.mk(node{k: kConditional, a: a, b: b, c: c, prec: op.prec})
		case opNamedCast:
			t, e, ok := p.parseTypeExpr()
			if !ok {
				return -1
			}
			return p.mk(node{k: kCast, s: sym, a: t, b: e, c: -1, prec: op.prec})
		case opOfIdOp:
			var a int32
			if op.flag {
				a = p.parseType()
			} else {
				a = p.parseExpr()
			}
			if a < 0 {
				return -1
			}
			return p.mk(node{k: kEnclosing, s: sym, a: a, b: -1, c: -1, prec: op.prec})
		case opNew:
			off, n, ok := p.parseListUntil('_', p.parseExpr)
			if !ok {
				return -1
			}
			t := p.parseType()
			if t < 0 {
				return -1
			}
			if !p.consumeStr("pi") && p.look(0) != 'E' {
				return -1
			}
			ioff, in, ok := p.parseListUntil('E', p.parseExpr)
			if !ok {
				return -1
			}
			inits := p.mk(node{k: kExprList, listOff: ioff, listN: in, a: -1, b: -1, c: -1})
			if inits < 0 {
				return -1
			}
			return p.mk(node{k: kNew, listOff: off, listN: n, a: t, b: inits, c: -1, flag: newFlags(global, op.flag), prec: op.prec})
		case opDel:
			e := p.parseExpr()
			if e < 0 {
				return -1
			}
			return p.mk(node{k: kDelete, a: e, b: -1, c: -1, flag: newFlags(global, op.flag), prec: op.prec})
		default:
			return -1 // co_await is not an expression operand
		}
	}
	if p.left() < 2 {
		return -1
	}
	switch p.look(0) {
	case 'L':
		return p.parseExprPrimary()
	case 'T':
		return p.parseTemplateParam()
	case 'f':
		if p.look(1) == 'p' || p.look(1) == 'L' && isDigit(p.look(2)) {
			return p.parseFunctionParam()
		}
		return p.parseFoldExpr()
	}
	if p.consumeStr("nx") {
		e := p.parseExpr()
		if e < 0 {
			return -1
		}
		return p.mk(node{k: kEnclosing, s: lNoexcept2, a: e, b: -1, c: -1, prec: pUnary})
	}
	if p.consumeStr("sp") {
		e := p.parseExpr()
		if e < 0 {
			return -1
		}
		return p.mk1(kPackExpansion, e)
	}
	if p.consumeStr("sZ") {
		if p.look(0) == 'T' {
			r := p.parseTemplateParam()
			if r < 0 {
				return -1
			}
			return p.mk1(kSizeofPack, r)
		}
		fp := p.parseFunctionParam()
		if fp < 0 {
			return -1
		}
		return p.mk(node{k: kEnclosing, s: lSizeof, a: fp, b: -1, c: -1})
	}
	if p.consumeStr("mc") {
		t, e, ok := p.parseTypeExpr()
		if !ok {
			return -1
		}
		p.parseNumber(true)
		if !p.consume('E') {
			return -1
		}
		return p.mk(node{k: kMemberConv, a: t, b: e, c: -1, prec: pUnary})
	}
	if p.consumeStr("sP") {
		off, n, ok := p.parseListUntil('E', p.parseTemplateArg)
		if !ok {
			return -1
		}
		pack := p.mk(node{k: kExprList, listOff: off, listN: n, a: -1, b: -1, c: -1})
		if pack < 0 {
			return -1
		}
		return p.mk(node{k: kEnclosing, s: lSizeof, a: pack, b: -1, c: -1})
	}
	if p.consumeStr("il") {
		return p.parseInitList(-1)
	}
	if p.consumeStr("tl") {
		t := p.parseType()
		if t < 0 {
			return -1
		}
		return p.parseInitList(t)
	}
	if p.consumeStr("tr") {
		return p.mkName(lThrow)
	}
	if p.consumeStr("tw") {
		e := p.parseExpr()
		if e < 0 {
			return -1
		}
		return p.mk1(kThrow, e)
	}
	if p.look(0) == 'r' && (p.look(1) == 'q' || p.look(1) == 'Q') {
		return p.parseRequiresExpr()
	}
	switch p.look(0) {
	case 'i', 'm', 'r', 's', 't', 'u':
		// so, u: not implemented. Anything else
		// starting with these letters is an unresolved name (sr, ...).
		if !(p.look(0) == 's' && p.look(1) == 'r') {
			return -1
		}
	}
	return p.parseUnresolvedName(global)
}

func (p *parser) parseFunctionParam() int32 {
	if p.consumeStr("fpT") {
		return p.mkName(lThis)
	}
	if p.consumeStr("fp") {
		p.parseCVQualifiers()
		num := p.parseNumber(false)
		if !p.consume('_') {
			return -1
		}
		return p.mk(node{k: kFuncParam, s: p.sub(num), a: -1, b: -1, c: -1})
	}
	if p.consumeStr("fL") {
		if p.parseNumber(false) == "" || !p.consume('p') {
			return -1
		}
		p.parseCVQualifiers()
		num := p.parseNumber(false)
		if !p.consume('_') {
			return -1
		}
		return p.mk(node{k: kFuncParam, s: p.sub(num), a: -1, b: -1, c: -1})
	}
	return -1
}

func (p *parser) parseIntegerLiteral(lit str) int32 {
	v := p.parseNumber(true)
	if v != "" && p.consume('E') {
		return p.mk(node{k: kIntLit, s: lit, s2: p.sub(v), a: -1, b: -1, c: -1})
	}
	return -1
}

var intLitTypes = [26]string{
	'a' - 'a': "signed char",
	'c' - 'a': "char",
	'h' - 'a': "unsigned char",
	'i' - 'a': "",
	'j' - 'a': "u",
	'l' - 'a': "l",
	'm' - 'a': "ul",
	'n' - 'a': "__int128",
	'o' - 'a': "unsigned __int128",
	's' - 'a': "short",
	't' - 'a': "unsigned short",
	'w' - 'a': "wchar_t",
	'x' - 'a': "ll",
	'y' - 'a': "ull",
}

func (p *parser) parseExprPrimary() int32 {
	if !p.consume('L') {
		return -1
	}
	switch c := p.look(0); c {
	case 'w', 'c', 'a', 'h', 's', 't', 'i', 'j', 'l', 'm', 'x', 'y', 'n', 'o':
		p.pos++
		return p.parseIntegerLiteral(intLitTypesS[c-'a'])
	case 'b':
		if p.consumeStr("b0E") {
			return p.mk(node{k: kBoolLit, a: -1, b: -1, c: -1})
		}
		if p.consumeStr("b1E") {
			return p.mk(node{k: kBoolLit, flag: 1, a: -1, b: -1, c: -1})
		}
		return -1
	case 'f', 'd':
		// float and double: the value's bytes in hex, most significant
		// first, printed as C's %a (and an 'f' for float). Long double
		// (e) is not implemented: its %a depends on the x87 format.
		c := p.look(0)
		p.pos++
		size := 8
		if c == 'd' {
			size = 16
		}
		if p.left() <= size {
			return -1
		}
		digits := p.in[p.pos : p.pos+size]
		for i := 0; i < size; i++ {
			if d := digits[i]; !isDigit(d) && !(d >= 'a' && d <= 'f') {
				return -1
			}
		}
		p.pos += size
		if !p.consume('E') {
			return -1
		}
		return p.mk(node{k: kFloatLit, s: p.sub(digits), flag: int32(c), a: -1, b: -1, c: -1})
	case 'e':
		return -1 // long double literals are not implemented
	case '_':
		if p.consumeStr("_Z") {
			r := p.parseEncoding()
			if r >= 0 && p.consume('E') {
				return r
			}
		}
		return -1
	case 'A':
		t := p.parseType()
		if t < 0 || !p.consume('E') {
			return -1
		}
		return p.mk1(kStringLit, t)
	case 'D':
		if p.consumeStr("Dn") {
			p.consume('0')
			if p.consume('E') {
				return p.mkName(lNullptr)
			}
		}
		return -1
	case 'T':
		return -1
	case 'U':
		if p.look(1) != 'l' {
			return -1
		}
		t := p.parseUnnamedTypeName(nil)
		if t < 0 || !p.consume('E') {
			return -1
		}
		return p.mk1(kLambdaExpr, t)
	default:
		t := p.parseType()
		if t < 0 {
			return -1
		}
		n := p.parseNumber(true)
		if n == "" || !p.consume('E') {
			return -1
		}
		return p.mk(node{k: kEnumLit, a: t, s: p.sub(n), b: -1, c: -1})
	}
}

func (p *parser) parseSimpleID() int32 {
	sn := p.parseSourceName()
	if sn < 0 {
		return -1
	}
	if p.look(0) == 'I' {
		ta := p.parseTemplateArgs(false)
		if ta < 0 {
			return -1
		}
		return p.mk(node{k: kNameTA, a: sn, b: ta, c: -1})
	}
	return sn
}

func (p *parser) parseUnresolvedType() int32 {
	if p.look(0) == 'T' {
		tp := p.parseTemplateParam()
		if tp < 0 {
			return -1
		}
		p.subs = append(p.subs, tp)
		return tp
	}
	if p.look(0) == 'D' {
		dt := p.parseDecltype()
		if dt < 0 {
			return -1
		}
		p.subs = append(p.subs, dt)
		return dt
	}
	return p.parseSubstitution()
}

func (p *parser) parseBaseUnresolvedName() int32 {
	if isDigit(p.look(0)) {
		return p.parseSimpleID()
	}
	if p.consumeStr("dn") {
		var r int32
		if isDigit(p.look(0)) {
			r = p.parseSimpleID()
		} else {
			r = p.parseUnresolvedType()
		}
		if r < 0 {
			return -1
		}
		return p.mk1(kDtorName, r)
	}
	p.consumeStr("on")
	op := p.parseOperatorName(nil)
	if op < 0 {
		return -1
	}
	if p.look(0) == 'I' {
		ta := p.parseTemplateArgs(false)
		if ta < 0 {
			return -1
		}
		return p.mk(node{k: kNameTA, a: op, b: ta, c: -1})
	}
	return op
}

func (p *parser) qualified(a, b int32) int32 {
	return p.mk(node{k: kQualified, a: a, b: b, c: -1})
}

func (p *parser) parseUnresolvedName(global bool) int32 {
	soFar := int32(-1)
	if p.consumeStr("srN") {
		soFar = p.parseUnresolvedType()
		if soFar < 0 {
			return -1
		}
		if p.look(0) == 'I' {
			ta := p.parseTemplateArgs(false)
			if ta < 0 {
				return -1
			}
			soFar = p.mk(node{k: kNameTA, a: soFar, b: ta, c: -1})
		}
		for !p.consume('E') {
			q := p.parseSimpleID()
			if q < 0 {
				return -1
			}
			soFar = p.qualified(soFar, q)
		}
		base := p.parseBaseUnresolvedName()
		if base < 0 {
			return -1
		}
		return p.qualified(soFar, base)
	}
	if !p.consumeStr("sr") {
		soFar = p.parseBaseUnresolvedName()
		if soFar < 0 {
			return -1
		}
		if global {
			soFar = p.mk1(kGlobalQualified, soFar)
		}
		return soFar
	}
	if isDigit(p.look(0)) {
		for {
			q := p.parseSimpleID()
			if q < 0 {
				return -1
			}
			switch {
			case soFar >= 0:
				soFar = p.qualified(soFar, q)
			case global:
				soFar = p.mk1(kGlobalQualified, q)
			default:
				soFar = q
			}
			if soFar < 0 {
				return -1
			}
			if p.consume('E') {
				break
			}
		}
	} else {
		soFar = p.parseUnresolvedType()
		if soFar < 0 {
			return -1
		}
		if p.look(0) == 'I' {
			ta := p.parseTemplateArgs(false)
			if ta < 0 {
				return -1
			}
			soFar = p.mk(node{k: kNameTA, a: soFar, b: ta, c: -1})
		}
	}
	base := p.parseBaseUnresolvedName()
	if base < 0 {
		return -1
	}
	return p.qualified(soFar, base)
}

// parseInitList parses the <braced-expression>s of il/tl up to E.
func (p *parser) parseInitList(ty int32) int32 {
	off, n, ok := p.parseListUntil('E', p.parseBracedExpr)
	if !ok {
		return -1
	}
	return p.mk(node{k: kInitList, a: ty, b: -1, c: -1, listOff: off, listN: n})
}

// parseBracedExpr parses an expression or a designated initializer:
// "di <field> <braced-expr>", "dx <index> <braced-expr>" or
// "dX <first> <last> <braced-expr>".
func (p *parser) parseBracedExpr() int32 {
	if !p.enter() {
		return -1
	}
	defer p.leave()
	if p.look(0) == 'd' {
		switch p.look(1) {
		case 'i', 'x':
			array := p.look(1) == 'x'
			p.pos += 2
			var a int32
			if array {
				a = p.parseExpr()
			} else {
				a = p.parseSourceName()
			}
			if a < 0 {
				return -1
			}
			init := p.parseBracedExpr()
			if init < 0 {
				return -1
			}
			return p.mk(node{k: kBraced, a: a, b: init, c: -1, flag: int32(b2i(array))})
		case 'X':
			p.pos += 2
			first := p.parseExpr()
			if first < 0 {
				return -1
			}
			last := p.parseExpr()
			if last < 0 {
				return -1
			}
			init := p.parseBracedExpr()
			if init < 0 {
				return -1
			}
			return p.mk(node{k: kBracedRange, a: first, b: last, c: init})
		}
	}
	return p.parseExpr()
}

// parseRequiresExpr parses "rq <requirement>+ E" or
// "rQ <bare-function-type> _ <requirement>+ E".
func (p *parser) parseRequiresExpr() int32 {
	params := int32(-1)
	if p.consumeStr("rQ") {
		off, n, ok := p.parseListUntil('_', p.parseType)
		if !ok {
			return -1
		}
		params = p.mk(node{k: kExprList, listOff: off, listN: n, a: -1, b: -1, c: -1})
		if params < 0 {
			return -1
		}
	} else if !p.consumeStr("rq") {
		return -1
	}
	off, n, ok := p.parseOneOrMoreUntil('E', p.parseRequirement)
	if !ok {
		return -1
	}
	return p.mk(node{k: kRequiresExpr, listOff: off, listN: n, a: params, b: -1, c: -1})
}

// parseRequirement parses "X <expression> [N] [R <type-constraint>]",
// "T <type>" or "Q <constraint-expression>".
func (p *parser) parseRequirement() int32 {
	switch {
	case p.consume('X'):
		e := p.parseExpr()
		if e < 0 {
			return -1
		}
		noexcept := int32(0)
		if p.consume('N') {
			noexcept = 1
		}
		tc := int32(-1)
		if p.consume('R') {
			if tc = p.parseName(nil); tc < 0 {
				return -1
			}
		}
		return p.mk(node{k: kExprReq, a: e, b: tc, c: -1, flag: noexcept})
	case p.consume('T'):
		t := p.parseType()
		if t < 0 {
			return -1
		}
		return p.mk1(kTypeReq, t)
	case p.consume('Q'):
		e := p.parseExpr()
		if e < 0 {
			return -1
		}
		return p.mk1(kNestedReq, e)
	}
	return -1
}

func newFlags(global, array bool) int32 {
	f := int32(0)
	if global {
		f |= 1
	}
	if array {
		f |= 2
	}
	return f
}

// parseFoldExpr parses "fL|fR <binary-operator-name> <expr> <expr>" and
// "fl|fr <binary-operator-name> <expr>".
func (p *parser) parseFoldExpr() int32 {
	if !p.consume('f') {
		return -1
	}
	var left, init bool
	switch p.look(0) {
	case 'L':
		left, init = true, true
	case 'R':
		init = true
	case 'l':
		left = true
	case 'r':
	default:
		return -1
	}
	p.pos++
	op, oi := p.parseOperatorEncoding()
	if op == nil || !(op.kind == opBinary || op.kind == opMember && op.name[len(op.name)-1] == '*') {
		return -1
	}
	pack := p.parseExpr()
	if pack < 0 {
		return -1
	}
	in := int32(-1)
	if init {
		if in = p.parseExpr(); in < 0 {
			return -1
		}
	}
	if left && in >= 0 {
		pack, in = in, pack
	}
	fl := int32(0)
	if left {
		fl = 1
	}
	return p.mk(node{k: kFold, a: pack, b: in, c: -1, s: opStrs[oi].sym, flag: fl})
}

// appendHexFloat appends C's printf("%a") of the float (size 8) or double
// (size 16) whose bytes digits spells in hex, most significant first, as
// glibc prints it: a float is promoted to double, subnormals keep a
// leading 0, and the exponent has no padding.
func appendHexFloat(b []byte, digits string) []byte {
	v, _ := strconv.ParseUint(digits, 16, 64)
	bits := v
	if len(digits) == 8 {
		bits = math.Float64bits(float64(math.Float32frombits(uint32(v))))
	}
	neg := bits>>63 != 0
	exp := int(bits >> 52 & 0x7ff)
	mant := bits & (1<<52 - 1)
	if neg {
		b = append(b, '-')
	}
	switch {
	case exp == 0x7ff && mant == 0:
		return append(b, "inf"...)
	case exp == 0x7ff:
		return append(b, "nan"...)
	case exp == 0 && mant == 0:
		return append(b, "0x0p+0"...)
	}
	lead, e := byte('1'), exp-1023
	if exp == 0 {
		lead, e = '0', -1022
	}
	b = append(b, '0', 'x', lead)
	if mant != 0 {
		frac := []byte(fmt.Sprintf("%013x", mant))
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		b = append(b, '.')
		b = append(b, frac...)
	}
	b = append(b, 'p')
	if e >= 0 {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, int64(e), 10)
}

// parseTypeExpr parses a type and then an expression.
func (p *parser) parseTypeExpr() (t, e int32, ok bool) {
	if t = p.parseType(); t < 0 {
		return -1, -1, false
	}
	if e = p.parseExpr(); e < 0 {
		return -1, -1, false
	}
	return t, e, true
}
