package profgen

import (
	"cmp"
	"slices"
)

// disjoint is one range [begin, end] of findDisjointRanges with its count.
type disjoint struct {
	begin, end, count uint64
}

// disjointRanges is findDisjointRanges: the overlapping inclusive ranges
// cut at every boundary, each piece with the sum of the counts covering
// it; gaps inside zero-count ranges are pieces of count 0, other gaps are
// left out. The result is ordered by (begin, end) as llvm-profgen's
// std::map; a piece may be empty (end = begin − 1), as in llvm-profgen.
func disjointRanges(ranges map[[2]uint64]uint64) []disjoint {
	type point struct {
		addr               uint64
		begin, end         uint64
		hasBegin, hasEnd   bool
		zeroBegin, zeroEnd bool
	}
	idx := make(map[uint64]int, 2*len(ranges))
	var pts []point
	at := func(a uint64) *point {
		i, ok := idx[a]
		if !ok {
			i = len(pts)
			idx[a] = i
			pts = append(pts, point{addr: a})
		}
		return &pts[i]
	}
	for r, n := range ranges {
		b := at(r[0])
		b.begin += n
		b.hasBegin = true
		e := at(r[1])
		e.end += n
		e.hasEnd = true
		if n == 0 {
			// at may have grown pts: look both up again.
			pts[idx[r[0]]].zeroBegin = true
			pts[idx[r[1]]].zeroEnd = true
		}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.addr, b.addr) })
	const none = ^uint64(0)
	out := map[[2]uint64]uint64{}
	begin := none
	depth := 0
	var count uint64
	for _, p := range pts {
		if p.hasBegin {
			if begin != none {
				out[[2]uint64{begin, p.addr - 1}] = count
			}
			count += p.begin
			begin = p.addr
			if p.zeroBegin {
				depth++
			}
		}
		if p.hasEnd {
			out[[2]uint64{begin, p.addr}] = count
			count -= p.end
			begin = p.addr + 1
			if p.zeroEnd {
				depth--
			}
			if count == 0 && depth == 0 {
				begin = none
			}
		}
	}
	res := make([]disjoint, 0, len(out))
	for k, n := range out {
		res = append(res, disjoint{k[0], k[1], n})
	}
	slices.SortFunc(res, func(a, b disjoint) int {
		if c := cmp.Compare(a.begin, b.begin); c != 0 {
			return c
		}
		return cmp.Compare(a.end, b.end)
	})
	return res
}
