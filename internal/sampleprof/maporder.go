package sampleprof

// InMapOrder says that Funcs are in the insertion order of the one
// std::unordered_map the profile was built in (llvm-profgen's ProfileMap,
// for instance): the FuncMetadata section then lists them as that map
// iterates them.
func (p *Profile) InMapOrder() { p.merged = true }

// StdUnorderedOrder returns the order in which a libstdc++
// std::unordered_map with the identity hash (integer or pointer keys)
// iterates keys inserted in the given order: indexes into keys, which must
// be distinct.
func StdUnorderedOrder(keys []uint64) []int {
	t := newStdTable()
	for _, k := range keys {
		t.insert(k)
	}
	return t.order()
}

// StdUnorderedStringOrder is StdUnorderedOrder for std::string keys
// (std::hash<std::string>): the order in which a libstdc++
// std::unordered_map<std::string, T> iterates distinct keys inserted in
// the given order.
func StdUnorderedStringOrder(keys []string) []int {
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		hashes[i] = stdHashBytes([]byte(k))
	}
	return StdUnorderedOrder(hashes)
}
