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

var metaNames = [...]string{
	"",
	"AllocCount", "TotalAccessCount", "MinAccessCount", "MaxAccessCount",
	"TotalSize", "MinSize", "MaxSize", "AllocTimestamp", "DeallocTimestamp",
	"TotalLifetime", "MinLifetime", "MaxLifetime", "AllocCpuId", "DeallocCpuId",
	"NumMigratedCpu", "NumLifetimeOverlaps", "NumSameAllocCpu",
	"NumSameDeallocCpu", "DataTypeId", "TotalAccessDensity", "MinAccessDensity",
	"MaxAccessDensity", "TotalLifetimeAccessDensity", "MinLifetimeAccessDensity",
	"MaxLifetimeAccessDensity", "AccessHistogramSize", "AccessHistogram",
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
	return metaNames[m]
}

func schemaSize(schema []memprof.Meta) int {
	n := 0
	for _, m := range schema {
		n += metaWidth[m]
	}
	return n
}

// metaGet returns the value of field m of b, widened to u64.
// AccessHistogram is written as stored in the model (see Write).
func metaGet(b *memprof.MemInfoBlock, m memprof.Meta) uint64 {
	switch m {
	case memprof.MetaAllocCount:
		return uint64(b.AllocCount)
	case memprof.MetaTotalAccessCount:
		return b.TotalAccessCount
	case memprof.MetaMinAccessCount:
		return b.MinAccessCount
	case memprof.MetaMaxAccessCount:
		return b.MaxAccessCount
	case memprof.MetaTotalSize:
		return b.TotalSize
	case memprof.MetaMinSize:
		return uint64(b.MinSize)
	case memprof.MetaMaxSize:
		return uint64(b.MaxSize)
	case memprof.MetaAllocTimestamp:
		return uint64(b.AllocTimestamp)
	case memprof.MetaDeallocTimestamp:
		return uint64(b.DeallocTimestamp)
	case memprof.MetaTotalLifetime:
		return b.TotalLifetime
	case memprof.MetaMinLifetime:
		return uint64(b.MinLifetime)
	case memprof.MetaMaxLifetime:
		return uint64(b.MaxLifetime)
	case memprof.MetaAllocCpuId:
		return uint64(b.AllocCpuId)
	case memprof.MetaDeallocCpuId:
		return uint64(b.DeallocCpuId)
	case memprof.MetaNumMigratedCpu:
		return uint64(b.NumMigratedCpu)
	case memprof.MetaNumLifetimeOverlaps:
		return uint64(b.NumLifetimeOverlaps)
	case memprof.MetaNumSameAllocCpu:
		return uint64(b.NumSameAllocCpu)
	case memprof.MetaNumSameDeallocCpu:
		return uint64(b.NumSameDeallocCpu)
	case memprof.MetaDataTypeId:
		return b.DataTypeId
	case memprof.MetaTotalAccessDensity:
		return b.TotalAccessDensity
	case memprof.MetaMinAccessDensity:
		return uint64(b.MinAccessDensity)
	case memprof.MetaMaxAccessDensity:
		return uint64(b.MaxAccessDensity)
	case memprof.MetaTotalLifetimeAccessDensity:
		return b.TotalLifetimeAccessDensity
	case memprof.MetaMinLifetimeAccessDensity:
		return uint64(b.MinLifetimeAccessDensity)
	case memprof.MetaMaxLifetimeAccessDensity:
		return uint64(b.MaxLifetimeAccessDensity)
	case memprof.MetaAccessHistogramSize:
		return uint64(b.AccessHistogramSize)
	case memprof.MetaAccessHistogram:
		return b.AccessHistogram
	}
	return 0
}

// metaSet stores v into field m of b, truncating to the field's width.
func metaSet(b *memprof.MemInfoBlock, m memprof.Meta, v uint64) {
	switch m {
	case memprof.MetaAllocCount:
		b.AllocCount = uint32(v)
	case memprof.MetaTotalAccessCount:
		b.TotalAccessCount = v
	case memprof.MetaMinAccessCount:
		b.MinAccessCount = v
	case memprof.MetaMaxAccessCount:
		b.MaxAccessCount = v
	case memprof.MetaTotalSize:
		b.TotalSize = v
	case memprof.MetaMinSize:
		b.MinSize = uint32(v)
	case memprof.MetaMaxSize:
		b.MaxSize = uint32(v)
	case memprof.MetaAllocTimestamp:
		b.AllocTimestamp = uint32(v)
	case memprof.MetaDeallocTimestamp:
		b.DeallocTimestamp = uint32(v)
	case memprof.MetaTotalLifetime:
		b.TotalLifetime = v
	case memprof.MetaMinLifetime:
		b.MinLifetime = uint32(v)
	case memprof.MetaMaxLifetime:
		b.MaxLifetime = uint32(v)
	case memprof.MetaAllocCpuId:
		b.AllocCpuId = uint32(v)
	case memprof.MetaDeallocCpuId:
		b.DeallocCpuId = uint32(v)
	case memprof.MetaNumMigratedCpu:
		b.NumMigratedCpu = uint32(v)
	case memprof.MetaNumLifetimeOverlaps:
		b.NumLifetimeOverlaps = uint32(v)
	case memprof.MetaNumSameAllocCpu:
		b.NumSameAllocCpu = uint32(v)
	case memprof.MetaNumSameDeallocCpu:
		b.NumSameDeallocCpu = uint32(v)
	case memprof.MetaDataTypeId:
		b.DataTypeId = v
	case memprof.MetaTotalAccessDensity:
		b.TotalAccessDensity = v
	case memprof.MetaMinAccessDensity:
		b.MinAccessDensity = uint32(v)
	case memprof.MetaMaxAccessDensity:
		b.MaxAccessDensity = uint32(v)
	case memprof.MetaTotalLifetimeAccessDensity:
		b.TotalLifetimeAccessDensity = v
	case memprof.MetaMinLifetimeAccessDensity:
		b.MinLifetimeAccessDensity = uint32(v)
	case memprof.MetaMaxLifetimeAccessDensity:
		b.MaxLifetimeAccessDensity = uint32(v)
	case memprof.MetaAccessHistogramSize:
		b.AccessHistogramSize = uint32(v)
	case memprof.MetaAccessHistogram:
		b.AccessHistogram = v
	}
}

// appendMIB serializes b as a PortableMemInfoBlock: the schema's fields in
// schema order, each at its natural width.
func appendMIB(buf []byte, schema []memprof.Meta, b *memprof.MemInfoBlock) []byte {
	for _, m := range schema {
		v := metaGet(b, m)
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
