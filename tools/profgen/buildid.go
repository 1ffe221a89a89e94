package main

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// checkBuildID fails when --trace-build-id names a build id other than the
// binary's. Build ids in the trace itself (perf record --buildid-mmap
// prints one in each PERF_RECORD_MMAP2 line) are checked by the parser
// (perfscript.ErrBuildIDMismatch): llvm-profgen matches mappings by file
// name only and turns a trace of another build into a wrong profile;
// profgen refuses it, naming both build ids.
func checkBuildID(c *config, binID []byte) error {
	have := hex.EncodeToString(binID)
	if c.traceBuildID == "" {
		return nil
	}
	if want := strings.ToLower(strings.TrimSpace(c.traceBuildID)); want != have {
		return fmt.Errorf("%s: the trace was recorded from the binary with build id %s (--trace-build-id), but --binary %s has build id %s: pass the binary that ran",
			c.perfscript, want, c.binary, orNone(have))
	}
	return nil
}

func orNone(id string) string {
	if id == "" {
		return "(none)"
	}
	return id
}
