package memprofidx

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// parallel runs f over [0, n) cut into one contiguous range per worker.
func parallel(workers, n int, f func(lo, hi int)) {
	w := max(workers, 1)
	if w <= 1 || n < 4096 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := n*i/w, n*(i+1)/w
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// ParallelStackIDs is ix.stackIDs (each stack's V2 CallStackId) on
// ix.Workers goroutines.
func ParallelStackIDs(ix *Indexed) []uint64 {
	ids := make([]uint64, ix.NumStacks())
	parallel(ix.Workers, len(ids), func(lo, hi int) {
		var b []byte
		for s := lo; s < hi; s++ {
			b = b[:0]
			for _, f := range ix.Stack(int32(s)) {
				b = le.AppendUint64(b, ix.FrameIDs[f])
			}
			ids[s] = truncatedBLAKE3(b)
		}
	})
	return ids
}

// RadixFrameOrder returns the V3/V4 frame array order (most used first,
// then nearer the leaf, then by FrameId), each frame's use count over all
// call stacks, and each frame's index in the array.
func RadixFrameOrder(ix *Indexed) (order []int32, count, frameIndex []uint32) {
	nf := len(ix.Frames)
	w := max(ix.Workers, 1)
	counts := make([][]uint32, w)
	posSums := make([][]uint64, w)
	var next int
	var mu sync.Mutex
	parallel(ix.Workers, ix.NumStacks(), func(lo, hi int) {
		c, ps := make([]uint32, nf), make([]uint64, nf)
		for s := lo; s < hi; s++ {
			for pos, f := range ix.Stack(int32(s)) {
				c[f]++
				ps[f] += uint64(pos)
			}
		}
		mu.Lock()
		counts[next], posSums[next] = c, ps
		next++
		mu.Unlock()
	})
	count, posSum := counts[0], posSums[0]
	if count == nil {
		count, posSum = make([]uint32, nf), make([]uint64, nf)
	}
	for k := 1; k < next; k++ {
		for f := range nf {
			count[f] += counts[k][f]
			posSum[f] += posSums[k][f]
		}
	}
	order = make([]int32, nf)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(posSum[a], posSum[b]); c != 0 {
			return c
		}
		return cmp.Compare(ix.FrameIDs[a], ix.FrameIDs[b])
	})
	frameIndex = make([]uint32, nf)
	for i, f := range order {
		frameIndex[f] = uint32(i)
	}
	return order, count, frameIndex
}

// BuildRadix emulates CallStackRadixTreeBuilder: call stacks sorted
// root-first by (frame popularity, FrameId), encoded from the last one with
// shared root-side prefixes replaced by negative jumps, then reversed. It
// returns the u32 array and each stack's position in it.
func BuildRadix(ix *Indexed, count []uint32, frameIndex []uint32) ([]uint32, []uint32) {
	// rank orders frames by (popularity, FrameId); a stack's sort key is
	// its frames' ranks, root first, compared lexicographically.
	byRank := make([]int32, len(ix.Frames))
	for i := range byRank {
		byRank[i] = int32(i)
	}
	slices.SortFunc(byRank, func(a, b int32) int {
		if c := cmp.Compare(count[a], count[b]); c != 0 {
			return c
		}
		return cmp.Compare(ix.FrameIDs[a], ix.FrameIDs[b])
	})
	rank := make([]uint32, len(ix.Frames))
	for r, f := range byRank {
		rank[f] = uint32(r)
	}
	if stacks, scratch := lsdSortStacks(ix, rank); stacks != nil {
		// The sort's digit columns hold at least every frame, and frame
		// indexes fit their 16 bits: encodeRadix reuses them.
		return encodeRadix(ix, stacks, frameIndex, scratch.cols[:len(ix.StackFrames)], scratch.tmp)
	}
	return encodeRadix(ix, keySortStacks(ix, rank), frameIndex, make([]uint32, len(ix.StackFrames)), nil)
}

// lsdScratch is memory lsdSortStacks is done with.
type lsdScratch struct {
	cols []uint16 // len ≥ len(stackFrames)
	tmp  []int32  // len = number of stacks
}

// lsdSortStacks returns the stacks ordered by their frames' ranks, root
// first, lexicographically (a stack before its extensions; stacks are
// distinct, so no two keys tie), or nil if the stacks do not suit it. It is
// an LSD radix sort with one pass per depth, linear when depths are even:
// digit L of stack s is its L-th frame from the root's rank+1, or 0 past its
// end. A few very deep stacks would make it quadratic-ish, and ranks must
// fit 16 bits; other inputs take keySortStacks.
func lsdSortStacks(ix *Indexed, rank []uint32) ([]int32, lsdScratch) {
	n := ix.NumStacks()
	depth := 0
	for s := range n {
		depth = max(depth, int(ix.StackOff[s+1]-ix.StackOff[s]))
	}
	if len(ix.Frames) >= 1<<16 || depth*n > 4*len(ix.StackFrames)+n || n == 0 {
		return nil, lsdScratch{}
	}
	cols := make([]uint16, depth*n)
	parallel(ix.Workers, n, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			fs := ix.Stack(int32(s))
			for l := range fs {
				cols[l*n+s] = uint16(rank[fs[len(fs)-1-l]] + 1)
			}
		}
	})
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	tmp := make([]int32, n)
	cnt := make([]int32, len(ix.Frames)+1)
	for l := depth - 1; l >= 0; l-- {
		col := cols[l*n : (l+1)*n]
		clear(cnt)
		for _, d := range col {
			cnt[d]++
		}
		if cnt[col[0]] == int32(n) {
			continue // one digit: the pass would not move anything
		}
		sum := int32(0)
		for d, c := range cnt {
			cnt[d] = sum
			sum += c
		}
		for _, s := range perm {
			d := col[s]
			tmp[cnt[d]] = s
			cnt[d]++
		}
		perm, tmp = tmp, perm
	}
	return perm, lsdScratch{cols, tmp}
}

// encodeRadix writes the radix array for the sorted stacks, as
// CallStackRadixTreeBuilder does: from the last stack to the first, each
// stack's frames (root first) that it does not share with the stack
// encoded before it, preceded by a jump back to the shared part if any and
// followed by its length; the array is then reversed. Here the builder's
// positions are computed first from the shared prefix lengths alone, and
// the frames written straight into their reversed places.
//
// g (len(ix.stackFrames)) and inv (len(stacks), or nil) are scratch space.
func encodeRadix[T uint16 | uint32](ix *Indexed, stacks []int32, frameIndex []uint32, g []T, inv []int32) ([]uint32, []uint32) {
	n := len(stacks)
	// Copy the stacks into sorted order as frame indexes, leaf first, so
	// that the passes below read memory in order: g[goff[k]:goff[k+1]] is
	// stacks[k]. Reading the stacks in order and scattering the writes is
	// faster than gathering.
	if inv == nil {
		inv = make([]int32, n)
	}
	for k, s := range stacks {
		inv[s] = int32(k)
	}
	goff := make([]int32, n+1)
	for s := range n {
		goff[inv[s]+1] = ix.StackOff[s+1] - ix.StackOff[s]
	}
	for k := range n {
		goff[k+1] += goff[k]
	}
	g = g[:goff[n]]
	parallel(ix.Workers, n, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			k := inv[s]
			dst := g[goff[k]:goff[k+1]]
			for i, f := range ix.Stack(int32(s))[:len(dst)] {
				dst[i] = T(frameIndex[f])
			}
		}
	})
	// common[k]: root-side frames stacks[k] shares with stacks[k+1].
	common := make([]int32, n)
	parallel(ix.Workers, n-1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			a, b := g[goff[k]:goff[k+1]], g[goff[k+1]:goff[k+2]]
			c := 0
			for c < len(a) && c < len(b) && a[len(a)-1-c] == b[len(b)-1-c] {
				c++
			}
			common[k] = int32(c)
		}
	})
	size := 0
	for k := range n {
		c := int(common[k])
		size += int(goff[k+1]-goff[k]) - c + 1
		if c > 0 {
			size++
		}
	}
	arr := make([]uint32, size)
	// start[k]: builder position of stacks[k]'s first own frame. idx[d] is
	// the builder position of depth d of the last stack encoded.
	start := make([]int32, n)
	pos := make([]uint32, n)
	var idx []uint32
	p := 0
	for k := n - 1; k >= 0; k-- {
		c := int(common[k])
		l := int(goff[k+1] - goff[k])
		idx = idx[:c]
		if c > 0 {
			arr[size-1-p] = idx[c-1] - uint32(p)
			p++
		}
		start[k] = int32(p)
		for d := c; d < l; d++ {
			idx = append(idx, uint32(p+d-c))
		}
		p += l - c
		arr[size-1-p] = uint32(l)
		pos[stacks[k]] = uint32(size - 1 - p)
		p++
	}
	// Each stack's own frames, leaf first, end at its reversed start.
	parallel(ix.Workers, n, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			own := g[goff[k] : goff[k+1]-common[k]]
			end := size - int(start[k])
			dst := arr[end-len(own) : end]
			for i, f := range own {
				dst[i] = uint32(f)
			}
		}
	})
	return arr, pos
}

// keySortStacks is sortStacks by comparisons on packed keys.
func keySortStacks(ix *Indexed, rank []uint32) []int32 {
	keys := make([]uint32, len(ix.StackFrames))
	for s := range ix.NumStacks() {
		lo, hi := ix.StackOff[s], ix.StackOff[s+1]
		for i := lo; i < hi; i++ {
			keys[i] = rank[ix.StackFrames[lo+hi-1-i]]
		}
	}
	stacks := make([]int32, ix.NumStacks())
	for i := range stacks {
		stacks[i] = int32(i)
	}
	ks := &keySorter{keys: keys, off: ix.StackOff, width: max(1, bits.Len(uint(len(ix.Frames))))}
	ks.per = 64 / ks.width
	ks.sort(stacks, make([]packedKey, len(stacks)), 0)
	return stacks
}

// keySorter sorts stacks by their key sequences (keys[off[s]:off[s+1]])
// lexicographically, a shorter sequence before its extensions. Comparing
// the sequences directly touches scattered memory at every comparison;
// instead each round packs the next len(packedKey.k)*per keys of every
// stack (key+1, 0 past the end, width bits each) into words stored beside
// the stack, sorts those and recurses only into runs that tie. With LLVM's
// stack depths one round usually decides everything.
type keySorter struct {
	keys       []uint32
	off        []int32
	width, per int
}

type packedKey struct {
	k [3]uint64
	s int32
}

func (ks *keySorter) sort(stacks []int32, scratch []packedKey, depth int) {
	pk := scratch[:len(stacks)]
	for i, s := range stacks {
		seq := ks.keys[ks.off[s]:ks.off[s+1]]
		pk[i].s = s
		j := depth
		for w := range pk[i].k {
			var k uint64
			for range ks.per {
				k <<= ks.width
				if j < len(seq) {
					k |= uint64(seq[j]) + 1
				}
				j++
			}
			pk[i].k[w] = k
		}
	}
	slices.SortFunc(pk, func(a, b packedKey) int {
		if c := cmp.Compare(a.k[0], b.k[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k[1], b.k[1]); c != 0 {
			return c
		}
		return cmp.Compare(a.k[2], b.k[2])
	})
	for i, p := range pk {
		stacks[i] = p.s
	}
	endMask := uint64(1)<<ks.width - 1 // the last packed key: 0 if ended
	for i := 0; i < len(pk); {
		j := i + 1
		for j < len(pk) && pk[j].k == pk[i].k {
			j++
		}
		if j-i > 1 && pk[i].k[2]&endMask != 0 {
			ks.sort(stacks[i:j], scratch[i:j], depth+len(pk[i].k)*ks.per)
		}
		i = j
	}
}

// DecodeRadix extracts the call stack at linear call-stack id l (a
// position) of the radix array a, whose frame indexes are into frames. On
// a malformed array it returns what is wrong instead, for the reader to
// place in its error.
func DecodeRadix(a []uint32, frames []memprof.Frame, l uint32) ([]memprof.Frame, string) {
	if uint64(l) >= uint64(len(a)) {
		return nil, "beyond the radix array"
	}
	n := a[l]
	if uint64(n) > uint64(len(a)) {
		return nil, "implausible call stack length"
	}
	fs := make([]memprof.Frame, 0, n)
	p := uint64(l) + 1
	for range n {
		if p >= uint64(len(a)) {
			return nil, "runs off the radix array"
		}
		if int32(a[p]) < 0 {
			p += uint64(-int64(int32(a[p])))
			if p >= uint64(len(a)) {
				return nil, "jumps off the radix array"
			}
			if int32(a[p]) < 0 {
				return nil, "jump to a jump"
			}
		}
		idx := a[p]
		if uint64(idx) >= uint64(len(frames)) {
			return nil, fmt.Sprintf("frame index %d beyond the frame array (%d frames)", idx, len(frames))
		}
		fs = append(fs, frames[idx])
		p++
	}
	return fs, ""
}
