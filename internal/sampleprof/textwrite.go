package sampleprof

import (
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// TextWriteOptions select what the text writer emits.
type TextWriteOptions struct {
	// Release is the release written for (0 means llvmrelease.Default). Vtable lines are
	// written for 22 only: older readers misread them.
	Release llvmrelease.Release
}

// AppendText appends p in LLVM's text format (SampleProfileWriterText).
func (p *Profile) AppendText(b []byte, opts TextWriteOptions) []byte {
	w := textWriter{p: p, vtables: opts.Release.OrDefault().HasVTableTypeProfiles()}
	for _, fs := range p.Sorted() {
		b = w.sample(b, fs, 0)
	}
	return b
}

type textWriter struct {
	p       *Profile
	vtables bool
}

func indent(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

func (w *textWriter) vtableLine(b []byte, fs *FunctionSamples, loc LineLocation, ind int) []byte {
	if !w.vtables {
		return b
	}
	return appendVTableLine(b, fs, loc, ind, ": vtables ")
}

// appendVTableLine appends the vtable counts of fs at loc, if any, as one
// line: ind spaces, the location, tag, then `TYPE:COUNT ` per type.
func appendVTableLine(b []byte, fs *FunctionSamples, loc LineLocation, ind int, tag string) []byte {
	v := fs.FindVTables(loc)
	if v == nil || len(v.Types) == 0 {
		return b
	}
	b = indent(b, ind)
	b = loc.appendTo(b)
	b = append(b, tag...)
	for _, t := range v.Types {
		b = t.Type.appendTo(b)
		b = append(b, ':')
		b = strconv.AppendUint(b, t.Count, 10)
		b = append(b, ' ')
	}
	return append(b, '\n')
}

func (w *textWriter) sample(b []byte, fs *FunctionSamples, ind int) []byte {
	if w.p.CS {
		b = append(b, '[')
		b = fs.appendContext(b)
		b = append(b, ']')
	} else {
		b = fs.Name.appendTo(b)
	}
	b = append(b, ':')
	b = strconv.AppendUint(b, fs.TotalSamples, 10)
	if ind == 0 {
		b = append(b, ':')
		b = strconv.AppendUint(b, fs.HeadSamples, 10)
	}
	b = append(b, '\n')
	for i := range fs.Body {
		s := &fs.Body[i]
		b = indent(b, ind+1)
		b = s.Loc.appendTo(b)
		b = append(b, ": "...)
		b = strconv.AppendUint(b, s.Samples, 10)
		for _, c := range s.SortedCalls() {
			b = append(b, ' ')
			b = c.Func.appendTo(b)
			b = append(b, ':')
			b = strconv.AppendUint(b, c.Count, 10)
		}
		b = append(b, '\n')
		b = w.vtableLine(b, fs, s.Loc, ind+1)
	}
	for i := 0; i < len(fs.Callsites); {
		loc := fs.Callsites[i].Loc
		for ; i < len(fs.Callsites) && fs.Callsites[i].Loc == loc; i++ {
			b = indent(b, ind+1)
			b = loc.appendTo(b)
			b = append(b, ": "...)
			b = w.sample(b, fs.Callsites[i].Callee, ind+1)
		}
		b = w.vtableLine(b, fs, loc, ind+1)
	}
	if w.p.ProbeBased {
		b = indent(b, ind+1)
		b = append(b, "!CFGChecksum: "...)
		b = strconv.AppendUint(b, fs.Checksum, 10)
		b = append(b, '\n')
	}
	if fs.Attributes != 0 {
		b = indent(b, ind+1)
		b = append(b, "!Attributes: "...)
		b = strconv.AppendUint(b, uint64(fs.Attributes), 10)
		b = append(b, '\n')
	}
	return b
}
