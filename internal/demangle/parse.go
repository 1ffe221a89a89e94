package demangle

// Limits that keep hostile input cheap: recursion depth of the parser and
// printer, and the number of nodes per name.
const (
	maxDepth = 256
	maxNodes = 1 << 16
)

type nameState struct {
	ctorDtorConv bool
	endsWithTA   bool
	quals        uint8
	ref          uint8
	fwdRefsBegin int
	explicitObj  bool // N H: the first parameter is an explicit object parameter
}

type parser struct {
	in    string
	pos   int
	depth int
	fail  bool

	nodes []node
	lists []int32
	names []int32
	subs  []int32

	// tparams mirrors LLVM's TemplateParams: a stack of template parameter
	// lists, nil where a level has none. outer is OuterTemplateParams.
	tparams  []*[]int32
	outer    *[]int32
	pool     []*[]int32
	poolUsed int
	tpStack  []*[]int32

	fwdRefs     []int32
	tryTA       bool
	permitFwd   bool
	lambdaLevel int
	// incompleteTP is LLVM's HasIncompleteTemplateParameterTracking: set
	// while a type constraint is parsed.
	incompleteTP bool
	// synth counts the template parameter names invented so far, per kind
	// (LLVM's NumSyntheticTemplateParameters).
	synth [3]int
}

func (p *parser) look(i int) byte {
	if p.pos+i < len(p.in) {
		return p.in[p.pos+i]
	}
	return 0
}

func (p *parser) consume(c byte) bool {
	if p.pos < len(p.in) && p.in[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) consumeStr(s string) bool {
	if len(p.in)-p.pos >= len(s) && p.in[p.pos:p.pos+len(s)] == s {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *parser) left() int { return len(p.in) - p.pos }

// mk appends n to the arena and returns its index, or -1 when the arena
// is full.
func (p *parser) mk(n node) int32 {
	if len(p.nodes) >= maxNodes {
		p.fail = true
		return -1
	}
	n.impure = !pureKind[n.k] ||
		n.a >= 0 && p.nodes[n.a].impure ||
		n.b >= 0 && p.nodes[n.b].impure ||
		n.c >= 0 && p.nodes[n.c].impure
	if !n.impure {
		for _, e := range p.lists[n.listOff : n.listOff+n.listN] {
			if p.nodes[e].impure {
				n.impure = true
				break
			}
		}
	}
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

// pureKind marks the kinds whose printed text depends only on their
// children: no parameter packs or forward references (which depend on the
// pack index and cycle guards) and no expressions other than literals and
// names (whose parentheses depend on the enclosing template arguments).
// A node is pure when its kind is and all its children are; the printer
// copies the text of a pure node printed before instead of printing it
// again.
var pureKind = func() (t [numKinds]bool) {
	for _, k := range []kind{kName, kSpecialSub, kExpandedSub, kUnnamed, kIntLit, kBoolLit,
		kFuncParam, kNested, kLocal, kNameTA, kCtorDtor, kConvOp, kLiteralOp, kAbiTag,
		kSpecial, kCtorVtable, kQual, kPointer, kRef, kPtrMem, kArray, kFunctionType,
		kEncoding, kTemplateArgs, kTemplateArgPack, kClosure, kPostfixQual, kElaborated,
		kTransformed, kBinaryFP, kVendorExtQual, kDotSuffix, kEnumLit, kStringLit,
		kQualified, kGlobalQualified, kDtorName, kTPQualArg, kFriend, kSynthParam,
		kTypeParamDecl, kConstrainedParamDecl, kNonTypeParamDecl, kTemplateParamDecl, kParamPackDecl,
		kExplicitObj, kModuleName, kModuleEntity, kBinding} {
		t[k] = true
	}
	return t
}()

func (p *parser) mkName(s str) int32 {
	return p.mk(node{k: kName, s: s, a: -1, b: -1, c: -1})
}

func (p *parser) mk1(k kind, a int32) int32 {
	return p.mk(node{k: k, a: a, b: -1, c: -1})
}

// parseListUntil parses elements with parse up to the byte end, which it
// consumes, and returns them as a list.
func (p *parser) parseListUntil(end byte, parse func() int32) (off, n int32, ok bool) {
	begin := len(p.names)
	for !p.consume(end) {
		e := parse()
		if e < 0 {
			return 0, 0, false
		}
		p.names = append(p.names, e)
	}
	off, n = p.popList(begin)
	return off, n, true
}

// parseOneOrMoreUntil is parseListUntil for lists of at least one
// element: the end byte is looked for after each element.
func (p *parser) parseOneOrMoreUntil(end byte, parse func() int32) (off, n int32, ok bool) {
	begin := len(p.names)
	for {
		e := parse()
		if e < 0 {
			return 0, 0, false
		}
		p.names = append(p.names, e)
		if p.consume(end) {
			break
		}
	}
	off, n = p.popList(begin)
	return off, n, true
}

// popList moves names[begin:] into the lists slice and returns its range.
func (p *parser) popList(begin int) (int32, int32) {
	off := int32(len(p.lists))
	p.lists = append(p.lists, p.names[begin:]...)
	p.names = p.names[:begin]
	return off, int32(len(p.lists)) - off
}

func (p *parser) list(n *node) []int32 {
	return p.lists[n.listOff : n.listOff+n.listN]
}

// newList returns an empty template parameter list. Lists live as long as
// the parser state and are handed out again on the next name.
func (p *parser) newList() *[]int32 {
	if p.poolUsed < len(p.pool) {
		l := p.pool[p.poolUsed]
		p.poolUsed++
		*l = (*l)[:0]
		return l
	}
	l := new([]int32)
	p.pool = append(p.pool, l)
	p.poolUsed++
	return l
}

// parseNumber returns the digits (with a leading 'n' if allowNeg) at the
// cursor, or "" when there are none.
func (p *parser) parseNumber(allowNeg bool) string {
	start := p.pos
	if allowNeg {
		p.consume('n')
	}
	if p.pos >= len(p.in) || !isDigit(p.in[p.pos]) {
		return ""
	}
	for p.pos < len(p.in) && isDigit(p.in[p.pos]) {
		p.pos++
	}
	return p.in[start:p.pos]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// positive parses a decimal number; ok is false if there is none or it
// is absurdly large.
func (p *parser) positive() (int, bool) {
	if !isDigit(p.look(0)) {
		return 0, false
	}
	n := 0
	for isDigit(p.look(0)) {
		n = n*10 + int(p.in[p.pos]-'0')
		p.pos++
		if n > 1<<30 {
			return 0, false
		}
	}
	return n, true
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.fail = true
	}
	return !p.fail
}

func (p *parser) leave() { p.depth-- }

// parse is LLVM's AbstractManglingParser::parse, for the names LLVM's
// demanglers hand it: "_Z" or "__Z" and an encoding, or "___Z" or "____Z"
// and the encoding of a block invocation function.
func (p *parser) parse() int32 {
	if p.consumeStr("___Z") || p.consumeStr("____Z") {
		return p.parseBlockInvoke()
	}
	if !p.consumeStr("_Z") && !p.consumeStr("__Z") {
		return -1
	}
	enc := p.parseEncoding()
	if enc < 0 {
		return -1
	}
	if p.look(0) == '.' {
		enc = p.mk(node{k: kDotSuffix, a: enc, b: -1, c: -1, s: p.sub(p.in[p.pos:])})
		p.pos = len(p.in)
	}
	if p.left() != 0 {
		return -1
	}
	return enc
}

// parseBlockInvoke reads "<encoding> _block_invoke [_<number> | <number>]
// [.<anything>]": the function a block literal was written in. Neither the
// number nor the dot suffix is printed.
func (p *parser) parseBlockInvoke() int32 {
	enc := p.parseEncoding()
	if enc < 0 || !p.consumeStr("_block_invoke") {
		return -1
	}
	needNum := p.consume('_')
	if p.parseNumber(false) == "" && needNum {
		return -1
	}
	if p.look(0) == '.' {
		p.pos = len(p.in)
	}
	if p.left() != 0 {
		return -1
	}
	return p.mk(node{k: kSpecial, s: lInvocationFunctionForBlockIn, a: enc, b: -1, c: -1})
}

type savedTParams struct {
	stackLen int
	outer    *[]int32
}

// saveTParams is LLVM's SaveTemplateParams: the template parameters of an
// encoding are unrelated to those of the enclosing context.
func (p *parser) saveTParams() savedTParams {
	s := savedTParams{stackLen: len(p.tpStack), outer: p.outer}
	p.tpStack = append(p.tpStack, p.tparams...)
	p.tparams = p.tparams[:0]
	p.outer = p.newList()
	return s
}

func (p *parser) restoreTParams(s savedTParams) {
	p.tparams = append(p.tparams[:0], p.tpStack[s.stackLen:]...)
	p.tpStack = p.tpStack[:s.stackLen]
	p.outer = s.outer
}

func (p *parser) isEndOfEncoding() bool {
	c := p.look(0)
	return p.left() == 0 || c == 'E' || c == '.' || c == '_'
}

func (p *parser) parseEncoding() int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseEncoding1()
	p.depth--
	return r
}

func (p *parser) parseEncoding1() int32 {
	saved := p.saveTParams()
	defer p.restoreTParams(saved)

	if c := p.look(0); c == 'G' || c == 'T' {
		return p.parseSpecialName()
	}
	st := nameState{fwdRefsBegin: len(p.fwdRefs)}
	name := p.parseName(&st)
	if name < 0 {
		return -1
	}
	if !p.resolveFwdRefs(&st) {
		return -1
	}
	if p.isEndOfEncoding() {
		return name
	}
	attrs := int32(-1)
	if p.consumeStr("Ua9enable_ifI") {
		off, n, ok := p.parseListUntil('E', p.parseTemplateArg)
		if !ok {
			return -1
		}
		attrs = p.mk(node{k: kEnableIf, a: -1, b: -1, c: -1, listOff: off, listN: n})
	}
	ret := int32(-1)
	if !st.ctorDtorConv && st.endsWithTA {
		ret = p.parseType()
		if ret < 0 {
			return -1
		}
	}
	var off, n int32
	if !p.consume('v') {
		begin := len(p.names)
		for {
			t := p.parseType()
			if t < 0 {
				return -1
			}
			if st.explicitObj && len(p.names) == begin {
				if t = p.mk1(kExplicitObj, t); t < 0 {
					return -1
				}
			}
			p.names = append(p.names, t)
			if p.isEndOfEncoding() || p.look(0) == 'Q' {
				break
			}
		}
		off, n = p.popList(begin)
	}
	req := int32(-1)
	if p.consume('Q') {
		if req = p.parseConstraintExpr(); req < 0 {
			return -1
		}
	}
	e := p.mk(node{k: kEncoding, a: ret, b: name, c: attrs, listOff: off, listN: n,
		quals: st.quals, ref: st.ref, rhs: cYes, fn: cYes, flag: req + 1})
	if e >= 0 && req >= 0 {
		p.nodes[e].impure = p.nodes[req].impure
	}
	return e
}

func (p *parser) resolveFwdRefs(st *nameState) bool {
	for i := st.fwdRefsBegin; i < len(p.fwdRefs); i++ {
		r := &p.nodes[p.fwdRefs[i]]
		idx := int(r.flag)
		if len(p.tparams) == 0 || p.tparams[0] == nil || idx >= len(*p.tparams[0]) {
			return false
		}
		r.a = (*p.tparams[0])[idx]
	}
	p.fwdRefs = p.fwdRefs[:st.fwdRefsBegin]
	return true
}

func (p *parser) parseSpecialName() int32 {
	special := func(prefix str, child int32) int32 {
		if child < 0 {
			return -1
		}
		return p.mk(node{k: kSpecial, s: prefix, a: child, b: -1, c: -1})
	}
	switch p.look(0) {
	case 'T':
		switch p.look(1) {
		case 'A':
			p.pos += 2
			return special(lTemplateParameterObjectFor, p.parseTemplateArg())
		case 'V':
			p.pos += 2
			return special(lVtableFor, p.parseType())
		case 'T':
			p.pos += 2
			return special(lVttFor, p.parseType())
		case 'I':
			p.pos += 2
			return special(lTypeinfoFor, p.parseType())
		case 'S':
			p.pos += 2
			return special(lTypeinfoNameFor, p.parseType())
		case 'c':
			p.pos += 2
			if !p.parseCallOffset() || !p.parseCallOffset() {
				return -1
			}
			return special(lCovariantReturnThunkTo, p.parseEncoding())
		case 'C':
			p.pos += 2
			first := p.parseType()
			if first < 0 {
				return -1
			}
			if p.parseNumber(true) == "" || !p.consume('_') {
				return -1
			}
			second := p.parseType()
			if second < 0 {
				return -1
			}
			return p.mk(node{k: kCtorVtable, a: first, b: second, c: -1})
		case 'W':
			p.pos += 2
			return special(lThreadLocalWrapperRoutineFor, p.parseName(nil))
		case 'H':
			p.pos += 2
			return special(lThreadLocalInitializationRoutineFor, p.parseName(nil))
		default:
			p.pos++
			virt := p.look(0) == 'v'
			if !p.parseCallOffset() {
				return -1
			}
			enc := p.parseEncoding()
			if virt {
				return special(lVirtualThunkTo, enc)
			}
			return special(lNonVirtualThunkTo, enc)
		}
	case 'G':
		switch p.look(1) {
		case 'V':
			p.pos += 2
			return special(lGuardVariableFor, p.parseName(nil))
		case 'R':
			p.pos += 2
			name := p.parseName(nil)
			if name < 0 {
				return -1
			}
			_, parsed := p.parseSeqID()
			if !p.consume('_') && parsed {
				return -1
			}
			return special(lReferenceTemporaryFor, name)
		case 'I':
			p.pos += 2
			module := int32(-1)
			if !p.parseModuleNameOpt(&module) || module < 0 {
				return -1
			}
			return special(lInitializerForModule, module)
		}
	}
	return -1
}

// parseModuleNameOpt parses the module names ("W [P] <source-name>")
// ahead, each a substitution candidate, into *module.
func (p *parser) parseModuleNameOpt(module *int32) bool {
	for p.consume('W') {
		partition := int32(0)
		if p.consume('P') {
			partition = 1
		}
		sub := p.parseSourceName()
		if sub < 0 {
			return false
		}
		m := p.mk(node{k: kModuleName, a: *module, b: sub, c: -1, flag: partition})
		if m < 0 {
			return false
		}
		*module = m
		p.subs = append(p.subs, m)
	}
	return true
}

func (p *parser) parseCallOffset() bool {
	if p.consume('h') {
		return p.parseNumber(true) != "" && p.consume('_')
	}
	if p.consume('v') {
		return p.parseNumber(true) != "" && p.consume('_') && p.parseNumber(true) != "" && p.consume('_')
	}
	return false
}

// parseSeqID parses a base-36 sequence id.
func (p *parser) parseSeqID() (int, bool) {
	c := p.look(0)
	if !(isDigit(c) || c >= 'A' && c <= 'Z') {
		return 0, false
	}
	n := 0
	for {
		c := p.look(0)
		switch {
		case isDigit(c):
			n = n*36 + int(c-'0')
		case c >= 'A' && c <= 'Z':
			n = n*36 + int(c-'A') + 10
		default:
			return n, true
		}
		p.pos++
		if n > 1<<30 {
			return 0, false
		}
	}
}

func (p *parser) parseName(st *nameState) int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseName1(st)
	p.depth--
	return r
}

func (p *parser) parseName1(st *nameState) int32 {
	switch p.look(0) {
	case 'N':
		return p.parseNestedName(st)
	case 'Z':
		return p.parseLocalName(st)
	}
	isSubst := false
	res := p.parseUnscopedName(st, &isSubst)
	if res < 0 {
		return -1
	}
	if p.look(0) == 'I' {
		if !isSubst {
			p.subs = append(p.subs, res)
		}
		ta := p.parseTemplateArgs(st != nil)
		if ta < 0 {
			return -1
		}
		if st != nil {
			st.endsWithTA = true
		}
		return p.mk(node{k: kNameTA, a: res, b: ta, c: -1})
	} else if isSubst {
		return -1
	}
	return res
}

func (p *parser) parseLocalName(st *nameState) int32 {
	if !p.consume('Z') {
		return -1
	}
	enc := p.parseEncoding()
	if enc < 0 || !p.consume('E') {
		return -1
	}
	if p.consume('s') {
		p.parseDiscriminator()
		return p.mk(node{k: kLocal, a: enc, b: p.mkName(lStringLiteral), c: -1})
	}
	saved := p.saveTParams()
	defer p.restoreTParams(saved)
	if p.consume('d') {
		p.parseNumber(true)
		if !p.consume('_') {
			return -1
		}
		n := p.parseName(st)
		if n < 0 {
			return -1
		}
		return p.mk(node{k: kLocal, a: enc, b: n, c: -1})
	}
	ent := p.parseName(st)
	if ent < 0 {
		return -1
	}
	p.parseDiscriminator()
	return p.mk(node{k: kLocal, a: enc, b: ent, c: -1})
}

func (p *parser) parseDiscriminator() {
	in, i := p.in, p.pos
	if i >= len(in) {
		return
	}
	if in[i] == '_' {
		t := i + 1
		if t < len(in) {
			if isDigit(in[t]) {
				p.pos = t + 1
			} else if in[t] == '_' {
				t++
				for t < len(in) && isDigit(in[t]) {
					t++
				}
				if t < len(in) && in[t] == '_' {
					p.pos = t + 1
				}
			}
		}
	} else if isDigit(in[i]) {
		t := i + 1
		for t < len(in) && isDigit(in[t]) {
			t++
		}
		if t == len(in) {
			p.pos = t
		}
	}
}

func (p *parser) parseUnscopedName(st *nameState, isSubst *bool) int32 {
	std := int32(-1)
	if p.consumeStr("St") {
		std = p.mkName(lStd)
	}
	res, module := int32(-1), int32(-1)
	if p.look(0) == 'S' {
		s := p.parseSubstitution()
		if s < 0 {
			return -1
		}
		if p.nodes[s].k == kModuleName {
			module = s
		} else if isSubst != nil && std < 0 {
			res = s
			*isSubst = true
		} else {
			return -1
		}
	}
	if res < 0 || std >= 0 {
		res = p.parseUnqualifiedName(st, std, module)
	}
	return res
}

// parseUnqualifiedName parses [<module-name>] [F] [L] <unqualified-name>
// in scope (or -1), attached to module (or -1, or the modules ahead).
func (p *parser) parseUnqualifiedName(st *nameState, scope, module int32) int32 {
	if !p.parseModuleNameOpt(&module) {
		return -1
	}
	friend := scope >= 0 && p.consume('F')
	p.consume('L')
	var res int32
	c := p.look(0)
	switch {
	case c >= '1' && c <= '9':
		res = p.parseSourceName()
	case c == 'U':
		res = p.parseUnnamedTypeName(st)
	case c == 'D' && p.look(1) == 'C':
		p.pos += 2
		off, n, ok := p.parseOneOrMoreUntil('E', p.parseSourceName)
		if !ok {
			return -1
		}
		res = p.mk(node{k: kBinding, listOff: off, listN: n, a: -1, b: -1, c: -1})
	case c == 'C' || c == 'D':
		if scope < 0 || module >= 0 {
			return -1
		}
		res = p.parseCtorDtorName(&scope, st)
	default:
		res = p.parseOperatorName(st)
	}
	if res < 0 {
		return -1
	}
	if module >= 0 {
		if res = p.mk(node{k: kModuleEntity, a: module, b: res, c: -1}); res < 0 {
			return -1
		}
	}
	res = p.parseAbiTags(res)
	if res < 0 {
		return -1
	}
	if friend {
		res = p.mk(node{k: kFriend, a: scope, b: res, c: -1})
	} else if scope >= 0 {
		res = p.mk(node{k: kNested, a: scope, b: res, c: -1})
	}
	return res
}

func (p *parser) parseSourceName() int32 {
	n, ok := p.positive()
	if !ok || n == 0 || p.left() < n {
		return -1
	}
	s := p.in[p.pos : p.pos+n]
	p.pos += n
	if len(s) >= 10 && s[:10] == "_GLOBAL__N" {
		return p.mkName(lAnonymousNamespace)
	}
	return p.mkName(p.sub(s))
}

func (p *parser) parseBareSourceName() string {
	n, ok := p.positive()
	if !ok || p.left() < n {
		return ""
	}
	s := p.in[p.pos : p.pos+n]
	p.pos += n
	return s
}

func (p *parser) parseAbiTags(n int32) int32 {
	for p.consume('B') {
		tag := p.parseBareSourceName()
		if tag == "" {
			return -1
		}
		b := &p.nodes[n]
		n = p.mk(node{k: kAbiTag, a: n, b: -1, c: -1, s: p.sub(tag), rhs: b.rhs, arr: b.arr, fn: b.fn})
		if n < 0 {
			return -1
		}
	}
	return n
}

func (p *parser) parseUnnamedTypeName(st *nameState) int32 {
	if st != nil {
		p.tparams = p.tparams[:0]
	}
	if p.consumeStr("Ut") {
		count := p.parseNumber(false)
		if !p.consume('_') {
			return -1
		}
		return p.mk(node{k: kUnnamed, s: p.sub(count), a: -1, b: -1, c: -1})
	}
	if p.consumeStr("Ul") {
		oldLevel := p.lambdaLevel
		p.lambdaLevel = len(p.tparams)
		defer func() { p.lambdaLevel = oldLevel }()
		oldN := len(p.tparams)
		// ScopedTemplateParamList: push a fresh list, shrink back on exit.
		p.tparams = append(p.tparams, p.newList())
		defer func() {
			if len(p.tparams) > oldN {
				p.tparams = p.tparams[:oldN]
			}
		}()
		lambdaParams := p.tparams[len(p.tparams)-1]
		begin := len(p.names)
		for p.isTemplateParamDecl() {
			d := p.parseTemplateParamDecl(lambdaParams)
			if d < 0 {
				return -1
			}
			p.names = append(p.names, d)
		}
		toff, tn := p.popList(begin)
		decls := int32(-1)
		if tn > 0 {
			if decls = p.mk(node{k: kExprList, listOff: toff, listN: tn, a: -1, b: -1, c: -1}); decls < 0 {
				return -1
			}
		} else {
			p.tparams = p.tparams[:len(p.tparams)-1]
		}
		req1, req2 := int32(-1), int32(-1)
		if p.consume('Q') {
			if req1 = p.parseConstraintExpr(); req1 < 0 {
				return -1
			}
		}
		if !p.consume('v') {
			for {
				t := p.parseType()
				if t < 0 {
					return -1
				}
				p.names = append(p.names, t)
				if c := p.look(0); c == 'E' || c == 'Q' {
					break
				}
			}
		}
		off, n := p.popList(begin)
		if p.consume('Q') {
			if req2 = p.parseConstraintExpr(); req2 < 0 {
				return -1
			}
		}
		if !p.consume('E') {
			return -1
		}
		count := p.parseNumber(false)
		if !p.consume('_') {
			return -1
		}
		return p.mk(node{k: kClosure, s: p.sub(count), listOff: off, listN: n, a: decls, b: req1, c: req2})
	}
	if p.consumeStr("Ub") {
		p.parseNumber(false)
		if !p.consume('_') {
			return -1
		}
		return p.mkName(lBlockLiteral)
	}
	return -1
}

func (p *parser) isTemplateParamDecl() bool {
	if p.look(0) != 'T' {
		return false
	}
	switch p.look(1) {
	case 'y', 'p', 't', 'n', 'k':
		return true
	}
	return false
}

func (p *parser) parseCtorDtorName(scope *int32, st *nameState) int32 {
	if p.nodes[*scope].k == kSpecialSub {
		*scope = p.mk(node{k: kExpandedSub, flag: p.nodes[*scope].flag, a: -1, b: -1, c: -1})
		if *scope < 0 {
			return -1
		}
	}
	if p.consume('C') {
		inherited := p.consume('I')
		c := p.look(0)
		if c < '1' || c > '5' {
			return -1
		}
		p.pos++
		if st != nil {
			st.ctorDtorConv = true
		}
		if inherited && p.parseName(st) < 0 {
			return -1
		}
		return p.mk(node{k: kCtorDtor, a: *scope, b: -1, c: -1})
	}
	if p.look(0) == 'D' {
		switch p.look(1) {
		case '0', '1', '2', '4', '5':
			p.pos += 2
			if st != nil {
				st.ctorDtorConv = true
			}
			return p.mk(node{k: kCtorDtor, a: *scope, b: -1, c: -1, flag: 1})
		}
	}
	return -1
}

func (p *parser) parseNestedName(st *nameState) int32 {
	if !p.consume('N') {
		return -1
	}
	if p.consume('H') {
		if st != nil {
			st.explicitObj = true
		}
	} else {
		q := p.parseCVQualifiers()
		ref := uint8(refNone)
		if p.consume('O') {
			ref = refRValue
		} else if p.consume('R') {
			ref = refLValue
		}
		if st != nil {
			st.quals = q
			st.ref = ref
		}
	}
	soFar := int32(-1)
	for !p.consume('E') {
		if p.fail {
			return -1
		}
		if st != nil {
			st.endsWithTA = false
		}
		switch c := p.look(0); {
		case c == 'T':
			if soFar >= 0 {
				return -1
			}
			soFar = p.parseTemplateParam()
		case c == 'I':
			if soFar < 0 {
				return -1
			}
			ta := p.parseTemplateArgs(st != nil)
			if ta < 0 {
				return -1
			}
			if p.nodes[soFar].k == kNameTA {
				return -1
			}
			if st != nil {
				st.endsWithTA = true
			}
			soFar = p.mk(node{k: kNameTA, a: soFar, b: ta, c: -1})
		case c == 'D' && (p.look(1) == 't' || p.look(1) == 'T'):
			if soFar >= 0 {
				return -1
			}
			soFar = p.parseDecltype()
		default:
			module := int32(-1)
			if c == 'S' {
				var s int32
				if p.look(1) == 't' {
					p.pos += 2
					s = p.mkName(lStd)
				} else {
					s = p.parseSubstitution()
				}
				if s < 0 {
					return -1
				}
				if p.nodes[s].k == kModuleName {
					module = s
				} else if soFar >= 0 {
					return -1
				} else {
					soFar = s
					continue
				}
			}
			soFar = p.parseUnqualifiedName(st, soFar, module)
		}
		if soFar < 0 {
			return -1
		}
		p.subs = append(p.subs, soFar)
		p.consume('M')
	}
	if soFar < 0 || len(p.subs) == 0 {
		return -1
	}
	p.subs = p.subs[:len(p.subs)-1]
	return soFar
}

func (p *parser) parseCVQualifiers() uint8 {
	var q uint8
	if p.consume('r') {
		q |= qRestrict
	}
	if p.consume('V') {
		q |= qVolatile
	}
	if p.consume('K') {
		q |= qConst
	}
	return q
}

func (p *parser) parseSubstitution() int32 {
	if !p.consume('S') {
		return -1
	}
	if c := p.look(0); c >= 'a' && c <= 'z' {
		var k int32
		switch c {
		case 'a':
			k = ssAllocator
		case 'b':
			k = ssBasicString
		case 'd':
			k = ssIostream
		case 'i':
			k = ssIstream
		case 'o':
			k = ssOstream
		case 's':
			k = ssString
		default:
			return -1
		}
		p.pos++
		sub := p.mk(node{k: kSpecialSub, flag: k, a: -1, b: -1, c: -1})
		if sub < 0 {
			return -1
		}
		tagged := p.parseAbiTags(sub)
		if tagged != sub {
			if tagged < 0 {
				return -1
			}
			p.subs = append(p.subs, tagged)
		}
		return tagged
	}
	if p.consume('_') {
		if len(p.subs) == 0 {
			return -1
		}
		return p.subs[0]
	}
	idx, ok := p.parseSeqID()
	if !ok {
		return -1
	}
	idx++
	if !p.consume('_') || idx >= len(p.subs) {
		return -1
	}
	return p.subs[idx]
}

func (p *parser) parseTemplateParam() int32 {
	begin := p.pos
	if !p.consume('T') {
		return -1
	}
	level := 0
	if p.consume('L') {
		l, ok := p.positive()
		if !ok {
			return -1
		}
		level = l + 1
		if !p.consume('_') {
			return -1
		}
	}
	index := 0
	if !p.consume('_') {
		i, ok := p.positive()
		if !ok {
			return -1
		}
		index = i + 1
		if !p.consume('_') {
			return -1
		}
	}
	if p.incompleteTP {
		return p.mkName(p.sub(p.in[begin : p.pos-1]))
	}
	if p.permitFwd && level == 0 {
		r := p.mk(node{k: kFwdRef, flag: int32(index), a: -1, b: -1, c: -1, rhs: cUnknown, arr: cUnknown, fn: cUnknown})
		if r < 0 {
			return -1
		}
		p.fwdRefs = append(p.fwdRefs, r)
		return r
	}
	if level >= len(p.tparams) || p.tparams[level] == nil || index >= len(*p.tparams[level]) {
		if p.lambdaLevel == level && level <= len(p.tparams) {
			if level == len(p.tparams) {
				p.tparams = append(p.tparams, nil)
			}
			return p.mkName(lAuto)
		}
		return -1
	}
	return (*p.tparams[level])[index]
}

func (p *parser) parseTemplateArgs(tag bool) int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseTemplateArgs1(tag)
	p.depth--
	return r
}

func (p *parser) parseTemplateArgs1(tag bool) int32 {
	if !p.consume('I') {
		return -1
	}
	if tag {
		p.tparams = append(p.tparams[:0], p.outer)
		*p.outer = (*p.outer)[:0]
	}
	begin := len(p.names)
	for !p.consume('E') {
		arg := p.parseTemplateArg()
		if arg < 0 {
			return -1
		}
		p.names = append(p.names, arg)
		if tag {
			entry := arg
			if p.nodes[arg].k == kTPQualArg {
				entry = p.nodes[arg].a
			}
			// LLVM checks the kind of arg, not of entry, here.
			if n := &p.nodes[arg]; n.k == kTemplateArgPack {
				entry = p.mkPack(n.listOff, n.listN)
				if entry < 0 {
					return -1
				}
			}
			*p.outer = append(*p.outer, entry)
		}
		if p.consume('Q') {
			req := p.parseConstraintExpr()
			if req < 0 || !p.consume('E') {
				return -1
			}
			break
		}
	}
	off, n := p.popList(begin)
	return p.mk(node{k: kTemplateArgs, listOff: off, listN: n, a: -1, b: -1, c: -1})
}

// mkPack makes a ParameterPack whose caches are No when all elements' are.
func (p *parser) mkPack(off, n int32) int32 {
	nd := node{k: kPack, listOff: off, listN: n, a: -1, b: -1, c: -1, rhs: cNo, arr: cNo, fn: cNo}
	for _, e := range p.lists[off : off+n] {
		en := &p.nodes[e]
		if en.rhs != cNo {
			nd.rhs = cUnknown
		}
		if en.arr != cNo {
			nd.arr = cUnknown
		}
		if en.fn != cNo {
			nd.fn = cUnknown
		}
	}
	return p.mk(nd)
}

func (p *parser) parseTemplateArg() int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseTemplateArg1()
	p.depth--
	return r
}

func (p *parser) parseTemplateArg1() int32 {
	switch p.look(0) {
	case 'X':
		p.pos++
		e := p.parseExpr()
		if e < 0 || !p.consume('E') {
			return -1
		}
		return e
	case 'J':
		p.pos++
		begin := len(p.names)
		for !p.consume('E') {
			a := p.parseTemplateArg()
			if a < 0 {
				return -1
			}
			p.names = append(p.names, a)
		}
		off, n := p.popList(begin)
		return p.mk(node{k: kTemplateArgPack, listOff: off, listN: n, a: -1, b: -1, c: -1})
	case 'L':
		if p.look(1) == 'Z' {
			p.pos += 2
			e := p.parseEncoding()
			if e < 0 || !p.consume('E') {
				return -1
			}
			return e
		}
		return p.parseExprPrimary()
	case 'T':
		if !p.isTemplateParamDecl() {
			return p.parseType()
		}
		if p.parseTemplateParamDecl(nil) < 0 {
			return -1
		}
		arg := p.parseTemplateArg()
		if arg < 0 {
			return -1
		}
		return p.mk1(kTPQualArg, arg)
	}
	return p.parseType()
}

// parseTemplateParamDecl parses a <template-param-decl> and returns the
// declaration (printed only in a lambda's explicit template parameters).
// It invents the parameter's name ($T, $N, $TT, numbered per name as LLVM
// does) and adds it to params, the template parameter list it declares
// into.
func (p *parser) parseTemplateParamDecl(params *[]int32) int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseTemplateParamDecl1(params)
	p.depth--
	return r
}

// Kinds of invented template parameter names (LLVM's TemplateParamKind).
const (
	synthType = iota
	synthNonType
	synthTemplate
)

func (p *parser) parseTemplateParamDecl1(params *[]int32) int32 {
	invent := func(kind int) int32 {
		n := p.mk(node{k: kSynthParam, flag: int32(kind), s2: str{n: int32(p.synth[kind])}, a: -1, b: -1, c: -1})
		p.synth[kind]++
		if n >= 0 && params != nil {
			*params = append(*params, n)
		}
		return n
	}
	decl := func(k kind, a, b int32) int32 {
		if a < 0 {
			return -1
		}
		return p.mk(node{k: k, a: a, b: b, c: -1, rhs: cYes})
	}
	switch {
	case p.consumeStr("Ty"):
		return decl(kTypeParamDecl, invent(synthType), -1)
	case p.consumeStr("Tk"):
		// LLVM 22 prints the template parameters of a type constraint as
		// they are mangled, less the final '_' ("T", "T0", "TL0_"): it
		// does not track the enclosing levels well enough to resolve them.
		// They enter the substitution table that way too.
		old := p.incompleteTP
		p.incompleteTP = true
		c := p.parseName(nil)
		p.incompleteTP = old
		if c < 0 {
			return -1
		}
		return decl(kConstrainedParamDecl, c, invent(synthType))
	case p.consumeStr("Tn"):
		n := invent(synthNonType)
		if n < 0 {
			return -1
		}
		t := p.parseType()
		if t < 0 {
			return -1
		}
		return decl(kNonTypeParamDecl, n, t)
	case p.consumeStr("Tt"):
		n := invent(synthTemplate)
		if n < 0 {
			return -1
		}
		oldN := len(p.tparams)
		inner := p.newList()
		p.tparams = append(p.tparams, inner)
		defer func() {
			if len(p.tparams) > oldN {
				p.tparams = p.tparams[:oldN]
			}
		}()
		begin := len(p.names)
		req := int32(-1)
		for !p.consume('E') {
			d := p.parseTemplateParamDecl(inner)
			if d < 0 {
				return -1
			}
			p.names = append(p.names, d)
			if p.consume('Q') {
				if req = p.parseConstraintExpr(); req < 0 || !p.consume('E') {
					return -1
				}
				break
			}
		}
		off, cnt := p.popList(begin)
		return p.mk(node{k: kTemplateParamDecl, a: n, b: req, c: -1, listOff: off, listN: cnt, rhs: cYes})
	case p.consumeStr("Tp"):
		return decl(kParamPackDecl, p.parseTemplateParamDecl(params), -1)
	}
	return -1
}

var builtinTypes = [26]string{
	'a' - 'a': "signed char",
	'b' - 'a': "bool",
	'c' - 'a': "char",
	'd' - 'a': "double",
	'e' - 'a': "long double",
	'f' - 'a': "float",
	'g' - 'a': "__float128",
	'h' - 'a': "unsigned char",
	'i' - 'a': "int",
	'j' - 'a': "unsigned int",
	'l' - 'a': "long",
	'm' - 'a': "unsigned long",
	'n' - 'a': "__int128",
	'o' - 'a': "unsigned __int128",
	's' - 'a': "short",
	't' - 'a': "unsigned short",
	'v' - 'a': "void",
	'w' - 'a': "wchar_t",
	'x' - 'a': "long long",
	'y' - 'a': "unsigned long long",
	'z' - 'a': "...",
}

func (p *parser) parseType() int32 {
	if !p.enter() {
		return -1
	}
	r := p.parseType1()
	p.depth--
	return r
}

func (p *parser) parseType1() int32 {
	res := int32(-1)
	c := p.look(0)
	switch c {
	case 'r', 'V', 'K':
		after := 0
		if p.look(after) == 'r' {
			after++
		}
		if p.look(after) == 'V' {
			after++
		}
		if p.look(after) == 'K' {
			after++
		}
		if a := p.look(after); a == 'F' || a == 'D' && strchr("oOwx", p.look(after+1)) {
			res = p.parseFunctionType()
			break
		}
		res = p.parseQualifiedType()
	case 'U':
		res = p.parseQualifiedType()
	case 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'l', 'm', 'n', 'o', 's', 't', 'v', 'w', 'x', 'y', 'z':
		p.pos++
		return p.mkName(builtinTypesS[c-'a'])
	case 'u':
		p.pos++
		name := p.parseBareSourceName()
		if name == "" {
			return -1
		}
		if p.consume('I') {
			base := p.parseType()
			if base < 0 || !p.consume('E') {
				return -1
			}
			res = p.mk(node{k: kTransformed, s: p.sub(name), a: base, b: -1, c: -1})
		} else {
			res = p.mkName(p.sub(name))
		}
	case 'D':
		switch p.look(1) {
		case 'd':
			p.pos += 2
			return p.mkName(lDecimal64)
		case 'e':
			p.pos += 2
			return p.mkName(lDecimal128)
		case 'f':
			p.pos += 2
			return p.mkName(lDecimal32)
		case 'h':
			p.pos += 2
			return p.mkName(lHalf)
		case 'F':
			p.pos += 2
			if p.consumeStr("16b") { // C++23 std::bfloat16_t (LLVM 22; 19 rejects it)
				return p.mkName(lBfloat16)
			}
			dim := p.mkName(p.sub(p.parseNumber(false)))
			if !p.consume('_') {
				return -1
			}
			return p.mk1(kBinaryFP, dim)
		case 'i':
			p.pos += 2
			return p.mkName(lChar32T)
		case 's':
			p.pos += 2
			return p.mkName(lChar16T)
		case 'u':
			p.pos += 2
			return p.mkName(lChar8T)
		case 'a':
			p.pos += 2
			return p.mkName(lAuto)
		case 'c':
			p.pos += 2
			return p.mkName(lDecltypeAuto)
		case 'k', 'K': // constrained auto, decltype(auto)
			kind := lSpaceAuto
			if p.look(1) == 'K' {
				kind = lSpaceDecltypeAuto
			}
			p.pos += 2
			c := p.parseName(nil)
			if c < 0 {
				return -1
			}
			// Not a substitution candidate (unlike LLVM's other types here).
			return p.mk(node{k: kPostfixQual, a: c, b: -1, c: -1, s: kind})
		case 'n':
			p.pos += 2
			return p.mkName(lStdNullptrT)
		case 't', 'T':
			res = p.parseDecltype()
		case 'p':
			p.pos += 2
			child := p.parseType()
			if child < 0 {
				return -1
			}
			res = p.mk1(kPackExpansion, child)
		case 'o', 'O', 'w', 'x':
			res = p.parseFunctionType()
		default:
			return -1
		}
	case 'F':
		res = p.parseFunctionType()
	case 'A':
		res = p.parseArrayType()
	case 'M':
		p.pos++
		cls := p.parseType()
		if cls < 0 {
			return -1
		}
		mem := p.parseType()
		if mem < 0 {
			return -1
		}
		m := &p.nodes[mem]
		res = p.mk(node{k: kPtrMem, a: cls, b: mem, c: -1, rhs: m.rhs})
	case 'T':
		if l := p.look(1); l == 's' || l == 'u' || l == 'e' {
			res = p.parseClassEnumType()
			break
		}
		res = p.parseTemplateParam()
		if res < 0 {
			return -1
		}
		// A template-template parameter followed by its arguments is
		// itself a substitution candidate (LLVM 22; LLVM 19 did not add
		// it, which renumbers every later S_ reference).
		if p.tryTA && p.look(0) == 'I' {
			p.subs = append(p.subs, res)
			ta := p.parseTemplateArgs(false)
			if ta < 0 {
				return -1
			}
			res = p.mk(node{k: kNameTA, a: res, b: ta, c: -1})
		}
	case 'P':
		p.pos++
		t := p.parseType()
		if t < 0 {
			return -1
		}
		res = p.mk(node{k: kPointer, a: t, b: -1, c: -1, rhs: p.nodes[t].rhs})
	case 'R', 'O':
		p.pos++
		t := p.parseType()
		if t < 0 {
			return -1
		}
		rk := uint8(refLValue)
		if c == 'O' {
			rk = refRValue
		}
		res = p.mk(node{k: kRef, a: t, b: -1, c: -1, ref: rk, rhs: p.nodes[t].rhs})
	case 'C', 'G':
		p.pos++
		t := p.parseType()
		if t < 0 {
			return -1
		}
		suffix := lComplex
		if c == 'G' {
			suffix = lImaginary
		}
		res = p.mk(node{k: kPostfixQual, a: t, b: -1, c: -1, s: suffix})
	case 'S':
		if p.look(1) != 't' {
			isSubst := false
			res = p.parseUnscopedName(nil, &isSubst)
			if res < 0 {
				return -1
			}
			if p.look(0) == 'I' && (!isSubst || p.tryTA) {
				if !isSubst {
					p.subs = append(p.subs, res)
				}
				ta := p.parseTemplateArgs(false)
				if ta < 0 {
					return -1
				}
				res = p.mk(node{k: kNameTA, a: res, b: ta, c: -1})
			} else if isSubst {
				return res
			}
			break
		}
		res = p.parseClassEnumType()
	default:
		res = p.parseClassEnumType()
	}
	if res >= 0 {
		p.subs = append(p.subs, res)
	}
	return res
}

func strchr(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

func (p *parser) parseClassEnumType() int32 {
	elab := str{}
	if p.consumeStr("Ts") {
		elab = lStruct
	} else if p.consumeStr("Tu") {
		elab = lUnion
	} else if p.consumeStr("Te") {
		elab = lEnum
	}
	name := p.parseName(nil)
	if name < 0 {
		return -1
	}
	if elab.n != 0 {
		return p.mk(node{k: kElaborated, s: elab, a: name, b: -1, c: -1})
	}
	return name
}

func (p *parser) parseQualifiedType() int32 {
	if p.consume('U') {
		qual := p.parseBareSourceName()
		if qual == "" || len(qual) >= 9 && qual[:9] == "objcproto" {
			return -1
		}
		ta := int32(-1)
		if p.look(0) == 'I' {
			ta = p.parseTemplateArgs(false)
			if ta < 0 {
				return -1
			}
		}
		child := p.parseQualifiedType()
		if child < 0 {
			return -1
		}
		return p.mk(node{k: kVendorExtQual, a: child, s: p.sub(qual), b: ta, c: -1})
	}
	q := p.parseCVQualifiers()
	t := p.parseType()
	if t < 0 {
		return -1
	}
	if q != 0 {
		c := &p.nodes[t]
		t = p.mk(node{k: kQual, a: t, b: -1, c: -1, quals: q, rhs: c.rhs, arr: c.arr, fn: c.fn})
	}
	return t
}

func (p *parser) parseFunctionType() int32 {
	q := p.parseCVQualifiers()
	exc := int32(-1)
	if p.consumeStr("Do") {
		exc = p.mkName(lNoexcept)
	} else if p.consumeStr("DO") {
		e := p.parseExpr()
		if e < 0 || !p.consume('E') {
			return -1
		}
		exc = p.mk1(kNoexceptSpec, e)
	} else if p.consumeStr("Dw") {
		begin := len(p.names)
		for !p.consume('E') {
			t := p.parseType()
			if t < 0 {
				return -1
			}
			p.names = append(p.names, t)
		}
		off, n := p.popList(begin)
		exc = p.mk(node{k: kDynExcSpec, listOff: off, listN: n, a: -1, b: -1, c: -1})
	}
	p.consumeStr("Dx")
	if !p.consume('F') {
		return -1
	}
	p.consume('Y')
	ret := p.parseType()
	if ret < 0 {
		return -1
	}
	ref := uint8(refNone)
	begin := len(p.names)
	for {
		if p.fail {
			return -1
		}
		if p.consume('E') {
			break
		}
		if p.consume('v') {
			continue
		}
		if p.consumeStr("RE") {
			ref = refLValue
			break
		}
		if p.consumeStr("OE") {
			ref = refRValue
			break
		}
		t := p.parseType()
		if t < 0 {
			return -1
		}
		p.names = append(p.names, t)
	}
	off, n := p.popList(begin)
	return p.mk(node{k: kFunctionType, a: ret, b: -1, c: exc, listOff: off, listN: n,
		quals: q, ref: ref, rhs: cYes, fn: cYes})
}

func (p *parser) parseArrayType() int32 {
	if !p.consume('A') {
		return -1
	}
	dim := int32(-1)
	if isDigit(p.look(0)) {
		dim = p.mkName(p.sub(p.parseNumber(false)))
		if !p.consume('_') {
			return -1
		}
	} else if !p.consume('_') {
		e := p.parseExpr()
		if e < 0 || !p.consume('_') {
			return -1
		}
		dim = e
	}
	t := p.parseType()
	if t < 0 {
		return -1
	}
	return p.mk(node{k: kArray, a: t, b: dim, c: -1, rhs: cYes, arr: cYes})
}

func (p *parser) parseDecltype() int32 {
	if !p.consume('D') {
		return -1
	}
	if !p.consume('t') && !p.consume('T') {
		return -1
	}
	e := p.parseExpr()
	if e < 0 || !p.consume('E') {
		return -1
	}
	return p.mk(node{k: kEnclosing, s: lDecltype, a: e, b: -1, c: -1})
}

// parseConstraintExpr parses a requires clause: an expression in which
// template parameters are printed as they are mangled (LLVM's
// HasIncompleteTemplateParameterTracking).
func (p *parser) parseConstraintExpr() int32 {
	old := p.incompleteTP
	p.incompleteTP = true
	e := p.parseExpr()
	p.incompleteTP = old
	return e
}
