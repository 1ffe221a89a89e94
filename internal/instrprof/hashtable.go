package instrprof

// This file emulates llvm::OnDiskChainedHashTableGenerator
// (llvm/Support/OnDiskHashTable.h), whose bucket layout depends on the
// insertion order: 64 initial buckets, doubling when 4*entries >= 3*buckets,
// items pushed at the head of their bucket, resizes walking each old bucket
// head to tail (which reverses items that stay together), and a final resize
// to bit_ceil(entries*4/3+1) buckets (1 when entries <= 2) before emitting.

// odLayout is a table's bucket layout: bucket b holds the items (indexes
// into the hashes given to newODLayout) order[start[b]:start[b+1]], head
// first.
type odLayout struct {
	start []int32
	order []int32
}

func (l *odLayout) numBuckets() int { return len(l.start) - 1 }

func (l *odLayout) bucket(b int) []int32 { return l.order[l.start[b]:l.start[b+1]] }

// newODLayout inserts items with the given hashes, in order, into an
// emulated generator. Buckets are linked lists threaded through next.
func newODLayout(hashes []uint64) odLayout {
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
	if t := odTarget(len(hashes)); t != len(heads) {
		resize(t)
	}
	l := odLayout{start: make([]int32, len(heads)+1), order: make([]int32, 0, len(hashes))}
	for b, i := range heads {
		l.start[b] = int32(len(l.order))
		for ; i >= 0; i = next[i] {
			l.order = append(l.order, i)
		}
	}
	l.start[len(heads)] = int32(len(l.order))
	return l
}

// table is an OnDiskChainedHashTable ready to write: item i has hash
// hashes[i] and a body (the trait's lengths, key and data) that the
// writer's put fills. On disk each non-empty bucket holds its u16 item
// count and then, per item, the u64 hash and the body; the bucket array
// (u64 NumBuckets, u64 NumEntries, u64 offset per bucket, 0 if empty)
// follows at the next multiple of 8.
type table struct {
	layout odLayout
	hashes []uint64
	sizes  []int    // per on-disk position: bucket count (first item only), hash, body
	heads  []uint16 // per on-disk position: the bucket's item count if first in it, else 0
}

// newTable lays out items with the given hashes and body sizes.
func newTable(hashes []uint64, bodySize func(i int) int) *table {
	t := &table{layout: newODLayout(hashes), hashes: hashes}
	t.sizes = make([]int, len(hashes))
	t.heads = make([]uint16, len(hashes))
	for b := range t.layout.numBuckets() {
		lo := int(t.layout.start[b])
		for k, i := range t.layout.bucket(b) {
			t.sizes[lo+k] = 8 + bodySize(int(i))
		}
		if n := t.layout.start[b+1] - t.layout.start[b]; n > 0 {
			t.sizes[lo] += 2
			t.heads[lo] = uint16(n)
		}
	}
	return t
}

// table writes t, and the offset of its bucket array at at (see
// output.at); put(b, i) fills item i's body b, possibly on several
// goroutines at once.
func (o *output) table(t *table, put func(b []byte, i int), at *uint64) {
	start := o.off
	o.items(t.sizes, func(b []byte, k int) {
		if n := t.heads[k]; n != 0 {
			le.PutUint16(b, n)
			b = b[2:]
		}
		i := t.layout.order[k]
		le.PutUint64(b, t.hashes[i])
		put(b[8:], int(i))
	})
	o.pad8()
	o.at(at)
	nb := t.layout.numBuckets()
	o.u64(uint64(nb))
	o.u64(uint64(len(t.hashes)))
	if o.count {
		o.off += 8 * nb
		return
	}
	offsets := make([]uint64, nb)
	pos := start
	for b := range offsets {
		lo, hi := t.layout.start[b], t.layout.start[b+1]
		if lo == hi {
			continue
		}
		offsets[b] = uint64(pos)
		for _, n := range t.sizes[lo:hi] {
			pos += n
		}
	}
	o.u64s(offsets)
}

// odTarget is the bucket count a table of n entries is emitted with.
func odTarget(n int) int {
	t := 1
	if n > 2 {
		for t < n*4/3+1 {
			t <<= 1
		}
	}
	return t
}

// odInsertionOrder inverts odLayout: given the hashes of a table's items in
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
func odInsertionOrder(hashes []uint64) []int {
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
	t := odTarget(n)
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
