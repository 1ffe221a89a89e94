package memprofidx

import (
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// MIBWriter serializes MemInfoBlocks as PortableMemInfoBlocks of a schema:
// its fields in schema order, each at its natural width. The schemas
// llvm-profdata writes (a full schema, tags 1..n, a prefix of memprof's
// packed layout, and the hot/cold four) have straight-line encoders; any
// other schema goes field by field.
type MIBWriter struct {
	schema []memprof.Meta
	Size   int
	kind   int
}

const (
	mibGeneric = iota
	mibPrefix  // tags 1..len(schema)
	mibHotCold // HotColdSchema
)

// NewMIBWriter returns the writer of MIBs in schema; each takes Size bytes.
func NewMIBWriter(schema []memprof.Meta) MIBWriter {
	w := MIBWriter{schema: schema, Size: SchemaSize(schema), kind: mibPrefix}
	for i, m := range schema {
		if m != memprof.Meta(i+1) || !m.Valid() {
			w.kind = mibGeneric
		}
	}
	if slices.Equal(schema, HotColdSchema) {
		w.kind = mibHotCold
	}
	return w
}

// Put fills b (len w.Size) with m.
func (w *MIBWriter) Put(b []byte, m *memprof.MemInfoBlock) {
	switch w.kind {
	case mibHotCold:
		b = b[:28]
		le.PutUint32(b, m.AllocCount)
		le.PutUint64(b[4:], m.TotalSize)
		le.PutUint64(b[12:], m.TotalLifetime)
		le.PutUint64(b[20:], m.TotalLifetimeAccessDensity)
	case mibPrefix:
		var t [memprof.PackedMIBSize]byte
		m.PutPacked(&t)
		clear(t[accessHistogramOff : accessHistogramOff+8]) // see WriteOptions: the pointer LLVM writes is meaningless
		copy(b, t[:w.Size])
	default:
		n := 0
		for _, f := range w.schema {
			v := m.Field(f)
			if f == memprof.MetaAccessHistogram {
				v = 0 // see WriteOptions
			}
			if f.Width() == 4 {
				le.PutUint32(b[n:], uint32(v))
			} else {
				le.PutUint64(b[n:], v)
			}
			n += f.Width()
		}
	}
}

// accessHistogramOff is where the AccessHistogram pointer lies in a packed
// MemInfoBlock.
var accessHistogramOff = memprof.MetaAccessHistogram.PackedOffset()
