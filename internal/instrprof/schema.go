package instrprof

import (
	"encoding/binary"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// metaWidth is the on-disk width in bytes of each MemInfoBlock field, by tag
// (MIBEntryDef.inc); index 0 is unused.
var metaWidth = [...]int{
	0,
	4, 8, 8, 8, 8, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 4, 8, // 1..19
	8, 4, 4, 8, 4, 4, // 20..25
	4, 8, // 26..27
}

// maxMeta is the last MemInfoBlock tag this package knows (LLVM 19+).
const maxMeta = memprof.MetaAccessHistogram

// HotColdSchema is the schema llvm-profdata 19+ writes for V2+ by default.
var HotColdSchema = []memprof.Meta{
	memprof.MetaAllocCount, memprof.MetaTotalSize, memprof.MetaTotalLifetime,
	memprof.MetaTotalLifetimeAccessDensity,
}

// FullSchema returns every MemInfoBlock tag the release knows, in order:
// 1..25 for LLVM 16–18, 1..27 for LLVM 19+.
func FullSchema(release int) []memprof.Meta {
	last := memprof.MetaMaxLifetimeAccessDensity
	if release >= 19 {
		last = memprof.MetaAccessHistogram
	}
	s := make([]memprof.Meta, 0, last)
	for m := memprof.Meta(1); m <= last; m++ {
		s = append(s, m)
	}
	return s
}

// MetaName returns the MIBEntryDef name of a tag, or "" if unknown.
func MetaName(m memprof.Meta) string {
	if m == 0 || m > maxMeta {
		return ""
	}
	return m.String()
}

func schemaSize(schema []memprof.Meta) int {
	n := 0
	for _, m := range schema {
		n += metaWidth[m]
	}
	return n
}

// appendMIB serializes b as a PortableMemInfoBlock: the schema's fields in
// schema order, each at its natural width.
func appendMIB(buf []byte, schema []memprof.Meta, b *memprof.MemInfoBlock) []byte {
	for _, m := range schema {
		v := b.Field(m)
		if m == memprof.MetaAccessHistogram {
			v = 0 // see WriteOptions: the pointer LLVM writes is meaningless
		}
		if metaWidth[m] == 4 {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
		} else {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
	}
	return buf
}
