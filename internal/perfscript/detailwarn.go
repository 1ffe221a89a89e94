package perfscript

import (
	"cmp"
	"maps"
	"slices"
)

// The per-item warnings of llvm-profgen's --show-detailed-warning
// (Options.ShowDetailedWarning), each printed before the summary it
// details.

// detailTruncatedStacks is warnTruncatedStack's list: every invalid
// return address, ascending (a std::set).
func (p *reader) detailTruncatedStacks() {
	for _, a := range slices.Sorted(maps.Keys(p.invalidReturnAddrs)) {
		p.warn("Truncated stack sample due to invalid return address at %#x, likely caused by frame pointer omission", a)
	}
}

// Messages of warnInvalidRange's per-range warnings.
const (
	endNotBoundaryMsg = "Range is not on instruction boundary, likely due to profile and binary mismatch."
	danglingRangeMsg  = "Range does not belong to any functions, likely from PLT, .init or .fini section."
	rangeCrossFuncMsg = "Fall through range should not cross function boundaries, likely due to profile and binary mismatch."
	bogusRangeMsg     = "Range start is after or too far from range end."
)

// detailInvalidRanges is warnInvalidRange's list: "[start,end]: why" for
// each range its summaries count, ascending by (start, end).
// llvm-profgen lists them as a std::unordered_map of the ranges iterates,
// filled in the iteration order of another one keyed by the samples'
// hashes: the same lines in another order.
func (p *reader) detailInvalidRanges() {
	b := p.bin
	ranges := slices.Clone(p.fallThrough.keys)
	slices.SortFunc(ranges, func(x, y Branch) int {
		if c := cmp.Compare(x.Source, y.Source); c != 0 {
			return c
		}
		return cmp.Compare(x.Target, y.Target)
	})
	for _, r := range ranges {
		start, end := r.Source, r.Target
		if !b.IsCode(start) && !b.IsCode(end) {
			continue
		}
		say := func(msg string) { p.warn("[%8x,%8x]: %s", start, end, msg) }
		if !b.IsCode(start) || !b.isTransfer(end) {
			say(endNotBoundaryMsg)
		}
		fr := b.findFuncRange(start)
		if fr == nil {
			say(danglingRangeMsg)
			continue
		}
		if end >= fr.End {
			say(rangeCrossFuncMsg)
		}
		if b.IsCode(start) && b.IsCode(end) && !b.validFallThrough(start, end) {
			say(bogusRangeMsg)
		}
	}
}
