package profview

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The sample types of Profile, in value order. Every value sums
// meaningfully over contexts, so pprof's aggregated views stay true.
var pprofSampleTypes = []*profile.ValueType{
	{Type: "alloc_objects", Unit: "count"}, // AllocCount
	{Type: "alloc_space", Unit: "bytes"},   // TotalSize
	{Type: "cold_space", Unit: "bytes"},    // TotalSize of contexts hinted cold
	{Type: "hot_space", Unit: "bytes"},     // TotalSize of contexts hinted hot
	{Type: "accesses", Unit: "count"},      // TotalAccessCount
	{Type: "lifetime", Unit: "milliseconds"},
	// TotalLifetimeAccessDensity: hundredths of accesses per byte per
	// second, summed over the allocations (divide by alloc_objects and
	// 100 for the average clang compares with its thresholds).
	{Type: "lifetime_access_density", Unit: "count"},
}

// Profile converts ctxs to a pprof profile: one sample per context, its
// call stack as locations (one location per machine-level frame, the
// frames inlined into it as its lines, leaf first), the values of
// pprofSampleTypes, the label "hint" (cold, notcold, hot) and the numeric
// labels "bytes" (average size) and "lifetime" (average, ms).
//
// MemProf keeps no addresses, file names or absolute lines, only line
// offsets from each function's first line. With the profiled binary's
// lines (syms), a function has its file and start line and a line is
// absolute; without them a line is the offset (Function.StartLine 0, and
// a comment says so). A line's column is the column.
//
// binary, if not empty, names the profiled binary in the one mapping
// (which says functions, lines and inline frames are all there, so pprof
// symbolizes nothing).
func Profile(ctxs []Context, t Thresholds, syms *Symbols, binary string) *profile.Profile {
	m := &profile.Mapping{ID: 1, File: binary, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	p := &profile.Profile{
		Mapping:           []*profile.Mapping{m},
		SampleType:        pprofSampleTypes,
		DefaultSampleType: "alloc_space",
		PeriodType:        &profile.ValueType{Type: "space", Unit: "bytes"},
		Comments: []string{
			fmt.Sprintf("MemProf allocation contexts; hints as clang %d derives them with -mllvm %s",
				t.Release, strings.Join(t.Flags(), " -mllvm ")),
		},
	}
	if n := syms.Note(); n != "" {
		p.Comments = append(p.Comments, n)
	}
	funcs := functions{p: p}
	locs := map[string]*profile.Location{}
	function := func(guid uint64) *profile.Function {
		f := funcs.get(syms.LinkageName(guid))
		if fn := syms.fn(guid); fn.Line > 0 && f.StartLine == 0 {
			f.Filename, f.StartLine = fn.File, int64(fn.Line)
		}
		return f
	}
	for i := range ctxs {
		c := &ctxs[i]
		s := &profile.Sample{
			Value:    contextValues(c),
			Label:    map[string][]string{"hint": {c.Hint.String()}},
			NumLabel: map[string][]int64{"bytes": {int64(c.Info.TotalSize / uint64(max(c.Info.AllocCount, 1)))}, "lifetime": {int64(c.Info.TotalLifetime / uint64(max(c.Info.AllocCount, 1)))}},
			NumUnit:  map[string][]string{"bytes": {"bytes"}, "lifetime": {"milliseconds"}},
		}
		for _, group := range machineFrames(c.Frames) {
			key := fmt.Sprint(group)
			l := locs[key]
			if l == nil {
				l = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m}
				for _, f := range group {
					line := int64(f.LineOffset)
					if _, abs, ok := syms.Line(f); ok {
						line = abs
					}
					l.Line = append(l.Line, profile.Line{Function: function(f.Function), Line: line, Column: int64(f.Column)})
				}
				locs[key] = l
				p.Location = append(p.Location, l)
			}
			s.Location = append(s.Location, l)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func contextValues(c *Context) []int64 {
	m := c.Info
	v := []int64{int64(m.AllocCount), int64(m.TotalSize), 0, 0, int64(m.TotalAccessCount), int64(m.TotalLifetime), int64(m.TotalLifetimeAccessDensity)}
	switch c.Hint {
	case Cold:
		v[2] = int64(m.TotalSize)
	case Hot:
		v[3] = int64(m.TotalSize)
	}
	return v
}

// machineFrames splits a call stack (leaf first) into the frames of each
// machine-level call site: every group ends with its first frame that is
// not inlined.
func machineFrames(frames []memprof.Frame) [][]memprof.Frame {
	var out [][]memprof.Frame
	start := 0
	for i, f := range frames {
		if !f.IsInlineFrame {
			out = append(out, frames[start:i+1])
			start = i + 1
		}
	}
	if start < len(frames) {
		out = append(out, frames[start:])
	}
	return out
}

// functions are the pprof functions of a profile being built, by name.
type functions struct {
	p      *profile.Profile
	byName map[string]*profile.Function
}

// get returns the function named sys (as the profile names it; Name is
// its demangled form), adding it to the profile on first use.
func (fs *functions) get(sys string) *profile.Function {
	if f := fs.byName[sys]; f != nil {
		return f
	}
	if fs.byName == nil {
		fs.byName = map[string]*profile.Function{}
	}
	name := demangle.Name(sys)
	f := &profile.Function{ID: uint64(len(fs.p.Function) + 1), Name: name, SystemName: sys}
	fs.byName[sys] = f
	fs.p.Function = append(fs.p.Function, f)
	return f
}
