package instrprof

import "github.com/rules-pgo/rules_pgo/internal/memprof"

// MemProfSummary is the summary MemProf V4 stores (MemProfSummary.h).
type MemProfSummary struct {
	NumContexts      uint64
	NumColdContexts  uint64
	NumHotContexts   uint64
	MaxColdTotalSize uint64
	MaxWarmTotalSize uint64
	MaxHotTotalSize  uint64
}

// AllocType is memprof::AllocationType.
type AllocType int

const (
	NotCold AllocType = 1
	Cold    AllocType = 2
	Hot     AllocType = 4
)

// Classification thresholds: LLVM's defaults for
// -memprof-lifetime-access-density-cold-threshold,
// -memprof-ave-lifetime-cold-threshold and
// -memprof-min-ave-lifetime-access-density-hot-threshold. Hot is only
// reported with -memprof-use-hot-hints, which is off by default in LLVM 20+.
const (
	lifetimeAccessDensityColdThreshold float32 = 0.05
	aveLifetimeColdThresholdSeconds            = 200
)

// GetAllocType is memprof::getAllocType with LLVM 22's default options
// (single-precision arithmetic, as in LLVM).
func GetAllocType(totalLifetimeAccessDensity, allocCount, totalLifetime uint64) AllocType {
	density := float32(totalLifetimeAccessDensity) / float32(allocCount) / 100
	life := float32(totalLifetime) / float32(allocCount)
	if density < lifetimeAccessDensityColdThreshold && life >= float32(aveLifetimeColdThresholdSeconds*1000) {
		return Cold
	}
	return NotCold
}

func (ix *indexed) summary() MemProfSummary {
	var s MemProfSummary
	seen := make([]bool, ix.numStacks())
	for i := range ix.records {
		for _, a := range ix.records[i].alloc {
			if seen[a.stack] {
				continue
			}
			seen[a.stack] = true
			addContext(&s, a.info)
		}
	}
	return s
}

func addContext(s *MemProfSummary, info *memprof.MemInfoBlock) {
	s.NumContexts++
	switch GetAllocType(info.TotalLifetimeAccessDensity, uint64(info.AllocCount), info.TotalLifetime) {
	case Cold:
		s.NumColdContexts++
		s.MaxColdTotalSize = max(s.MaxColdTotalSize, info.TotalSize)
	case Hot:
		s.NumHotContexts++
		s.MaxHotTotalSize = max(s.MaxHotTotalSize, info.TotalSize)
	default:
		s.MaxWarmTotalSize = max(s.MaxWarmTotalSize, info.TotalSize)
	}
}

// Summary computes the MemProf summary of p the way MemProfSummaryBuilder
// does: each distinct allocation call stack counts once.
func Summary(p *memprof.Profile, release int) MemProfSummary {
	ix, err := index(&memprof.Profile{Records: p.Records}, release)
	if err != nil {
		return MemProfSummary{}
	}
	return ix.summary()
}
