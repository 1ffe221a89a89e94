package symbolizer

// DecodeInst returns the AT&T text ("\tmnemonic operands") and length of
// the x86-64 instruction at the start of code, at address pc, with LLVM's
// instruction boundaries (x86inst); undecodable bytes are "\t<unknown>"
// of the length LLVM reads.
func DecodeInst(code []byte, pc uint64) (string, int) { return decodeInst(code, pc) }
