package memprofidx

import (
	"io"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Summary is the MemProf summary of ix (see the function Summary).
func (ix *Indexed) Summary() memprof.Summary {
	var s memprof.Summary
	seen := make([]bool, ix.NumStacks())
	for i := range ix.Records {
		for _, a := range ix.Records[i].Alloc {
			if seen[a.Stack] {
				continue
			}
			seen[a.Stack] = true
			s.Add(a.Info)
		}
	}
	return s
}

// Summary computes the MemProf summary of p the way MemProfSummaryBuilder
// does: each distinct allocation call stack counts once.
func Summary(p *memprof.Profile, release llvmrelease.Release) memprof.Summary {
	ix, err := Index(&memprof.Profile{Records: p.Records}, release)
	if err != nil {
		return memprof.Summary{}
	}
	return ix.Summary()
}

// WriteYAML writes p as llvm-profdata-22 `show --memory` prints it with the
// hot/cold schema, preceded by the summary LLVM 22 computes.
func WriteYAML(w io.Writer, p *memprof.Profile) error {
	s := Summary(p, 22)
	return memprof.WriteYAML(w, p, HotColdSchema, &s)
}
