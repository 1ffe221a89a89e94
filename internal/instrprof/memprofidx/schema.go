package memprofidx

import (
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The MemInfoBlock fields (tags, names, widths, which release knows which)
// come from memprof's field table; a schema is a list of their tags.

// HotColdSchema is the schema llvm-profdata 19+ writes for V2+ by default.
var HotColdSchema = []memprof.Meta{
	memprof.MetaAllocCount, memprof.MetaTotalSize, memprof.MetaTotalLifetime,
	memprof.MetaTotalLifetimeAccessDensity,
}

// SchemaSize is the size of a serialized MIB of schema.
func SchemaSize(schema []memprof.Meta) int {
	n := 0
	for _, m := range schema {
		n += m.Width()
	}
	return n
}
