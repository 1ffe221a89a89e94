package instrprof

import (
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The YAML MemProf profile is memprof's (memprof.ReadYAML,
// memprof.WriteYAML); these print an indexed profile's MemProf data in it
// as llvm-profdata-22 `show --memory` does, with the writer's schema and
// summary.

// WriteYAML writes p as llvm-profdata-22 `show --memory` prints it with the
// hot/cold schema, preceded by the summary LLVM 22 computes.
func WriteYAML(w io.Writer, p *memprof.Profile) error {
	s := memprofidx.Summary(p, 22)
	return memprof.WriteYAML(w, p, memprofidx.HotColdSchema, &s)
}

// WriteYAML writes the file's MemProf profile as llvm-profdata-22 `show
// --memory` prints it: the file's schema and, for V4, its stored summary.
func (f *File) WriteYAML(w io.Writer) error {
	if f.Profile == nil {
		return fmt.Errorf("instrprof: file has no MemProf section")
	}
	s := memprofidx.Summary(f.Profile, 22)
	if f.MemProfSummary != nil {
		s = *f.MemProfSummary
	}
	return memprof.WriteYAML(w, f.Profile, f.Schema, &s)
}
