package perfscript

import (
	"golang.org/x/arch/x86/x86asm"

	"github.com/rules-pgo/rules_pgo/internal/profbinary"
	"github.com/rules-pgo/rules_pgo/internal/x86inst"
)

// CallSites returns the sources of llvm-profgen's static call and tail-call
// edges (the MissingFrameInferrer's CallEdges and TailCallEdges keys): every
// call instruction inside a DWARF function, and every JMP inside one that
// is indirect or goes directly into another function (the jumps are
// decoded again for their targets).
func (b *Binary) CallSites() (calls, tailCalls map[uint64]bool) {
	calls, tailCalls = map[uint64]bool{}, map[uint64]bool{}
	var secs []*profbinary.Section
	for _, s := range b.pb.Sections() {
		if s.Exec && !s.NoBits && s.Size != 0 {
			secs = append(secs, s)
		}
	}
	data := map[*profbinary.Section][]byte{}
	bytesAt := func(a uint64) []byte {
		for _, s := range secs {
			if a >= s.Addr && a-s.Addr < s.Size {
				d, ok := data[s]
				if !ok {
					d, _ = s.Data()
					data[s] = d
				}
				if a-s.Addr < uint64(len(d)) {
					return d[a-s.Addr:]
				}
			}
		}
		return nil
	}
	for i, a := range b.code {
		k := b.kind[i]
		if k != instCall && k != instUncondBranch && k != instCondBranch {
			continue
		}
		from := b.findFuncRange(a)
		if from == nil {
			continue
		}
		if k == instCall {
			calls[a] = true
			continue
		}
		inst := x86inst.Decode(bytesAt(a))
		if inst.Class != x86inst.UncondBranch {
			// An indirect JMP (a barrier): LLVM's isIndirectBranch &&
			// isBarrier; conditional branches are neither.
			if inst.Kind == x86inst.KindX86 && inst.X86.Op == x86asm.JMP {
				tailCalls[a] = true
			}
			continue
		}
		to := b.findFuncRange(a + uint64(inst.Len) + uint64(inst.Rel))
		if to != nil && to.Func != from.Func {
			tailCalls[a] = true
		}
	}
	return calls, tailCalls
}
