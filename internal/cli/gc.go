package cli

import (
	"os"
	"runtime/debug"
)

// SetGCPercent sets the collector's goal for a tool's work to percent
// (debug.SetGCPercent) unless GOGC is set in the environment, which wins,
// and returns what restores the goal before it. For a tool whose heap
// pattern makes the runtime's default of 100 collect too often (see the
// callers); a benchmark or a user pins GOGC to override it.
func SetGCPercent(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}
