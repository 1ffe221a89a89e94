package perfscript

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
)

// WriteUnsymbolized writes the profile as llvm-profgen --skip-symbolization
// writes it: the number of ranges, "START-END:COUNT" lines, the number of
// branches, "SRC->DST:COUNT" lines, each sorted by (first, second), hex
// addresses without 0x as offsets from base (llvm-profgen's --use-offset:
// the preferred base; FirstLoadableAddress with
// --use-first-loadable-segment-as-base; 0 with --use-offset=0). Offsets
// wrap like uint64_t: ExternalAddr is printed as 1 − base.
func (p *Profile) WriteUnsymbolized(w io.Writer, base uint64) error {
	bw := bufio.NewWriter(w)
	writeCounter(bw, p.Ranges, "-", base)
	writeCounter(bw, p.Branches, "->", base)
	return bw.Flush()
}

func writeCounter(w *bufio.Writer, m map[Branch]uint64, sep string, base uint64) {
	keys := make([]Branch, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Branch) int {
		if c := cmp.Compare(a.Source, b.Source); c != 0 {
			return c
		}
		return cmp.Compare(a.Target, b.Target)
	})
	var buf []byte
	buf = strconv.AppendInt(buf, int64(len(keys)), 10)
	buf = append(buf, '\n')
	for _, k := range keys {
		buf = strconv.AppendUint(buf, k.Source-base, 16)
		buf = append(buf, sep...)
		buf = strconv.AppendUint(buf, k.Target-base, 16)
		buf = append(buf, ':')
		buf = strconv.AppendUint(buf, m[k], 10)
		buf = append(buf, '\n')
		if len(buf) > 1<<15 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
	w.Write(buf)
}
