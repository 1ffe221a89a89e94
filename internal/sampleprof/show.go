package sampleprof

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// The canonical text dump: what `llvm-profdata show --sample` prints
// (SampleProfileReader::dump, FunctionSamples::print, showHotFunctionList
// and dumpSectionInfo in LLVM's SampleProf.cpp, SampleProfReader.cpp and
// llvm-profdata.cpp).
//
//	Function: CONTEXT: [CFG checksum N\n]TOTAL, HEAD, N sampled lines
//	Samples collected in the function's body {      | No samples collected in the function's body
//	  LOC: COUNT[, calls: T:C ...]
//	  LOC: vtables: T:C ...                          (LLVM 22)
//	}
//	Samples collected in inlined callsites {        | No inlined callsites in this function
//	  LOC: inlined callee: NAME: <print, 4 spaces deeper>
//	  LOC: vtables: T:C ...                          (LLVM 22)
//	}

// ShowOptions select what AppendShow prints.
type ShowOptions struct {
	// Release is the release whose llvm-profdata to follow (0 means llvmrelease.Default).
	Release llvmrelease.Release
	// Function, if HasFunction, prints only the profile of that function
	// (--function): LLVM 19+ finds a non-CS profile by name (or by the
	// MD5 of the name in an MD5 profile) and prints an empty unnamed one
	// otherwise; LLVM 16 finds a non-CS profile by its exact name and
	// prints an empty one of that name otherwise, counting it among the
	// functions of the hot list.
	Function    string
	HasFunction bool
	// TopN > 0 appends the list of hot functions, at most TopN of them
	// (--topn); HotList appends all of them (--hot-func-list).
	TopN    int
	HotList bool
	// JSON prints the profiles as JSON instead (--json; not with
	// Function).
	JSON bool
	// SymbolList appends the profile symbol list (--show-prof-sym-list);
	// DetailedSummary appends the summary (--detailed-summary).
	SymbolList, DetailedSummary bool
}

// AppendShow appends what `llvm-profdata show --sample` prints for p, as
// read by the release's reader (Read with the same LLVM).
//
// The hot-function list orders functions of equal total samples as
// LLVM's profile map iterates them: a libstdc++ unordered_map
// (internal/stdunordered) keyed by the context's hash (llvmhash.go).
func (p *Profile) AppendShow(b []byte, o ShowOptions) []byte {
	rel := o.Release.OrDefault()
	s := shower{p: p, vtables: rel.HasVTableTypeProfiles()}
	var extra *FunctionSamples
	if o.JSON {
		b = p.AppendJSON(b)
	} else if !o.HasFunction {
		for _, fs := range p.Sorted() {
			b = append(b, "Function: "...)
			b = fs.appendContext(b)
			b = append(b, ": "...)
			b = s.print(b, fs, 0)
		}
	} else {
		fs := p.findShown(o.Function, rel)
		b = append(b, "Function: "...)
		switch {
		case fs != nil:
			b = fs.appendContext(b)
		case rel.SampleLegacyReader16():
			// Profiles[Name] inserts an empty, unnamed profile, which
			// the hot list then sees.
			b = append(b, o.Function...)
			extra = &FunctionSamples{}
		}
		b = append(b, ": "...)
		if fs == nil {
			fs = &FunctionSamples{}
		}
		b = s.print(b, fs, 0)
	}
	if o.SymbolList {
		b = p.AppendSymbolList(b)
	}
	if o.DetailedSummary {
		b = p.readerSummary(rel).AppendText(b, rel)
	}
	if o.TopN > 0 || o.HotList {
		b = p.appendHotList(b, rel, o.TopN, extra, o.Function)
	}
	return b
}

// findShown is the reader's getSamplesFor(name) of release rel.
func (p *Profile) findShown(name string, rel llvmrelease.Release) *FunctionSamples {
	if p.CS {
		// A name is never a CS context in any release.
		return nil
	}
	if rel.SampleLegacyReader16() {
		return p.Lookup(Name(name))
	}
	h := llvmname.GUID(name)
	for _, fs := range p.Funcs {
		if fs.Name.MD5() == h {
			return fs
		}
	}
	return nil
}

type shower struct {
	p       *Profile
	vtables bool
}

func (s *shower) vtableLine(b []byte, fs *FunctionSamples, loc LineLocation, ind int) []byte {
	if !s.vtables {
		return b
	}
	return appendVTableLine(b, fs, loc, ind, ": vtables: ")
}

// print is FunctionSamples::print.
func (s *shower) print(b []byte, fs *FunctionSamples, ind int) []byte {
	if fs.Checksum != 0 {
		b = append(b, "CFG checksum "...)
		b = strconv.AppendUint(b, fs.Checksum, 10)
		b = append(b, '\n')
	}
	b = strconv.AppendUint(b, fs.TotalSamples, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, fs.HeadSamples, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(len(fs.Body)), 10)
	b = append(b, " sampled lines\n"...)
	b = indent(b, ind)
	if len(fs.Body) > 0 {
		b = append(b, "Samples collected in the function's body {\n"...)
		for i := range fs.Body {
			bs := &fs.Body[i]
			b = indent(b, ind+2)
			b = bs.Loc.appendTo(b)
			b = append(b, ": "...)
			b = strconv.AppendUint(b, bs.Samples, 10)
			if len(bs.Calls) > 0 {
				b = append(b, ", calls:"...)
				for _, c := range bs.SortedCalls() {
					b = append(b, ' ')
					b = c.Func.appendTo(b)
					b = append(b, ':')
					b = strconv.AppendUint(b, c.Count, 10)
				}
			}
			b = append(b, '\n')
			b = s.vtableLine(b, fs, bs.Loc, ind+2)
		}
		b = indent(b, ind)
		b = append(b, "}\n"...)
	} else {
		b = append(b, "No samples collected in the function's body\n"...)
	}
	b = indent(b, ind)
	if len(fs.Callsites) > 0 {
		b = append(b, "Samples collected in inlined callsites {\n"...)
		for i, c := range fs.Callsites {
			b = indent(b, ind+2)
			b = c.Loc.appendTo(b)
			b = append(b, ": inlined callee: "...)
			b = c.Callee.Name.appendTo(b)
			b = append(b, ": "...)
			b = s.print(b, c.Callee, ind+4)
			if i+1 == len(fs.Callsites) || fs.Callsites[i+1].Loc != c.Loc {
				b = s.vtableLine(b, fs, c.Loc, ind+2)
			}
		}
		b = indent(b, ind)
		b = append(b, "}\n"...)
	} else {
		b = append(b, "No inlined callsites in this function\n"...)
	}
	return b
}

// hotFuncCutoff is the detailed-summary cutoff whose minimum count makes a
// block hot in showHotFunctionList.
const hotFuncCutoff = 990000

// funcStats is getFuncSampleStats over a profile and its inlinees: the
// largest count of a block.
func funcStats(fs *FunctionSamples, maxSample *uint64) {
	for i := range fs.Body {
		*maxSample = max(*maxSample, fs.Body[i].Samples)
	}
	for _, c := range fs.Callsites {
		funcStats(c.Callee, maxSample)
	}
}

// headEstimate is FunctionSamples::getHeadSamplesEstimate.
func (fs *FunctionSamples) headEstimate(cs bool) uint64 {
	if cs && fs.HeadSamples != 0 {
		return fs.HeadSamples
	}
	var n uint64
	if len(fs.Body) > 0 && (len(fs.Callsites) == 0 || fs.Body[0].Loc.Compare(fs.Callsites[0].Loc) < 0) {
		n = fs.Body[0].Samples
	} else if len(fs.Callsites) > 0 {
		// Every inlinee at the first callsite location.
		for _, c := range fs.Callsites {
			if c.Loc != fs.Callsites[0].Loc {
				break
			}
			n += c.Callee.headEstimate(cs)
		}
	}
	if n == 0 && fs.TotalSamples > 0 {
		n = 1
	}
	return n
}

// readerSummary is the summary release rel's reader reports: the one a
// binary profile carries, or the one computed from its map.
func (p *Profile) readerSummary(rel llvmrelease.Release) *Summary {
	if p.summary != nil {
		return p.summary
	}
	return p.computeSummary(stdMapPass(p.Funcs, mapKey(rel)))
}

// appendHotList is showHotFunctionList and dumpHotFunctionList; extra,
// if not nil, is one more profile in the map, inserted last under the key
// of extraName.
func (p *Profile) appendHotList(b []byte, rel llvmrelease.Release, topN int, extra *FunctionSamples, extraName string) []byte {
	sum := p.readerSummary(rel)
	var threshold uint64
	for _, e := range sum.Detailed {
		if e.Cutoff == hotFuncCutoff {
			threshold = e.MinCount
			break
		}
	}
	type row struct {
		fs      *FunctionSamples
		maxSamp uint64
	}
	var rows []row
	var total, hotTotal uint64
	// The reader's map, in its iteration order.
	funcs := p.Funcs
	if extra != nil {
		funcs = append(slices.Clone(funcs), extra)
	}
	key := mapKey(rel)
	funcs = stdMapPass(funcs, func(fs *FunctionSamples) uint64 {
		if fs == extra {
			return contextHash(&FunctionSamples{Name: Name(extraName)}, rel, FunctionID.MD5)
		}
		return key(fs)
	})
	for _, fs := range funcs {
		total += fs.TotalSamples
		var m uint64
		funcStats(fs, &m)
		// "Hot" is having a block of at least the threshold, but a
		// function without blocks (max 0) is hot at threshold 0.
		if m >= threshold {
			rows = append(rows, row{fs, m})
			hotTotal += fs.TotalSamples
		}
	}
	// A std::multimap ordered by total samples, descending: equal keys
	// keep their insertion order.
	slices.SortStableFunc(rows, func(x, y row) int { return cmp.Compare(y.fs.TotalSamples, x.fs.TotalSamples) })
	nFuncs := len(funcs)

	var col int
	put := func(s string) {
		b = append(b, s...)
		col += len(s)
	}
	pad := func(to int) {
		n := max(to-col, 1)
		b = indent(b, n)
		col += n
	}
	newline := func() {
		b = append(b, '\n')
		col = 0
	}
	put(strconv.Itoa(len(rows)) + " out of " + strconv.Itoa(nFuncs) + " functions with profile (" +
		percent(float64(len(rows))/float64(nFuncs)*100) + ") are considered hot functions (max sample >= " +
		strconv.FormatUint(threshold, 10) + ").")
	newline()
	var hotPercent float64
	if total > 0 {
		hotPercent = float64(hotTotal) / float64(total) * 100
	}
	put(strconv.FormatUint(hotTotal, 10) + " out of " + strconv.FormatUint(total, 10) + " profile counts (" +
		percent(hotPercent) + ") are from hot functions.")
	newline()
	columns := []int{0, 24, 42, 58}
	for i, title := range []string{"Total sample (%)", "Max sample", "Entry sample", "Function name"} {
		pad(columns[i])
		put(title)
	}
	newline()
	for i, r := range rows {
		if topN > 0 && i == topN {
			break
		}
		var pc float64
		if total > 0 {
			pc = float64(r.fs.TotalSamples) * 100.0 / float64(total)
		}
		pad(columns[0])
		put(strconv.FormatUint(r.fs.TotalSamples, 10) + " (" + percent(pc) + ")")
		pad(columns[1])
		put(strconv.FormatUint(r.maxSamp, 10))
		pad(columns[2])
		put(strconv.FormatUint(r.fs.headEstimate(p.CS), 10))
		pad(columns[3])
		b = r.fs.appendContext(b)
		newline()
	}
	return b
}

// percent is printf("%.2f%%", v) as glibc prints it.
func percent(v float64) string {
	if v != v {
		return "-nan%" // 0.0/0.0 on x86 has the sign bit set
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "%"
}

// Section names and flag names of dumpSectionInfo.
func sectionName(typ uint64) string {
	switch typ {
	case 0:
		return "InvalidSection"
	case secProfSummary:
		return "ProfileSummarySection"
	case secNameTable:
		return "NameTableSection"
	case secProfSymbolList:
		return "ProfileSymbolListSection"
	case secFuncOffsetTable:
		return "FuncOffsetTableSection"
	case secFuncMetadata:
		return "FunctionMetadata"
	case secCSNameTable:
		return "CSNameTableSection"
	case secLBRProfile:
		return "LBRProfileSection"
	}
	return "UnknownSection"
}

// sectionFlags is getSecFlagsStr.
func sectionFlags(s Section) string {
	f := "{"
	if s.Flags&secFlagComp != 0 {
		f = "{compressed,"
	}
	if s.Flags&secFlagFlat != 0 {
		f += "flat,"
	}
	has := func(bit uint64, name string) {
		if s.Flags&bit != 0 {
			f += name + ","
		}
	}
	switch s.Type {
	case secNameTable:
		if s.Flags&flagFixedLengthMD5 != 0 {
			f += "fixlenmd5,"
		} else {
			has(flagMD5Name, "md5")
		}
		has(flagUniqSuffix, "uniq")
	case secProfSummary:
		has(flagPartial, "partial")
		has(flagFullContext, "context")
		has(flagIsPreInlined, "preInlined")
		has(flagFSDiscriminator, "fs-discriminator")
	case secFuncOffsetTable:
		has(flagOrdered, "ordered")
	case secFuncMetadata:
		has(flagProbeBased, "probe")
		has(flagHasAttribute, "attr")
	}
	if f[len(f)-1] == ',' {
		return f[:len(f)-1] + "}"
	}
	return f + "}"
}

// AppendSectionInfo appends what `llvm-profdata show --sample
// --show-sec-info-only` prints for an extbinary profile of fileSize bytes
// whose section table is secs (ReadSections).
func AppendSectionInfo(b []byte, secs []Section, fileSize int) []byte {
	var total, header uint64
	for _, s := range secs {
		b = append(b, sectionName(s.Type)...)
		b = append(b, " - Offset: "...)
		b = strconv.AppendUint(b, s.Offset, 10)
		b = append(b, ", Size: "...)
		b = strconv.AppendUint(b, s.Size, 10)
		b = append(b, ", Flags: "...)
		b = append(b, sectionFlags(s)...)
		b = append(b, '\n')
		total += s.Size
	}
	if len(secs) > 0 {
		header = secs[0].Offset
	}
	b = append(b, "Header Size: "...)
	b = strconv.AppendUint(b, header, 10)
	b = append(b, "\nTotal Sections Size: "...)
	b = strconv.AppendUint(b, total, 10)
	b = append(b, "\nFile Size: "...)
	b = strconv.AppendInt(b, int64(fileSize), 10)
	return append(b, '\n')
}
