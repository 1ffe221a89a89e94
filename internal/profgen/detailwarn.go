package profgen

import (
	"fmt"
	"maps"
	"slices"
)

// detailUntracked is unwindSamples' --show-detailed-warning list: each
// call site whose context was truncated (an external frame or, with
// probes, a call without a probe), ascending (a std::set).
func (u *Unwinder) detailUntracked(warn func(string)) {
	for _, a := range slices.Sorted(maps.Keys(u.st.untracked)) {
		warn(fmt.Sprintf("Profile context truncated due to missing probe for call instruction at %#x", a))
	}
}
