package profview

import (
	"strconv"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleProfile converts a sample profile (AutoFDO or CSSPGO) to a pprof
// profile with two sample types: samples (the body samples of every
// location, attributed to the innermost function, with the functions it
// is inlined into as the location's further lines and, for CS profiles,
// the calling context as caller locations) and head_samples (each
// top-level profile's head samples, at its function's entry).
//
// Lines are the profile's line offsets from the function's first line
// (or probe indices for probe-based profiles); discriminators are
// dropped. Names are demangled for display (SystemName keeps the
// profile's name).
func SampleProfile(sp *sampleprof.Profile) *profile.Profile {
	return SampleProfileLines(sp, nil)
}

// SampleProfileLines is SampleProfile with source lines: given Symbols
// holding the profiled binary's functions (SampleGUID keys), a function
// gets its file and first line (Filename, StartLine) and lines are
// absolute (its first line plus the offset; head samples at the first
// line). Functions the binary does not describe, and every line of a
// probe-based profile (probe ids), keep the profile's numbers.
func SampleProfileLines(sp *sampleprof.Profile, syms *Symbols) *profile.Profile {
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "head_samples", Unit: "count"}},
		DefaultSampleType: "samples",
		PeriodType:        &profile.ValueType{Type: "samples", Unit: "count"},
		Comments:          []string{"sample profile; lines are offsets from the function's first line, as the profile records them"},
	}
	funcs := functions{p: p}
	locs := map[string]*profile.Location{}
	function := func(id sampleprof.FunctionID) *profile.Function {
		f := funcs.get(id.String())
		if fn := syms.SampleFunc(id); fn.Line > 0 && !sp.ProbeBased {
			f.Filename, f.StartLine = fn.File, int64(fn.Line)
		}
		return f
	}
	// line is location l of function id as the profile's lines show it.
	line := func(id sampleprof.FunctionID, l sampleprof.LineLocation) int64 {
		if _, n, ok := syms.SampleLine(id, l, sp.ProbeBased); ok {
			return n
		}
		return int64(l.Line)
	}
	if syms != nil && syms.Binary != "" && !sp.ProbeBased {
		p.Comments[0] = "sample profile; lines are source lines of the profiled binary " + syms.Binary + " (offsets where it does not describe a function)"
	}
	// location returns the location of lines (leaf first), shared by
	// every sample with the same lines.
	location := func(lines []profile.Line) *profile.Location {
		key := ""
		for _, l := range lines {
			key += l.Function.SystemName + "\x00" + strconv.FormatInt(l.Line, 10) + "\x00"
		}
		if l := locs[key]; l != nil {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: lines}
		locs[key] = l
		p.Location = append(p.Location, l)
		return l
	}
	for _, top := range sp.Sorted() { // the same order whatever the encoding
		// The callers of a CS profile's function, leaf-most first.
		var callers []*profile.Location
		for i := len(top.Context) - 2; i >= 0; i-- {
			f := top.Context[i]
			callers = append(callers, location([]profile.Line{{Function: function(f.Func), Line: line(f.Func, f.Loc)}}))
		}
		if top.HeadSamples > 0 {
			l := location([]profile.Line{{Function: function(top.Name), Line: line(top.Name, sampleprof.LineLocation{})}})
			p.Sample = append(p.Sample, &profile.Sample{Value: []int64{0, int64(top.HeadSamples)}, Location: append([]*profile.Location{l}, callers...)})
		}
		// inlined holds the lines of the enclosing instances, innermost
		// first: each an instance's function at the call's line.
		var walk func(fs *sampleprof.FunctionSamples, inlined []profile.Line)
		walk = func(fs *sampleprof.FunctionSamples, inlined []profile.Line) {
			fn := function(fs.Name)
			for _, b := range fs.Body {
				if b.Samples == 0 {
					continue
				}
				lines := append([]profile.Line{{Function: fn, Line: line(fs.Name, b.Loc)}}, inlined...)
				p.Sample = append(p.Sample, &profile.Sample{Value: []int64{int64(b.Samples), 0},
					Location: append([]*profile.Location{location(lines)}, callers...)})
			}
			for _, cs := range fs.Callsites {
				walk(cs.Callee, append([]profile.Line{{Function: fn, Line: line(fs.Name, cs.Loc)}}, inlined...))
			}
		}
		walk(top, nil)
	}
	return p
}
