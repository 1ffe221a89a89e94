package profgen

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// collectProbeFrame is collectSamplesFromFrame for probe binaries: the
// frame's samples go to the counter of its call-address stack
// (AddressStack::getContextKey: recursion compressed, depth trimmed).
func (u *Unwinder) collectProbeFrame(f *trieFrame, stack []uint64, out map[string]*ContextCounter) {
	addrs := compressRecursion(append([]uint64(nil), stack...), u.opts.MaxCompressionSize)
	addrs = trimContext(addrs, u.opts.MaxContextDepth)
	b := make([]byte, 0, 8*len(addrs))
	for _, a := range addrs {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	c := out[string(b)]
	if c == nil {
		c = &ContextCounter{Addrs: addrs, Ranges: map[[2]uint64]uint64{}, Branches: map[[2]uint64]uint64{}}
		out[string(b)] = c
	}
	for _, r := range f.ranges {
		c.Ranges[[2]uint64{r[0], r[1]}] += r[2]
	}
	for _, br := range f.branches {
		c.Branches[[2]uint64{br[0], br[1]}] += br[2]
	}
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
