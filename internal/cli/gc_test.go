package cli

import (
	"runtime/debug"
	"testing"
)

// TestSetGCPercent: the tool's goal holds until restored, and GOGC in the
// environment wins over it.
func TestSetGCPercent(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	t.Setenv("GOGC", "")
	restore := SetGCPercent(400)
	if got := debug.SetGCPercent(400); got != 400 {
		t.Errorf("goal %d during the work, want 400", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("goal %d after restore, want 100", got)
	}
	t.Setenv("GOGC", "150")
	SetGCPercent(400)()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("goal %d with GOGC set, want the runtime's own (100 here)", got)
	}
}
