package memprof

import (
	"fmt"
	"io"
)

// Summary is LLVM's memprof::MemProfSummary (MemProfSummary.h): what
// MemProf V4 stores and what `show` prints before the records, counted by
// MemProfSummaryBuilder over the distinct allocation contexts with the
// default thresholds of DefaultAllocType.
type Summary struct {
	NumContexts      uint64
	NumColdContexts  uint64
	NumHotContexts   uint64
	MaxColdTotalSize uint64
	MaxWarmTotalSize uint64
	MaxHotTotalSize  uint64
}

// Add counts one allocation context (a distinct call stack) with
// statistics info.
func (s *Summary) Add(info *MemInfoBlock) {
	s.NumContexts++
	switch info.DefaultAllocType() {
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

// writeComment prints s as the YAML comment document LLVM 21+ puts before
// a dump.
func (s *Summary) writeComment(w io.Writer) {
	fmt.Fprintf(w, "---\n# MemProfSummary:\n#   Total contexts: %d\n#   Total cold contexts: %d\n#   Total hot contexts: %d\n", s.NumContexts, s.NumColdContexts, s.NumHotContexts)
	fmt.Fprintf(w, "#   Maximum cold context total size: %d\n#   Maximum warm context total size: %d\n#   Maximum hot context total size: %d\n", s.MaxColdTotalSize, s.MaxWarmTotalSize, s.MaxHotTotalSize)
}
