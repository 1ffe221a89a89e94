package instrprof

import "encoding/binary"

// This file emulates llvm::OnDiskChainedHashTableGenerator
// (llvm/Support/OnDiskHashTable.h), whose bucket layout depends on the
// insertion order: 64 initial buckets, doubling when 4*entries >= 3*buckets,
// items pushed at the head of their bucket, resizes walking each old bucket
// head to tail (which reverses items that stay together), and a final resize
// to bit_ceil(entries*4/3+1) buckets (1 when entries <= 2) before emitting.

// odItem is one table entry: the u64 hash and everything the trait writes
// after it (lengths, key, data).
type odItem struct {
	hash uint64
	body []byte
}

// odLayout returns the item indexes of each bucket, head first.
func odLayout(items []odItem) [][]int {
	// Each bucket is stored tail first, so pushing at the head is an append.
	n := 64
	buckets := make([][]int, n)
	resize := func(m int) {
		nb := make([][]int, m)
		for _, b := range buckets {
			for i := len(b) - 1; i >= 0; i-- { // head to tail
				h := items[b[i]].hash & uint64(m-1)
				nb[h] = append(nb[h], b[i])
			}
		}
		buckets, n = nb, m
	}
	for i, it := range items {
		if 4*(i+1) >= 3*n {
			resize(2 * n)
		}
		h := it.hash & uint64(n-1)
		buckets[h] = append(buckets[h], i)
	}
	target := 1
	if len(items) > 2 {
		for target < len(items)*4/3+1 {
			target <<= 1
		}
	}
	if target != n {
		resize(target)
	}
	for _, b := range buckets {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
	return buckets
}

// emitTable appends the table's payload and bucket array to buf (whose
// length is the absolute file offset) and returns the buffer and the offset
// of the bucket array header (NumBuckets).
func emitTable(buf []byte, items []odItem) ([]byte, uint64) {
	buckets := odLayout(items)
	offsets := make([]uint64, len(buckets))
	for bi, b := range buckets {
		if len(b) == 0 {
			continue
		}
		offsets[bi] = uint64(len(buf))
		buf = binary.LittleEndian.AppendUint16(buf, uint16(len(b)))
		for _, i := range b {
			buf = binary.LittleEndian.AppendUint64(buf, items[i].hash)
			buf = append(buf, items[i].body...)
		}
	}
	buf = pad8(buf)
	tableOff := uint64(len(buf))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(buckets)))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(items)))
	for _, o := range offsets {
		buf = binary.LittleEndian.AppendUint64(buf, o)
	}
	return buf, tableOff
}

func pad8(buf []byte) []byte {
	for len(buf)%8 != 0 {
		buf = append(buf, 0)
	}
	return buf
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
