package instrprof

import (
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

func (ix *indexed) summary() memprof.Summary {
	var s memprof.Summary
	seen := make([]bool, ix.numStacks())
	for i := range ix.records {
		for _, a := range ix.records[i].alloc {
			if seen[a.stack] {
				continue
			}
			seen[a.stack] = true
			s.Add(a.info)
		}
	}
	return s
}

// Summary computes the MemProf summary of p the way MemProfSummaryBuilder
// does: each distinct allocation call stack counts once.
func Summary(p *memprof.Profile, release llvmrelease.Release) memprof.Summary {
	ix, err := index(&memprof.Profile{Records: p.Records}, release)
	if err != nil {
		return memprof.Summary{}
	}
	return ix.summary()
}
