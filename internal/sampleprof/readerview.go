package sampleprof

// What views of a profile (internal/profview) need of LLVM's reader: the
// summary it reports and the order its profile map iterates, so that
// numbers computed over the map (llvm-profdata overlap's sums of doubles)
// come out as LLVM's.

// ReaderSummary is the summary llvm-profdata of release llvm's reader
// reports for p: the one a binary profile carries, or the one computed
// from its map (CS profiles flattened first, as LLVM does).
func (p *Profile) ReaderSummary(llvm int) *Summary {
	if llvm == 0 {
		llvm = 22
	}
	return p.readerSummary(llvm)
}

// ReaderOrder is the order in which release llvm's reader's profile map
// (a std::unordered_map keyed by the context's hash) iterates p.Funcs.
func (p *Profile) ReaderOrder(llvm int) []*FunctionSamples {
	if llvm == 0 {
		llvm = 22
	}
	return stdMapPass(p.Funcs, mapKey(llvm))
}
