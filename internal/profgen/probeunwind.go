package profgen

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// probeCounter is the counter of an address stack of a probe binary
// (collectSamplesFromFrame's key there, AddressStack::getContextKey: the
// call addresses, recursion compressed, trimmed to the smaller of
// --csprof-max-context-depth and --csprof-max-unsymbolized-context-depth
// when either is set). collectFrame
// caches it per address stack; WasLeafInlined stays false.
func (u *Unwinder) probeCounter(stack []uint64) *ContextCounter {
	addrs := compressRecursion(append([]uint64(nil), stack...), u.opts.MaxCompressionSize)
	depth := u.opts.MaxContextDepth
	if depth == -1 {
		depth = len(addrs)
	}
	if d := u.opts.MaxUnsymbolizedContextDepth; d != -1 {
		depth = min(d, depth)
	}
	addrs = trimContext(addrs, depth)
	b := make([]byte, 0, 8*len(addrs))
	for _, a := range addrs {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	c := u.byKey[string(b)]
	if c == nil {
		c = &ContextCounter{Addrs: addrs}
		u.byKey[string(b)] = c
	}
	return c
}

// writeProbeUnsymbolized writes the counters of a probe binary as
// llvm-profgen --skip-symbolization does: each context as its call
// addresses ("0x" offsets from base joined by " @ "), in ascending order
// of those strings.
func (cs *CSCounters) writeProbeUnsymbolized(w *bufio.Writer, base uint64) error {
	type keyed struct {
		key string
		c   *ContextCounter
	}
	list := make([]keyed, len(cs.Counters))
	for i, c := range cs.Counters {
		parts := make([]string, len(c.Addrs))
		for j, a := range c.Addrs {
			parts[j] = "0x" + strconv.FormatUint(a-base, 16)
		}
		list[i] = keyed{strings.Join(parts, " @ "), c}
	}
	slices.SortStableFunc(list, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	for _, k := range list {
		w.WriteString("[" + k.key + "]\n")
		writeIndented(w, k.c.Ranges, "-", base)
		writeIndented(w, k.c.Branches, "->", base)
	}
	return w.Flush()
}
