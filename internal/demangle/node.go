package demangle

// kind identifies what a node in the arena represents. The names follow
// the node classes of LLVM's ItaniumDemangle.h, whose printing rules this
// package reproduces.
type kind uint8

const (
	kName                 kind = iota // s
	kNested                           // a::b
	kLocal                            // a::b (encoding, entity)
	kNameTA                           // a b (name, template args)
	kTemplateArgs                     // list, b = requires clause (parsed, not printed)
	kSpecialSub                       // flag: sub kind
	kExpandedSub                      // flag: sub kind
	kCtorDtor                         // a = basename node, flag: dtor
	kConvOp                           // a = type
	kLiteralOp                        // a = name
	kAbiTag                           // a = base, s = tag
	kSpecial                          // s + a
	kCtorVtable                       // a = first, b = second
	kQual                             // a = child, quals
	kPointer                          // a
	kRef                              // a, ref = 1 lvalue, 2 rvalue
	kPtrMem                           // a = class, b = member
	kArray                            // a = base, b = dimension (or -1)
	kFunctionType                     // a = ret, list = params, quals, ref, c = exception spec
	kEncoding                         // a = ret (or -1), b = name, list = params, c = attrs, quals, ref, flag = requires clause + 1
	kPack                             // list: ParameterPack
	kTemplateArgPack                  // list: TemplateArgumentPack
	kPackExpansion                    // a
	kFwdRef                           // flag: index, a = resolved
	kPostfixQual                      // a, s
	kElaborated                       // s, a
	kTransformed                      // s, a
	kBinaryFP                         // a = dimension
	kVendorExtQual                    // a = type, s = ext, b = template args
	kClosure                          // list = params, s = count, a = template parameter declarations (kExprList) or -1, b, c = requires clauses or -1
	kUnnamed                          // s = count
	kDotSuffix                        // a, s
	kEnableIf                         // list
	kNoexceptSpec                     // a
	kDynExcSpec                       // list
	kIntLit                           // s = type, s2 = value
	kBoolLit                          // flag
	kEnumLit                          // a = type, s = value
	kStringLit                        // a = type
	kLambdaExpr                       // a = closure
	kFuncParam                        // s = number
	kBinary                           // a, s = op, b
	kPrefix                           // s, a
	kPostfix                          // a, s
	kArraySub                         // a, b
	kMember                           // a, s, b
	kCall                             // a, list, flag = paren
	kConversion                       // a = type, list
	kConditional                      // a, b, c
	kCast                             // s, a = type, b = expr
	kEnclosing                        // s = prefix, a
	kSizeofPack                       // a
	kQualified                        // a, b
	kGlobalQualified                  // a
	kDtorName                         // a
	kThrow                            // a
	kInitList                         // a = type or -1, list
	kTPQualArg                        // a = arg (TemplateParamQualifiedArg)
	kFriend                           // a = scope, b = name (MemberLikeFriendName)
	kRequiresExpr                     // list = requirements, a = parameters (kExprList) or -1
	kExprList                         // list, printed with commas
	kExprReq                          // a = expr, b = type constraint or -1, flag = noexcept
	kTypeReq                          // a = type
	kNestedReq                        // a = constraint
	kNew                              // list = placement, a = type, b = initializers (kExprList) or -1, flag = 1 global | 2 array
	kDelete                           // a = operand, flag = 1 global | 2 array
	kFold                             // a = pack, b = init or -1, s = operator symbol, flag = left fold
	kFloatLit                         // s = hex digits, flag = 'f' (float) or 'd' (double)
	kSynthParam                       // flag = kind (synthType...), s2.n = index: $T, $N0, $TT1
	kTypeParamDecl                    // a = name
	kConstrainedParamDecl             // a = constraint, b = name
	kNonTypeParamDecl                 // a = name, b = type
	kTemplateParamDecl                // a = name, list = parameter declarations, b = requires clause or -1
	kParamPackDecl                    // a = declaration
	kExplicitObj                      // a = type of an explicit object parameter ("this T")
	kBraced                           // a = field or index, b = initializer, flag = array (di, dx)
	kBracedRange                      // a = first, b = last, c = initializer (dX)
	kModuleName                       // a = parent module or -1, b = name, flag = partition
	kModuleEntity                     // a = module, b = name (name@module)
	kBinding                          // list = names: a structured binding [a, b]
	kMemberConv                       // a = type, b = expression (mc)
	numKinds
)

// cache mirrors LLVM's Node::Cache: whether a node has a right-hand
// component, is an array or is a function, or must be asked when printing.
type cache uint8

const (
	cNo cache = iota
	cYes
	cUnknown
)

// prec mirrors LLVM's Node::Prec, lowest number binds tightest.
type prec uint8

const (
	pPrimary prec = iota
	pPostfix
	pUnary
	pCast
	pPtrMem
	pMultiplicative
	pAdditive
	pShift
	pSpaceship
	pRelational
	pEquality
	pAnd
	pXor
	pIor
	pAndIf
	pOrIf
	pConditional
	pAssign
	pComma
	pDefault
)

const (
	qConst    = 1
	qVolatile = 2
	qRestrict = 4
)

const (
	refNone   = 0
	refLValue = 1
	refRValue = 2
)

// node is one entry of the parser's arena. Children are indices into the
// same arena (-1 for none); lists are ranges of the parser's lists slice.
type node struct {
	k              kind
	rhs, arr, fn   cache
	prec           prec
	quals, ref     uint8
	impure         bool // printed text depends on context; see parser.mk
	flag           int32
	a, b, c        int32
	listOff, listN int32
	s, s2          str
}

// special substitution kinds (Sa, Sb, Ss, Si, So, Sd).
const (
	ssAllocator = iota
	ssBasicString
	ssString
	ssIstream
	ssOstream
	ssIostream
)

var ssBase = [...]string{"allocator", "basic_string", "basic_string", "basic_istream", "basic_ostream", "basic_iostream"}
