// Package stringmap reproduces the iteration order of LLVM 16's
// llvm::StringMap (llvm/lib/Support/StringMap.cpp): llvm-profdata 16's
// writer walks the function names in that order, so it is part of the
// indexed profile's bytes. The layout: 16 buckets at the first insertion,
// djbHash(name, 0), quadratic probing, doubling once more than 3/4 full,
// rehashing in old bucket order; iteration visits the buckets in index
// order. LLVM 17 changed the hash to xxh3 (not emulated: no supported
// release has it); from LLVM 18 on the writer sorts the names.
package stringmap

// Order returns keys (distinct) in the iteration order of an LLVM 16
// llvm::StringMap after inserting them in that order.
func Order(keys []string) []string {
	type bucket struct {
		used bool
		hash uint32
		name string
	}
	djb := func(s string) uint32 {
		h := uint32(0)
		for i := 0; i < len(s); i++ {
			h = h*33 + uint32(s[i])
		}
		return h
	}
	place := func(tab []bucket, h uint32) int {
		mask := uint32(len(tab) - 1)
		b, probe := h&mask, uint32(1)
		for tab[b].used {
			b = (b + probe) & mask
			probe++
		}
		return int(b)
	}
	tab := make([]bucket, 16)
	items := 0
	for _, n := range keys {
		h := djb(n)
		tab[place(tab, h)] = bucket{true, h, n}
		items++
		if items*4 > len(tab)*3 {
			nt := make([]bucket, 2*len(tab))
			for _, b := range tab {
				if b.used {
					nt[place(nt, b.hash)] = b
				}
			}
			tab = nt
		}
	}
	out := make([]string, 0, items)
	for _, b := range tab {
		if b.used {
			out = append(out, b.name)
		}
	}
	return out
}
