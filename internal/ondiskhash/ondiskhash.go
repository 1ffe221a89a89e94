// Package ondiskhash reproduces the bucket layout of LLVM's
// OnDiskChainedHashTableGenerator (llvm/Support/OnDiskHashTable.h), the
// table of llvm-profdata's indexed profiles (function records, MemProf
// records, frames and call stacks): which bucket an item lands in and
// where in its bucket depend on the insertion order, so the bytes of a
// table do too.
//
// The generator, as LLVM builds it: 64 initial buckets, doubling when
// 4*entries >= 3*buckets; items pushed at the head of their bucket;
// resizes walking each old bucket head to tail (which reverses items that
// stay together); and a final resize to bit_ceil(entries*4/3+1) buckets (1
// when entries <= 2) before emitting. New lays a table out; InsertionOrder
// inverts it (an insertion order that gives a layout read from a file).
// Writing the table's bytes is the format's (instrprof).
package ondiskhash

// Layout is a table's bucket layout: bucket b holds the items (indexes
// into the hashes given to New) Order[Start[b]:Start[b+1]], head first;
// Order is so the items in on-disk order.
type Layout struct {
	Start []int32
	Order []int32
}

// NumBuckets returns the table's bucket count.
func (l *Layout) NumBuckets() int { return len(l.Start) - 1 }

// Bucket returns the items of bucket b, head first.
func (l *Layout) Bucket(b int) []int32 { return l.Order[l.Start[b]:l.Start[b+1]] }

// New inserts items with the given hashes, in order, into an emulated
// generator and returns the layout it emits. Buckets are linked lists
// threaded through next.
func New(hashes []uint64) Layout {
	next := make([]int32, len(hashes))
	newHeads := func(n int) []int32 {
		h := make([]int32, n)
		for i := range h {
			h[i] = -1
		}
		return h
	}
	heads := newHeads(64)
	resize := func(m int) {
		nh := newHeads(m)
		for _, i := range heads {
			for i >= 0 { // head to tail, each pushed at its new head
				nx := next[i]
				b := hashes[i] & uint64(m-1)
				next[i], nh[b] = nh[b], i
				i = nx
			}
		}
		heads = nh
	}
	for i, h := range hashes {
		if 4*(i+1) >= 3*len(heads) {
			resize(2 * len(heads))
		}
		b := h & uint64(len(heads)-1)
		next[i], heads[b] = heads[b], int32(i)
	}
	if t := NumBuckets(len(hashes)); t != len(heads) {
		resize(t)
	}
	l := Layout{Start: make([]int32, len(heads)+1), Order: make([]int32, 0, len(hashes))}
	for b, i := range heads {
		l.Start[b] = int32(len(l.Order))
		for ; i >= 0; i = next[i] {
			l.Order = append(l.Order, i)
		}
	}
	l.Start[len(heads)] = int32(len(l.Order))
	return l
}

// NumBuckets is the bucket count a table of n entries is emitted with.
func NumBuckets(n int) int {
	t := 1
	if n > 2 {
		for t < n*4/3+1 {
			t <<= 1
		}
	}
	return t
}

// InsertionOrder inverts New: given the hashes of a table's items in
// on-disk order (bucket by bucket, head first), it returns an order of
// those items (indexes into hashes) whose insertion reproduces the layout.
//
// Items that share a final bucket also shared a bucket at every earlier
// size, so each bucket can be undone on its own. Let e_j be a bucket's items
// inserted between the j-th and (j+1)-th growth. Head insertion and the
// reversal at each growth give the final list
// L_k = rev(e_k) + L_{k-2} + e_{k-1} (L_0 = rev(e_0)), so for any split of
// the bucket's items into epoch counts the list can be parsed back. The
// counts are chosen so that every epoch has its global size. Without growth
// but with a final shrink (fewer than 47 entries), on-disk order is already
// such an order.
func InsertionOrder(hashes []uint64) []int {
	n := len(hashes)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	size := 64
	starts := []int{0}
	for i := 1; i <= n; i++ {
		if 4*i >= 3*size {
			size *= 2
			starts = append(starts, i-1)
		}
	}
	t := NumBuckets(n)
	if t != size {
		return order
	}
	k := len(starts) - 1
	capacity := make([]int, k+1)
	for j := range capacity {
		end := n
		if j < k {
			end = starts[j+1]
		}
		capacity[j] = end - starts[j]
	}
	epochs := make([][]int, k+1)
	var parse func(l []int, j int, counts []int)
	parse = func(l []int, j int, counts []int) {
		switch {
		case j < 0:
			return
		case j == 0:
			for i := len(l) - 1; i >= 0; i-- {
				epochs[0] = append(epochs[0], l[i])
			}
			return
		}
		head, tail := counts[j], counts[j-1]
		for i := head - 1; i >= 0; i-- {
			epochs[j] = append(epochs[j], l[i])
		}
		epochs[j-1] = append(epochs[j-1], l[len(l)-tail:]...)
		parse(l[head:len(l)-tail], j-2, counts)
	}
	for i := 0; i < n; {
		b := hashes[i] & uint64(t-1)
		j := i
		for j < n && hashes[j]&uint64(t-1) == b {
			j++
		}
		counts := make([]int, k+1)
		rem := j - i
		for e := 0; e <= k && rem > 0; e++ {
			c := min(rem, capacity[e])
			counts[e] = c
			capacity[e] -= c
			rem -= c
		}
		if rem != 0 {
			return order // not a layout this generator produces
		}
		parse(order[i:j], k, counts)
		i = j
	}
	order = order[:0]
	for _, e := range epochs {
		order = append(order, e...)
	}
	return order
}
