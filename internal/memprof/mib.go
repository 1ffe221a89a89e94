package memprof

import "slices"

// Merge folds b into m with the rule of LLVM's MemInfoBlock::Merge
// (MemProfData.inc), used for a stack id seen in several dumps: totals add,
// minima and maxima combine, the lifetime-overlap and same-CPU counters
// compare b with m's latest values, which b then replaces. NumMigratedCpu
// and DataTypeId are left alone, as in LLVM. Histograms: the longer one is
// kept and the shorter is added into it element-wise. Counters wrap modulo
// their width as in LLVM.
func (m *MemInfoBlock) Merge(b *MemInfoBlock) {
	m.mergeCounters(b) // the totals, minima and maxima of mibFields
	if b.AllocTimestamp < m.DeallocTimestamp {
		m.NumLifetimeOverlaps++
	}
	m.AllocTimestamp = b.AllocTimestamp
	m.DeallocTimestamp = b.DeallocTimestamp
	if m.AllocCpuId == b.AllocCpuId {
		m.NumSameAllocCpu++
	}
	if m.DeallocCpuId == b.DeallocCpuId {
		m.NumSameDeallocCpu++
	}
	m.AllocCpuId = b.AllocCpuId
	m.DeallocCpuId = b.DeallocCpuId

	long, short := m.Histogram, b.Histogram
	if b.AccessHistogramSize > m.AccessHistogramSize {
		long, short = append([]uint64(nil), b.Histogram...), m.Histogram
		m.AccessHistogramSize = b.AccessHistogramSize
		m.AccessHistogram = b.AccessHistogram
	}
	for i := range short {
		if i < len(long) {
			long[i] += short[i]
		}
	}
	m.Histogram = long
}

// clone returns a copy of m that shares no memory with it (Merge adds
// into the receiver's histogram in place).
func (m *MemInfoBlock) clone() *MemInfoBlock {
	c := *m
	c.Histogram = slices.Clone(m.Histogram)
	return &c
}

// Histogram counter encoding of raw v5 (MemProfData.inc): a 12-bit mantissa
// and a 4-bit exponent, value = mantissa << exponent.
const (
	histogramMaxMantissa = 1<<12 - 1
	histogramMaxExponent = 1<<4 - 1
	// HistogramMaxRepresentable is the largest count a v5 entry can hold.
	HistogramMaxRepresentable = uint64(histogramMaxMantissa) << histogramMaxExponent
)

// EncodeHistogramCount encodes a counter as the raw v5 runtime does,
// rounding half up and saturating at HistogramMaxRepresentable.
func EncodeHistogramCount(c uint64) uint16 {
	if c == 0 {
		return 0
	}
	c = min(c, HistogramMaxRepresentable)
	if c <= histogramMaxMantissa {
		return uint16(c)
	}
	m, e := c, uint64(0)
	for m > histogramMaxMantissa {
		m = (m + 1) >> 1
		e++
	}
	return uint16(e<<12 | m)
}

// DecodeHistogramCount decodes a raw v5 histogram entry.
func DecodeHistogramCount(v uint16) uint64 {
	return uint64(v&histogramMaxMantissa) << (v >> 12)
}
