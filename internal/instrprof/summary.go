package instrprof

import (
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// MemProfSummary is the summary MemProf V4 stores (MemProfSummary.h).
type MemProfSummary struct {
	NumContexts      uint64
	NumColdContexts  uint64
	NumHotContexts   uint64
	MaxColdTotalSize uint64
	MaxWarmTotalSize uint64
	MaxHotTotalSize  uint64
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
	switch info.DefaultAllocType() {
	case memprof.Cold:
		s.NumColdContexts++
		s.MaxColdTotalSize = max(s.MaxColdTotalSize, info.TotalSize)
	case memprof.Hot:
		s.NumHotContexts++
		s.MaxHotTotalSize = max(s.MaxHotTotalSize, info.TotalSize)
	default:
		s.MaxWarmTotalSize = max(s.MaxWarmTotalSize, info.TotalSize)
	}
}

// Summary computes the MemProf summary of p the way MemProfSummaryBuilder
// does: each distinct allocation call stack counts once.
func Summary(p *memprof.Profile, release llvmrelease.Release) MemProfSummary {
	ix, err := index(&memprof.Profile{Records: p.Records}, release)
	if err != nil {
		return MemProfSummary{}
	}
	return ix.summary()
}
