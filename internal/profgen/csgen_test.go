package profgen

import (
	"fmt"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// TestInferredCallCounts checks populateInferredFunctionSamples' estimate
// of a callee's call count (getHeadSamplesEstimate, then 1 for a profile
// without body records) on small tries: the first body record's samples,
// at least 1 when the total is not 0 (a first record that holds only call
// targets), nothing for callees with head samples or under the root. The
// differential test with real traces is tools/profgen's
// TestInferredCallCounts.
func TestInferredCallCounts(t *testing.T) {
	site := sampleprof.LineLocation{Line: 3, Disc: 2}
	for _, c := range []struct {
		name   string
		callee sampleprof.FunctionSamples
		want   uint64 // added at the caller's call site; 0: nothing
	}{
		{"first record", sampleprof.FunctionSamples{TotalSamples: 9,
			Body: []sampleprof.BodySample{{Loc: sampleprof.LineLocation{Line: 1}, Samples: 4}, {Loc: sampleprof.LineLocation{Line: 2}, Samples: 5}}}, 4},
		{"only call targets first", sampleprof.FunctionSamples{TotalSamples: 7,
			Body: []sampleprof.BodySample{{Loc: sampleprof.LineLocation{Line: 1}, Calls: []sampleprof.CallTarget{{Func: sampleprof.Name("g"), Count: 3}}},
				{Loc: sampleprof.LineLocation{Line: 2}, Samples: 7}}}, 1},
		{"no body", sampleprof.FunctionSamples{}, 1},
		{"zero total", sampleprof.FunctionSamples{
			Body: []sampleprof.BodySample{{Loc: sampleprof.LineLocation{Line: 1}, Calls: []sampleprof.CallTarget{{Func: sampleprof.Name("g"), Count: 3}}}}}, 0},
		{"head samples", sampleprof.FunctionSamples{HeadSamples: 2, TotalSamples: 9,
			Body: []sampleprof.BodySample{{Loc: sampleprof.LineLocation{Line: 1}, Samples: 9}}}, 0},
	} {
		g := &csGenerator{generator: &generator{names: map[string]sampleprof.FunctionID{}}}
		caller := g.child(&g.root, sampleprof.LineLocation{}, "caller")
		g.functionSamples(caller, false)
		callee := g.child(caller, site, "callee")
		fs := c.callee
		fs.Name = g.id("callee")
		callee.fs = &fs
		top := g.child(&g.root, sampleprof.LineLocation{}, "top") // under the root: nothing to add to
		top.fs = &sampleprof.FunctionSamples{Name: g.id("top")}
		g.inferredSamples(&g.root)

		got := fmt.Sprint(caller.fs.Body, caller.fs.TotalSamples)
		want := fmt.Sprint([]sampleprof.BodySample(nil), 0)
		if c.want != 0 || c.name == "zero total" {
			want = fmt.Sprint([]sampleprof.BodySample{{Loc: site, Samples: c.want,
				Calls: []sampleprof.CallTarget{{Func: g.id("callee"), Count: c.want}}}}, c.want)
		}
		if got != want {
			t.Errorf("%s: caller's body and total %s, want %s", c.name, got, want)
		}
	}
}
