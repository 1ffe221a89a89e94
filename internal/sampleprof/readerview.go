package sampleprof

import "github.com/rules-pgo/rules_pgo/internal/llvmrelease"

// What views of a profile (internal/profview) need of LLVM's reader: the
// summary it reports and the order its profile map iterates, so that
// numbers computed over the map (llvm-profdata overlap's sums of doubles)
// come out as LLVM's.

// ReaderSummary is the summary llvm-profdata of release's reader
// reports for p: the one a binary profile carries, or the one computed
// from its map (CS profiles flattened first, as LLVM does).
func (p *Profile) ReaderSummary(release llvmrelease.Release) *Summary {
	return p.readerSummary(release.OrDefault())
}

// ReaderOrder is the order in which release's reader's profile map
// (a std::unordered_map keyed by the context's hash) iterates p.Funcs.
func (p *Profile) ReaderOrder(release llvmrelease.Release) []*FunctionSamples {
	return stdMapPass(p.Funcs, mapKey(release.OrDefault()))
}
