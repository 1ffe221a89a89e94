package sampleprof

import (
	"strconv"
	"unicode/utf8"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// What `llvm-profdata show --sample` prints besides the profiles:
// --json (SampleProfileReader::dumpJson), --show-prof-sym-list
// (ProfileSymbolList::dump) and --detailed-summary
// (ProfileSummary::printSummary and printDetailedSummary).

// AppendJSON appends the profile as `show --sample --json` prints it
// (every release alike): an array of the top-level profiles in
// sortFuncProfiles order, each with its (leaf) name, total and head
// samples, body samples with sorted call targets, and inlinees; two-space
// indentation, no vtables, checksums or attributes.
func (p *Profile) AppendJSON(b []byte) []byte {
	j := jsonWriter{b: b}
	j.open('[')
	for _, fs := range p.Sorted() {
		j.elem()
		j.function(fs, true)
	}
	j.close(']')
	return append(j.b, '\n')
}

// jsonWriter writes as llvm::json::OStream with an indent of 2.
type jsonWriter struct {
	b      []byte
	indent int
	has    []bool // per open container: has a value
}

func (j *jsonWriter) newline() {
	j.b = append(j.b, '\n')
	j.b = indent(j.b, j.indent)
}

func (j *jsonWriter) open(c byte) {
	j.has = append(j.has, false)
	j.indent += 2
	j.b = append(j.b, c)
}

func (j *jsonWriter) close(c byte) {
	j.indent -= 2
	if j.has[len(j.has)-1] {
		j.newline()
	}
	j.has = j.has[:len(j.has)-1]
	j.b = append(j.b, c)
}

// elem starts a value in an array.
func (j *jsonWriter) elem() {
	if j.has[len(j.has)-1] {
		j.b = append(j.b, ',')
	}
	j.has[len(j.has)-1] = true
	j.newline()
}

// key starts an attribute of an object.
func (j *jsonWriter) key(k string) {
	j.elem()
	j.quote(k)
	j.b = append(j.b, ": "...)
}

func (j *jsonWriter) uint(k string, v uint64) {
	j.key(k)
	j.b = strconv.AppendUint(j.b, v, 10)
}

// quote is llvm::json's quote of a value, invalid UTF-8 replaced as
// json::fixUTF8 does.
func (j *jsonWriter) quote(s string) {
	j.b = append(j.b, '"')
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n <= 1:
			j.b = utf8.AppendRune(j.b, utf8.RuneError)
		case r == '"' || r == '\\':
			j.b = append(j.b, '\\', byte(r))
		case r >= 0x20:
			j.b = append(j.b, s[:n]...)
		case r == '\t':
			j.b = append(j.b, `\t`...)
		case r == '\n':
			j.b = append(j.b, `\n`...)
		case r == '\r':
			j.b = append(j.b, `\r`...)
		default:
			j.b = append(j.b, `\u00`...)
			j.b = append(j.b, "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		}
		s = s[n:]
	}
	j.b = append(j.b, '"')
}

func (j *jsonWriter) function(fs *FunctionSamples, top bool) {
	j.open('{')
	j.key("name")
	j.quote(fs.Name.String())
	j.uint("total", fs.TotalSamples)
	if top {
		j.uint("head", fs.HeadSamples)
	}
	loc := func(l LineLocation) {
		j.uint("line", uint64(l.Line))
		if l.Disc != 0 {
			j.uint("discriminator", uint64(l.Disc))
		}
	}
	if len(fs.Body) > 0 {
		j.key("body")
		j.open('[')
		var calls []CallTarget
		for i := range fs.Body {
			s := &fs.Body[i]
			j.elem()
			j.open('{')
			loc(s.Loc)
			j.uint("samples", s.Samples)
			if calls = s.appendSortedCalls(calls[:0]); len(calls) > 0 {
				j.key("calls")
				j.open('[')
				for _, c := range calls {
					j.elem()
					j.open('{')
					j.key("function")
					j.quote(c.Func.String())
					j.uint("samples", c.Count)
					j.close('}')
				}
				j.close(']')
			}
			j.close('}')
		}
		j.close(']')
	}
	if len(fs.Callsites) > 0 {
		j.key("callsites")
		j.open('[')
		for _, c := range fs.Callsites {
			j.elem()
			j.open('{')
			loc(c.Loc)
			j.key("samples")
			j.open('[')
			j.elem()
			j.function(c.Callee, false)
			j.close(']')
			j.close('}')
		}
		j.close(']')
	}
	j.close('}')
}

// AppendSymbolList appends the profile symbol list as
// `show --sample --show-prof-sym-list` prints it, sorted.
func (p *Profile) AppendSymbolList(b []byte) []byte {
	b = append(b, "======== Dump profile symbol list ========\n"...)
	for _, s := range p.SymbolList {
		b = append(b, s...)
		b = append(b, '\n')
	}
	return b
}

// AppendText appends the summary as `show --detailed-summary` of release
// llvm prints it (LLVM 22 names the maximum internal count, always 0 for
// sample profiles, and gives each entry's share of the blocks).
func (s *Summary) AppendText(b []byte, llvm llvmrelease.Release) []byte {
	line := func(label string, v uint64) {
		b = append(b, label...)
		b = strconv.AppendUint(b, v, 10)
		b = append(b, '\n')
	}
	line("Total functions: ", s.NumFunctions)
	line("Maximum function count: ", s.MaxFunctionCount)
	if !llvm.OrDefault().SampleShowSummary22() {
		line("Maximum block count: ", s.MaxCount)
	} else {
		line("Maximum internal block count: ", 0)
	}
	line("Total number of blocks: ", s.NumCounts)
	line("Total count: ", s.TotalCount)
	b = append(b, "Detailed summary:\n"...)
	for _, e := range s.Detailed {
		b = strconv.AppendUint(b, e.NumCounts, 10)
		if !llvm.OrDefault().SampleShowSummary22() {
			// (float)Cutoff / Scale * 100, in float.
			pct := float32(float32(e.Cutoff)/1e6) * 100
			b = append(b, " blocks with count >= "...)
			b = strconv.AppendUint(b, e.MinCount, 10)
			b = append(b, " account for "...)
			b = strconv.AppendFloat(b, float64(pct), 'g', 6, 64)
			b = append(b, " percentage of the total counts.\n"...)
			continue
		}
		// 100.f * NumCounts / NumCounts, 100.f * Cutoff / Scale.
		var share float32
		if uint32(s.NumCounts) != 0 {
			share = float32(100*float32(e.NumCounts)) / float32(uint32(s.NumCounts))
		}
		pct := float32(100*float32(e.Cutoff)) / 1e6
		b = append(b, " blocks ("...)
		b = strconv.AppendFloat(b, float64(share), 'f', 2, 64)
		b = append(b, "%) with count >= "...)
		b = strconv.AppendUint(b, e.MinCount, 10)
		b = append(b, " account for "...)
		b = strconv.AppendFloat(b, float64(pct), 'g', 6, 64)
		b = append(b, "% of the total counts.\n"...)
	}
	return b
}
