package memprof

import (
	"fmt"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

//go:generate go test -run ^TestMIBGenerated$ -update-mib

// mibFields is the one list of the MemInfoBlock fields (LLVM's
// MIBEntryDef.inc and the runtime's packed MemInfoBlock in
// MemProfData.inc). Everything else about the fields is derived from it:
//
//   - mib_gen.go, written from this table by TestMIBGenerated (run `go
//     generate` after changing it; the test fails while the file is stale):
//     the Meta constants, the MemInfoBlock struct, Field, SetField, the
//     packed encoder and decoder, and the sum/min/max part of Merge;
//   - at run time: names (Meta.String), widths, packed offsets, the raw MIB
//     size of each raw version, the fields an LLVM release knows.
//
// Rows are in tag order (Meta = row + 1). The raw layout of every raw
// version is a prefix of the packed layout, so a field's raw version can
// only grow down the table (TestMIBTable checks both).
var mibFields = [...]mibField{
	{1, "AllocCount", 4, 1, mergeSum, ""},
	{2, "TotalAccessCount", 8, 1, mergeSum, ""},
	{3, "MinAccessCount", 8, 1, mergeMin, ""},
	{4, "MaxAccessCount", 8, 1, mergeMax, ""},
	{5, "TotalSize", 8, 1, mergeSum, ""},
	{6, "MinSize", 4, 1, mergeMin, ""},
	{7, "MaxSize", 4, 1, mergeMax, ""},
	{8, "AllocTimestamp", 4, 1, mergeOther, ""},
	{9, "DeallocTimestamp", 4, 1, mergeOther, ""},
	{10, "TotalLifetime", 8, 1, mergeSum, ""},
	{11, "MinLifetime", 4, 1, mergeMin, ""},
	{12, "MaxLifetime", 4, 1, mergeMax, ""},
	{13, "AllocCpuId", 4, 1, mergeOther, ""},
	{14, "DeallocCpuId", 4, 1, mergeOther, ""},
	{15, "NumMigratedCpu", 4, 1, mergeOther, ""},
	{16, "NumLifetimeOverlaps", 4, 1, mergeOther, ""},
	{17, "NumSameAllocCpu", 4, 1, mergeOther, ""},
	{18, "NumSameDeallocCpu", 4, 1, mergeOther, ""},
	{19, "DataTypeId", 8, 1, mergeOther, ""},
	{20, "TotalAccessDensity", 8, 2, mergeSum, ""},
	{21, "MinAccessDensity", 4, 2, mergeMin, ""},
	{22, "MaxAccessDensity", 4, 2, mergeMax, ""},
	{23, "TotalLifetimeAccessDensity", 8, 2, mergeSum, ""},
	{24, "MinLifetimeAccessDensity", 4, 2, mergeMin, ""},
	{25, "MaxLifetimeAccessDensity", 4, 2, mergeMax, ""},
	{26, "AccessHistogramSize", 4, 4, mergeOther, ""},
	{27, "AccessHistogram", 8, 4, mergeOther, "the raw field as found on disk (a runtime heap pointer in raw files; meaningless). Writers decide what to emit."},
}

type mibField struct {
	meta Meta
	// name is LLVM's spelling, used in text dumps and YAML, and the Go
	// field name.
	name string
	// width is the size on disk in bytes: 4 (uint32) or 8 (uint64).
	width int
	// rawSince is the first raw version whose MemInfoBlock has the field.
	rawSince uint64
	merge    mergeRule
	doc      string // the struct field's comment, if any
}

// mergeRule is how MemInfoBlock.Merge combines a field; mergeOther fields
// are combined by hand in Merge.
type mergeRule int

const (
	mergeSum mergeRule = iota
	mergeMin
	mergeMax
	mergeOther
)

// Derived from mibFields.
var (
	// mibOffsets[t] is field t's offset in the packed layout.
	mibOffsets [MaxMeta + 2]int
	// rawMIBSize[v] is the size of the raw MemInfoBlock of raw version v:
	// the packed fields that version has.
	rawMIBSize [maxRawVersion + 1]int
)

func init() {
	off := 0
	for _, f := range mibFields {
		mibOffsets[f.meta] = off
		off += f.width
		for v := f.rawSince; v <= maxRawVersion; v++ {
			rawMIBSize[v] = off
		}
	}
	mibOffsets[MaxMeta+1] = off
}

// String returns LLVM's field name (MIBEntryDef.inc).
func (t Meta) String() string {
	if t.Valid() {
		return mibFields[t-1].name
	}
	return fmt.Sprintf("Meta(%d)", uint64(t))
}

// Valid reports whether t is a known tag (1 to MaxMeta).
func (t Meta) Valid() bool { return t >= 1 && t <= MaxMeta }

// Width returns the on-disk width of field t in bytes (4 or 8; 0 for an
// unknown tag).
func (t Meta) Width() int {
	if t.Valid() {
		return mibFields[t-1].width
	}
	return 0
}

// PackedOffset returns the offset of field t in the packed layout
// (PutPacked); 0 for an unknown tag.
func (t Meta) PackedOffset() int {
	if t.Valid() {
		return mibOffsets[t]
	}
	return 0
}

// MetaByName returns the tag LLVM spells name, or 0.
func MetaByName(name string) Meta {
	for _, f := range mibFields {
		if f.name == name {
			return f.meta
		}
	}
	return 0
}

// KnownFields returns the MemInfoBlock tags an LLVM release knows, in tag
// order: those of the newest raw version it reads (1..25 for LLVM 16–18,
// 1..27 for 19 and later). It is LLVM's full schema.
func KnownFields(release llvmrelease.Release) []Meta {
	accepted := release.MemProfRawVersions()
	newest := accepted[len(accepted)-1]
	var s []Meta
	for _, f := range mibFields {
		if f.rawSince <= newest {
			s = append(s, f.meta)
		}
	}
	return s
}
