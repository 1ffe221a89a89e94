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
