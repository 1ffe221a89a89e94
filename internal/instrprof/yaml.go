package instrprof

import (
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The YAML MemProf profile is memprof's (memprof.ReadYAML,
// memprof.WriteYAML; memprofidx.WriteYAML with LLVM 22's schema and
// summary); File.WriteYAML prints an indexed profile's MemProf data in it
// as llvm-profdata-22 `show --memory` does, with the file's schema and
// summary.

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
