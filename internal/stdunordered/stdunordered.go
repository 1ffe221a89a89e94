// Package stdunordered is std::unordered_map as libstdc++ implements it
// (_Hashtable with _Prime_rehash_policy, std::hash), so that the order in
// which LLVM's tools, built with GCC's standard library, iterate such a map
// can be reproduced: llvm-profdata's and llvm-profgen's SampleProfileMap
// (the FuncMetadata section order) and the maps llvm-profgen walks when it
// prints warnings. Its siblings are internal/densemap (llvm::DenseMap) and
// internal/stdheap (std::priority_queue).
//
// With libstdc++ (what Debian's and most Linux LLVM builds use) the
// iteration order follows from the insertion order and the keys alone:
// std::hash of an integer is the identity, buckets are key mod a prime
// bucket count, and the nodes form one list. Table reproduces that list.
package stdunordered

import (
	"encoding/binary"
	"math"
	"slices"
)

// HashBytes is libstdc++'s std::hash<std::string> on 64-bit hosts
// (_Hash_bytes with seed 0xc70f6907, a MurmurHash64A variant).
func HashBytes(b []byte) uint64 {
	const mul = 0xc6a4a7935bd1e995
	mix := func(v uint64) uint64 { return v ^ v>>47 }
	n := len(b)
	h := 0xc70f6907 ^ uint64(n)*mul
	i := 0
	for ; i+8 <= n; i += 8 {
		h ^= mix(binary.LittleEndian.Uint64(b[i:])*mul) * mul
		h *= mul
	}
	if i < n {
		var tail uint64
		for j := n - 1; j >= i; j-- {
			tail = tail<<8 | uint64(b[j])
		}
		h ^= tail
		h *= mul
	}
	return mix(mix(h) * mul)
}

// Table is a libstdc++ _Hashtable with unique uint64 keys (the hash codes
// of the map's keys): a singly
// linked list of nodes (next, -1 at the end) and, per bucket, the node
// before the bucket's first node (beforeBegin for the bucket owning the
// list's front, -1 for an empty bucket).
type Table struct {
	keys       []uint64 // by node; erased nodes stay, unlinked
	next       []int32
	head       int32 // _M_before_begin._M_nxt
	buckets    []int32
	nextResize uint64
	count      int // nodes in the table
}

const beforeBegin = -2

// New returns an empty table with room for capacity nodes (a hint only:
// the bucket count grows as libstdc++'s does, from one bucket).
func New(capacity int) *Table {
	return &Table{head: -1, buckets: []int32{-1}, keys: make([]uint64, 0, capacity), next: make([]int32, 0, capacity)}
}

// Len returns the number of nodes in the table.
func (t *Table) Len() int { return t.count }

// nextBucketCount is _Prime_rehash_policy::_M_next_bkt.
func (t *Table) nextBucketCount(n uint64) uint64 {
	fast := [...]uint64{2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13}
	if n < uint64(len(fast)) {
		if n == 0 {
			return 1
		}
		t.nextResize = uint64(math.Floor(float64(fast[n])))
		return fast[n]
	}
	last := len(stdPrimes) - 1
	i, _ := slices.BinarySearch(stdPrimes[:last], n)
	if i == last {
		t.nextResize = math.MaxUint64
	} else {
		t.nextResize = uint64(math.Floor(float64(stdPrimes[i])))
	}
	return stdPrimes[i]
}

// needRehash is _Prime_rehash_policy::_M_need_rehash for one insertion.
func (t *Table) needRehash() (uint64, bool) {
	nElt := uint64(t.count)
	nBkt := uint64(len(t.buckets))
	if nElt+1 <= t.nextResize {
		return 0, false
	}
	m := nElt + 1
	if t.nextResize == 0 {
		m = max(m, 11)
	}
	minBkts := float64(m)
	if minBkts >= float64(nBkt) {
		return t.nextBucketCount(max(uint64(math.Floor(minBkts))+1, nBkt*2)), true
	}
	t.nextResize = uint64(math.Floor(float64(nBkt)))
	return 0, false
}

func (t *Table) rehash(n uint64) {
	nb := make([]int32, n)
	for i := range nb {
		nb[i] = -1
	}
	p := t.head
	t.head = -1
	var bbeginBkt uint64
	for p >= 0 {
		next := t.next[p]
		b := t.keys[p] % n
		if nb[b] == -1 {
			t.next[p] = t.head
			t.head = p
			nb[b] = beforeBegin
			if t.next[p] >= 0 {
				nb[bbeginBkt] = p
			}
			bbeginBkt = b
		} else {
			t.next[p] = t.nextOf(nb[b])
			t.setNext(nb[b], p)
		}
		p = next
	}
	t.buckets = nb
}

func (t *Table) nextOf(n int32) int32 {
	if n == beforeBegin {
		return t.head
	}
	return t.next[n]
}

func (t *Table) setNext(n, to int32) {
	if n == beforeBegin {
		t.head = to
	} else {
		t.next[n] = to
	}
}

// Insert adds a key that is not in the table yet and returns its node:
// nodes are numbered from 0 in insertion order.
func (t *Table) Insert(key uint64) int32 {
	if n, ok := t.needRehash(); ok {
		t.rehash(n)
	}
	node := int32(len(t.keys))
	t.keys = append(t.keys, key)
	t.next = append(t.next, -1)
	t.count++
	b := key % uint64(len(t.buckets))
	if t.buckets[b] != -1 {
		t.next[node] = t.nextOf(t.buckets[b])
		t.setNext(t.buckets[b], node)
		return node
	}
	t.next[node] = t.head
	t.head = node
	if t.next[node] >= 0 {
		t.buckets[t.keys[t.next[node]]%uint64(len(t.buckets))] = node
	}
	t.buckets[b] = beforeBegin
	return node
}

// Erase unlinks a node of the table (_Hashtable::_M_erase).
func (t *Table) Erase(node int32) {
	n := uint64(len(t.buckets))
	b := t.keys[node] % n
	prev := t.buckets[b]
	for t.nextOf(prev) != node {
		prev = t.nextOf(prev)
	}
	next := t.next[node]
	if prev == t.buckets[b] {
		// node begins its bucket: the bucket may be empty now.
		if next < 0 || t.keys[next]%n != b {
			if next >= 0 {
				t.buckets[t.keys[next]%n] = t.buckets[b]
			}
			t.buckets[b] = -1
		}
	} else if next >= 0 && t.keys[next]%n != b {
		t.buckets[t.keys[next]%n] = prev
	}
	t.setNext(prev, next)
	t.next[node] = -1
	t.count--
}

// Order returns the nodes (their insertion indexes) in iteration order.
func (t *Table) Order() []int {
	out := make([]int, 0, len(t.keys))
	for p := t.head; p >= 0; p = t.next[p] {
		out = append(out, int(p))
	}
	return out
}

// Find returns the node of key, or -1.
func (t *Table) Find(key uint64) int32 {
	n := uint64(len(t.buckets))
	b := key % n
	if t.buckets[b] == -1 {
		return -1
	}
	for p := t.nextOf(t.buckets[b]); p >= 0 && t.keys[p]%n == b; p = t.next[p] {
		if t.keys[p] == key {
			return p
		}
	}
	return -1
}

// Order returns the order in which a libstdc++ std::unordered_map with the
// identity hash (integer or pointer keys) iterates keys inserted in the
// given order: indexes into keys, which must be distinct.
func Order(keys []uint64) []int {
	t := New(len(keys))
	for _, k := range keys {
		t.Insert(k)
	}
	return t.Order()
}

// StringOrder is Order for std::string keys (std::hash<std::string>): the
// order in which a libstdc++ std::unordered_map<std::string, T> iterates
// distinct keys inserted in the given order.
func StringOrder(keys []string) []int {
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		hashes[i] = HashBytes([]byte(k))
	}
	return Order(hashes)
}
