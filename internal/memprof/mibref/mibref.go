// Package mibref is the reference MemInfoBlock merge that tests of merged
// MemProf contexts check the product against: compiler-rt's rule written
// out once more, independently of memprof.MemInfoBlock.Merge.
package mibref

import (
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Merge is compiler-rt's MemInfoBlock::Merge (MemProfData.inc, as
// memprof_mibmap.cpp's InsertOrMerge applies it to a stack met again),
// written out field by field from LLVM's source as the reference that
// tests of merged contexts check against. It does not call
// MemInfoBlock.Merge.
func Merge(old, b memprof.MemInfoBlock) memprof.MemInfoBlock {
	m := old
	m.AllocCount += b.AllocCount
	m.TotalAccessCount += b.TotalAccessCount
	m.MinAccessCount = min(m.MinAccessCount, b.MinAccessCount)
	m.MaxAccessCount = max(m.MaxAccessCount, b.MaxAccessCount)
	m.TotalSize += b.TotalSize
	m.MinSize = min(m.MinSize, b.MinSize)
	m.MaxSize = max(m.MaxSize, b.MaxSize)
	m.TotalLifetime += b.TotalLifetime
	m.MinLifetime = min(m.MinLifetime, b.MinLifetime)
	m.MaxLifetime = max(m.MaxLifetime, b.MaxLifetime)
	m.TotalAccessDensity += b.TotalAccessDensity
	m.MinAccessDensity = min(m.MinAccessDensity, b.MinAccessDensity)
	m.MaxAccessDensity = max(m.MaxAccessDensity, b.MaxAccessDensity)
	m.TotalLifetimeAccessDensity += b.TotalLifetimeAccessDensity
	m.MinLifetimeAccessDensity = min(m.MinLifetimeAccessDensity, b.MinLifetimeAccessDensity)
	m.MaxLifetimeAccessDensity = max(m.MaxLifetimeAccessDensity, b.MaxLifetimeAccessDensity)
	if b.AllocTimestamp < old.DeallocTimestamp {
		m.NumLifetimeOverlaps++
	}
	m.AllocTimestamp, m.DeallocTimestamp = b.AllocTimestamp, b.DeallocTimestamp
	if old.AllocCpuId == b.AllocCpuId {
		m.NumSameAllocCpu++
	}
	if old.DeallocCpuId == b.DeallocCpuId {
		m.NumSameDeallocCpu++
	}
	m.AllocCpuId, m.DeallocCpuId = b.AllocCpuId, b.DeallocCpuId
	// The longer histogram is kept (the receiver's when equal), the shorter
	// added into it.
	long, short := old.Histogram, b.Histogram
	if b.AccessHistogramSize > old.AccessHistogramSize {
		long, short = b.Histogram, old.Histogram
		m.AccessHistogramSize, m.AccessHistogram = b.AccessHistogramSize, b.AccessHistogram
	}
	m.Histogram = slices.Clone(long)
	for i, v := range short {
		m.Histogram[i] += v
	}
	return m
}
