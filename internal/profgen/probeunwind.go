package profgen

import "encoding/binary"

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
