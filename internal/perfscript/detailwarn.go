package perfscript

import (
	"maps"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/stdunordered"
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
// each range its summaries count, in llvm-profgen's order (rangeOrder).
func (p *reader) detailInvalidRanges() {
	b := p.bin
	ranges := p.rangeOrder()
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

// sampleOrder keeps, with --show-detailed-warning only, what it takes to
// list the invalid ranges in llvm-profgen's order: each distinct sample
// (stack, LBR) in the order of its first appearance, with the hash its
// AggregatedSamples (a std::unordered_map) files it under.
type sampleOrder struct {
	seen   map[[2]uint64]struct{}
	key    []byte
	hashes []uint64 // PerfSample::getHashCode of each distinct sample
	lbrs   []Branch // their LBR entries back to back
	ends   []int
	lbr    []Branch // combineInOrder's scratch
}

func newSampleOrder() *sampleOrder { return &sampleOrder{seen: map[[2]uint64]struct{}{}} }

// noteOrder records a sample (its stack as the distinct set has it, empty
// for LBR-only samples and --ignore-stack-samples) for rangeOrder.
func (p *reader) noteOrder(stack []uint64, lbr []Branch) {
	o := p.order
	if o == nil {
		return
	}
	var k [2]uint64
	k, o.key = p.sampleHash(o.key, stack, lbr)
	if _, ok := o.seen[k]; ok {
		return
	}
	o.seen[k] = struct{}{}
	// PerfSample::getHashCode: DJB2 over the stack, then each entry's
	// source and target.
	h := uint64(5381)
	for _, a := range stack {
		h = h<<5 + h + a
	}
	for _, e := range lbr {
		h = h<<5 + h + e.Source
		h = h<<5 + h + e.Target
	}
	o.hashes = append(o.hashes, h)
	o.lbrs = append(o.lbrs, lbr...)
	o.ends = append(o.ends, len(o.lbrs))
}

// rangeOrder returns the fall-through ranges as warnInvalidRange iterates
// them: it fills a std::unordered_map of the ranges (hashed as start × 31
// + end, llvm::pair_hash) walking AggregatedSamples, a
// std::unordered_map of the distinct samples (filled in trace order), in
// its iteration order; the ranges come out in that map's. Both orders are
// libstdc++'s (stdunordered.Order).
func (p *reader) rangeOrder() []Branch {
	o := p.order
	var ranges []Branch
	seen := map[Branch]struct{}{}
	for _, i := range stdunordered.Order(o.hashes) {
		end := uint64(0)
		for _, e := range o.lbrs[prevEnd(o.ends, i):o.ends[i]] {
			if end != 0 {
				r := Branch{e.Target, end}
				if _, ok := seen[r]; !ok {
					seen[r] = struct{}{}
					ranges = append(ranges, r)
				}
			}
			end = e.Source
		}
	}
	hashes := make([]uint64, len(ranges))
	for i, r := range ranges {
		hashes[i] = r.Source*31 + r.Target
	}
	out := make([]Branch, 0, len(ranges))
	for _, i := range stdunordered.Order(hashes) {
		out = append(out, ranges[i])
	}
	return out
}
