package sampleprof

import "github.com/rules-pgo/rules_pgo/internal/stdunordered"

// InMapOrder says that Funcs are in the insertion order of the one
// std::unordered_map the profile was built in (llvm-profgen's ProfileMap,
// for instance): the FuncMetadata section then lists them as that map
// iterates them.
func (p *Profile) InMapOrder() { p.merged = true }

// LLVM's SampleProfileMap is a libstdc++ std::unordered_map keyed by a
// 64-bit hash of the context, and the writer iterates it for the
// FuncMetadata section; stdunordered.Table reproduces that order.

// stdMapOrder returns the order in which llvm-profdata's writer iterates
// fs when the reader inserted them in the given order (keys are their
// hashes): the reader's map, copied into merge's map, iterated.
func stdMapOrder(fs []*FunctionSamples, key func(*FunctionSamples) uint64) []*FunctionSamples {
	return stdMapPass(stdMapPass(fs, key), key)
}

// stdMapPass returns the order in which a std::unordered_map iterates fs
// inserted in the given order (a repeated key keeps its first).
func stdMapPass(in []*FunctionSamples, key func(*FunctionSamples) uint64) []*FunctionSamples {
	t := stdunordered.New(len(in))
	kept := make([]*FunctionSamples, 0, len(in))
	for _, f := range in {
		k := key(f)
		if t.Find(k) >= 0 {
			continue
		}
		t.Insert(k)
		kept = append(kept, f)
	}
	out := make([]*FunctionSamples, 0, len(kept))
	for _, i := range t.Order() {
		out = append(out, kept[i])
	}
	return out
}
