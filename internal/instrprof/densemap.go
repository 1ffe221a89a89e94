package instrprof

// This file emulates the iteration order of llvm::DenseMap<uint64_t, T>,
// which llvm-profdata up to LLVM 19 used to hand frames and call stacks to
// the writer; the V0–V2 frame and call-stack tables are filled in that order.
// DenseMap is open addressing over a power-of-two bucket array (at least 64)
// with quadratic probing; it grows to twice its size before an insertion
// that would make it 3/4 full, reinserting live keys in bucket order.

const (
	denseEmpty     = ^uint64(0)
	denseTombstone = ^uint64(0) - 1
)

// denseHash returns DenseMapInfo<uint64_t>::getHashValue of the release:
// key*37 up to LLVM 18, the splitmix-style mix from LLVM 19 (PR #95734).
func denseHash(release int, k uint64) uint32 {
	if release <= 18 {
		return uint32(k * 37)
	}
	x := k * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint32(x)
}

// denseOrder inserts keys (insert-if-absent, no erasure) into an emulated
// DenseMap and returns its iteration order as indexes into keys (of each
// key's first occurrence).
func denseOrder(release int, keys []uint64) []int32 {
	var table []int32 // index into keys + 1; 0 is the empty bucket
	entries := 0
	lookup := func(t []int32, k uint64) int {
		mask := uint32(len(t) - 1)
		b := denseHash(release, k) & mask
		for step := uint32(1); ; step++ {
			if t[b] == 0 || keys[t[b]-1] == k {
				return int(b)
			}
			b = (b + step) & mask
		}
	}
	grow := func(atLeast int) {
		n := 64
		for n < atLeast {
			n <<= 1
		}
		nt := make([]int32, n)
		for _, e := range table {
			if e != 0 {
				nt[lookup(nt, keys[e-1])] = e
			}
		}
		table = nt
	}
	for i, k := range keys {
		if k == denseEmpty || k == denseTombstone {
			continue // LLVM asserts on these; they cannot occur as hashes in practice
		}
		if len(table) > 0 {
			if table[lookup(table, k)] != 0 {
				continue
			}
		}
		if (entries+1)*4 >= len(table)*3 {
			grow(2 * len(table))
		}
		table[lookup(table, k)] = int32(i) + 1
		entries++
	}
	out := make([]int32, 0, entries)
	for _, e := range table {
		if e != 0 {
			out = append(out, e-1)
		}
	}
	return out
}
