package profview

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleHTMLOptions are what WriteSampleHTML shows.
type SampleHTMLOptions struct {
	Title string // e.g. the profile's base name
	// LLVM is the release whose reader gives the summary (0 means 22).
	Release llvmrelease.Release
	// Top is how many functions (most samples first) are shown with
	// their bodies (default 30); HotRows caps the hot-function list
	// (default 500).
	Top, HotRows int
	// Symbols, when they hold the profiled binary's functions
	// (SampleGUID keys), turn line offsets into source lines and give
	// each function's file and first line; probe ids stay as they are.
	Symbols *Symbols
}

// SampleHotList is `llvm-profdata show --sample --hot-func-list`'s
// headline: a function is hot when a line of it (inlinees included) has
// at least Threshold samples, the summary's minimum count at the 990000
// cutoff.
type SampleHotList struct {
	Threshold           uint64
	Hot, Funcs          int
	HotTotal, Total     uint64
	HotPct, HotTotalPct string // as show prints them, e.g. "42.86"
	// Rows are the hot functions, most total samples first (ties in
	// the reader's map order), with their largest line count.
	Rows []SampleHotRow
}

// SampleHotRow is one hot function.
type SampleHotRow struct {
	FS  *sampleprof.FunctionSamples
	Max uint64
}

// HotList computes the hot-function list of p as release llvm's
// `show --sample --hot-func-list` does.
func HotList(p *sampleprof.Profile, release llvmrelease.Release) SampleHotList {
	h := SampleHotList{Threshold: p.ReaderSummary(release).CountThreshold(sampleprof.HotCutoff)}
	for _, fs := range p.ReaderOrder(release) {
		h.Funcs++
		h.Total += fs.TotalSamples
		var st funcSampleStats
		sampleStats(fs, 0, &st)
		if st.max >= h.Threshold {
			h.Hot++
			h.HotTotal += fs.TotalSamples
			h.Rows = append(h.Rows, SampleHotRow{fs, st.max})
		}
	}
	slices.SortStableFunc(h.Rows, func(x, y SampleHotRow) int { return cmp.Compare(y.FS.TotalSamples, x.FS.TotalSamples) })
	h.HotPct = pctOf(uint64(h.Hot), uint64(h.Funcs))
	h.HotTotalPct = pctOf(h.HotTotal, h.Total)
	return h
}

func pctOf(a, b uint64) string {
	if b == 0 {
		return "0.00"
	}
	return strconv.FormatFloat(float64(a)*100/float64(b), 'f', 2, 64)
}

type sampleHTMLPage struct {
	Title, Kind          string
	Summary              []htmlKV
	Detailed             []sampleprof.SummaryEntry
	Hot                  SampleHotList
	HotRows              []sampleHotHTML
	HotCut               int
	Cold                 uint64
	Funcs                []sampleFuncHTML
	Flame                flameSVG
	ShownFuncs, AllFuncs int
	FlameWhat, LineNote  string
}

type htmlKV struct {
	ID, Label string
	Value     uint64
}

type sampleHotHTML struct {
	Name, Mangled    string
	Total, Head, Max uint64
	Class, TotalPct  string
}

type sampleFuncHTML struct {
	Name, Mangled, Where string
	Total, Head          uint64
	Class                string
	Rows                 []sampleRowHTML
}

type sampleRowHTML struct {
	Depth   int
	Loc     string
	Samples string
	Calls   string
	Inlinee string // set on the row that opens an inlinee
	Class   string
}

// hotness is the class of a count: hot at the hot threshold or more,
// cold at the cold threshold or less (ProfileSummaryInfo's isHotCount
// and isColdCount), else warm.
func hotness(n, hot, cold uint64) string {
	switch {
	case n >= hot:
		return "hot"
	case n <= cold:
		return "cold"
	}
	return "warm"
}

// WriteSampleHTML writes one self-contained HTML page (inline CSS and
// SVG, no script, nothing fetched) of a sample profile: the summary as
// the reader reports it, the hot functions with LLVM's cutoffs (hot: a
// line at the 990000 cutoff's minimum count; cold: at most the 999999
// cutoff's), the bodies of the functions with most samples (lines and
// discriminators, call targets, inlinees), and a flame graph of the
// calling contexts (CS profiles) or of the inline trees (others).
// Names are demangled as llvm-symbolizer prints them.
func WriteSampleHTML(w io.Writer, p *sampleprof.Profile, o SampleHTMLOptions) error {
	if o.Top <= 0 {
		o.Top = 30
	}
	if o.HotRows <= 0 {
		o.HotRows = 500
	}
	sum := p.ReaderSummary(o.Release)
	hl := HotList(p, o.Release)
	cold := sum.CountThreshold(sampleprof.ColdCutoff)
	page := sampleHTMLPage{Title: o.Title, Kind: sampleKind(p), Detailed: sum.Detailed, Hot: hl, Cold: cold, AllFuncs: len(p.Funcs)}
	page.Summary = []htmlKV{
		{"total-functions", "Total functions", sum.NumFunctions},
		{"max-function-count", "Maximum function count", sum.MaxFunctionCount},
		{"max-block-count", "Maximum block count", sum.MaxCount},
		{"total-blocks", "Total number of blocks", sum.NumCounts},
		{"total-count", "Total count", sum.TotalCount},
		{"hot-threshold", "Hot count threshold (cutoff 990000)", hl.Threshold},
		{"cold-threshold", "Cold count threshold (cutoff 999999)", cold},
	}
	for _, r := range hl.Rows[:min(len(hl.Rows), o.HotRows)] {
		page.HotRows = append(page.HotRows, sampleHotHTML{Name: ContextName(r.FS), Mangled: r.FS.ContextString(),
			Total: r.FS.TotalSamples, Head: r.FS.HeadSamples, Max: r.Max, Class: "hot", TotalPct: pctOf(r.FS.TotalSamples, hl.Total)})
	}
	page.HotCut = len(hl.Rows) - len(page.HotRows)

	byTotal := slices.Clone(p.Sorted())
	slices.SortStableFunc(byTotal, func(x, y *sampleprof.FunctionSamples) int { return cmp.Compare(y.TotalSamples, x.TotalSamples) })
	for _, fs := range byTotal[:min(len(byTotal), o.Top)] {
		var st funcSampleStats
		sampleStats(fs, 0, &st)
		f := sampleFuncHTML{Name: ContextName(fs), Mangled: fs.ContextString(), Total: fs.TotalSamples, Head: fs.HeadSamples,
			Class: hotness(st.max, hl.Threshold, cold)}
		f.Where = o.Symbols.sampleWhere(fs.Name)
		bodyRows(&f.Rows, fs, 0, rowStyle{o.Symbols, p.ProbeBased, hl.Threshold, cold})
		page.Funcs = append(page.Funcs, f)
	}
	page.ShownFuncs = len(page.Funcs)
	page.FlameWhat = "inline trees: each function with the functions inlined into it below"
	if p.CS {
		page.FlameWhat = "calling contexts: callers above callees, inlined functions below their callers"
	}
	page.Flame = sampleFlame(p, o.Symbols, hl.Threshold, cold)
	page.LineNote = o.Symbols.sampleLineNote(p.ProbeBased)
	return sampleHTMLTemplate.Execute(w, page)
}

func sampleKind(p *sampleprof.Profile) string {
	var k []string
	if p.CS {
		k = append(k, "context-sensitive (CSSPGO)")
	}
	if p.ProbeBased {
		k = append(k, "pseudo-probe based")
	}
	if p.FS {
		k = append(k, "flow-sensitive discriminators")
	}
	if p.PreInlined {
		k = append(k, "pre-inlined")
	}
	if len(k) == 0 {
		k = append(k, "AutoFDO (line based)")
	}
	for _, fs := range p.Funcs {
		if fs.Name.IsHash() {
			k = append(k, "names are MD5 hashes (the profile holds no function names)")
			break
		}
	}
	return strings.Join(k, ", ")
}

// rowStyle is how bodyRows prints lines and classes.
type rowStyle struct {
	syms      *Symbols
	probe     bool
	hot, cold uint64
}

// bodyRows appends the lines of fs and, after each callsite's location,
// its inlinees (one level deeper), in location order.
func bodyRows(rows *[]sampleRowHTML, fs *sampleprof.FunctionSamples, depth int, st rowStyle) {
	hot, cold := st.hot, st.cold
	bi, ci := 0, 0
	for bi < len(fs.Body) || ci < len(fs.Callsites) {
		if ci == len(fs.Callsites) || (bi < len(fs.Body) && fs.Body[bi].Loc.Compare(fs.Callsites[ci].Loc) <= 0) {
			b := &fs.Body[bi]
			var calls []string
			for _, c := range b.SortedCalls() {
				calls = append(calls, fmt.Sprintf("%s: %d", demangle.Name(c.Func.String()), c.Count))
			}
			*rows = append(*rows, sampleRowHTML{Depth: depth, Loc: st.syms.sampleLoc(fs.Name, b.Loc, st.probe), Samples: strconv.FormatUint(b.Samples, 10),
				Calls: strings.Join(calls, ", "), Class: hotness(b.Samples, hot, cold)})
			bi++
			continue
		}
		c := fs.Callsites[ci]
		inl := demangle.Name(c.Callee.Name.String())
		if where := st.syms.sampleWhere(c.Callee.Name); where != "" {
			inl += " (" + where + ")"
		}
		*rows = append(*rows, sampleRowHTML{Depth: depth, Loc: st.syms.sampleLoc(fs.Name, c.Loc, st.probe), Samples: strconv.FormatUint(c.Callee.TotalSamples, 10),
			Inlinee: inl, Class: "inl"})
		bodyRows(rows, c.Callee, depth+1, st)
		ci++
	}
}

// sampleNode is a frame of the flame graph.
type sampleNode struct {
	label, title string
	self, total  uint64
	max          uint64
	children     map[string]*sampleNode
}

func (n *sampleNode) child(key, label, title string) *sampleNode {
	c := n.children[key]
	if c == nil {
		c = &sampleNode{label: label, title: title, children: map[string]*sampleNode{}}
		n.children[key] = c
	}
	return c
}

// sampleFlame draws the contexts of p (CS) or its inline trees: a
// frame's width is the samples of its lines and those below it.
func sampleFlame(p *sampleprof.Profile, syms *Symbols, hot, cold uint64) flameSVG {
	root := &sampleNode{label: "all", title: "all", children: map[string]*sampleNode{}}
	var add func(n *sampleNode, fs *sampleprof.FunctionSamples)
	add = func(n *sampleNode, fs *sampleprof.FunctionSamples) {
		for _, b := range fs.Body {
			n.self += b.Samples
			n.max = max(n.max, b.Samples)
		}
		for _, c := range fs.Callsites {
			name := demangle.Name(c.Callee.Name.String())
			add(n.child("i"+locString(c.Loc)+"\x00"+c.Callee.Name.String(), name+" (inlined)", name+" inlined at line "+syms.sampleLoc(fs.Name, c.Loc, p.ProbeBased)), c.Callee)
		}
	}
	for _, fs := range p.Sorted() {
		n := root
		if fs.Context == nil {
			name := demangle.Name(fs.Name.String())
			n = n.child("f"+fs.Name.String(), name, name)
		} else {
			loc := ""
			for _, f := range fs.Context {
				name := demangle.Name(f.Func.String())
				title := name
				if loc != "" {
					title += " called at line " + loc
				}
				n = n.child("c"+loc+"\x00"+f.Func.String(), name, title)
				loc = syms.sampleLoc(f.Func, f.Loc, p.ProbeBased)
			}
		}
		add(n, fs)
	}
	var total func(n *sampleNode) uint64
	total = func(n *sampleNode) uint64 {
		n.total = n.self
		for _, c := range n.children {
			n.total += total(c)
		}
		return n.total
	}
	total(root)
	children := func(n *sampleNode) map[string]*sampleNode { return n.children }
	return layoutFlame(root, func(n *sampleNode) uint64 { return n.total }, children, func(n *sampleNode, d int) flameRect {
		cls := hotness(n.max, hot, cold)
		if d == 0 {
			cls = "all"
		}
		return flameRect{Label: n.label, Title: fmt.Sprintf("%s\n%d samples (%d in its own lines)", n.title, n.total, n.self), Class: cls}
	})
}

var sampleHTMLTemplate = htmlTemplateOf("sample", template.FuncMap{
	"indent": func(d int) string { return fmt.Sprintf("padding-left: %dem", 1+2*d) },
	"permille": func(c uint64) string {
		return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(float64(c)/10000, 'f', 4, 64), "0"), ".")
	},
}, `{{define "style"}}tr.hot td.n { background: #ffd0c8; } tr.cold td.n { background: #cfe3ff; } tr.warm td.n { background: #f1f1e6; }
tr.inl td { background: #f4f4f4; font-style: italic; }
{{end}}{{template "head" (heading "Sample profile report" .Title)}}<p>Kind: {{.Kind}}. Lines are {{.LineNote}}.</p>
<h2>Summary</h2>
<table id="summary">
{{range .Summary}}<tr><th>{{.Label}}</th><td class="n" id="summary-{{.ID}}">{{.Value}}</td></tr>
{{end}}<tr><th>Hot functions</th><td class="n"><span id="hot-functions">{{.Hot.Hot}}</span> of <span id="functions-with-profile">{{.Hot.Funcs}}</span> (<span id="hot-functions-pct">{{.Hot.HotPct}}</span>%)</td></tr>
<tr><th>Samples in hot functions</th><td class="n"><span id="hot-samples">{{.Hot.HotTotal}}</span> of <span id="total-samples">{{.Hot.Total}}</span> (<span id="hot-samples-pct">{{.Hot.HotTotalPct}}</span>%)</td></tr>
</table>
<details><summary>Detailed summary (count thresholds per cutoff)</summary>
<table id="detailed">
<tr><th>cutoff</th><th>blocks</th><th>min count</th></tr>
{{range .Detailed}}<tr><td class="n">{{permille .Cutoff}}%</td><td class="n" id="detailed-{{.Cutoff}}-blocks">{{.NumCounts}}</td><td class="n" id="detailed-{{.Cutoff}}-mincount">{{.MinCount}}</td></tr>
{{end}}</table></details>
<h2>Flame graph: {{.FlameWhat}}</h2>
<p class="legend">Width is samples; colour is the hotness of a frame's largest line count:
<span class="hot">hot</span><span class="warm">warm</span><span class="cold">cold</span> (hover for the numbers).</p>
{{template "flame" .Flame}}<h2>Hot functions (a line of at least {{.Hot.Threshold}} samples)</h2>
<div class="wide"><table id="hot">
<tr><th>function</th><th>total samples</th><th>% of all</th><th>head samples</th><th>largest line</th></tr>
{{range .HotRows}}<tr class="{{.Class}}"><td class="mono" title="{{.Mangled}}">{{.Name}}</td><td class="n">{{.Total}}</td><td class="n">{{.TotalPct}}</td><td class="n">{{.Head}}</td><td class="n">{{.Max}}</td></tr>
{{end}}</table></div>
{{if .HotCut}}<p>{{.HotCut}} more hot functions not listed.</p>{{end}}
<h2>Functions with most samples ({{.ShownFuncs}} of {{.AllFuncs}})</h2>
{{range .Funcs}}<h3 class="mono" title="{{.Mangled}}">{{.Name}}{{if .Where}} <span class="where">{{.Where}}</span>{{end}}</h3>
<p>total {{.Total}}, head {{.Head}}, <span class="{{.Class}}">{{.Class}}</span></p>
<div class="wide"><table>
<tr><th>line</th><th>samples</th><th>call targets</th></tr>
{{range .Rows}}<tr class="{{.Class}}"><td class="mono" style="{{indent .Depth}}">{{.Loc}}</td><td class="n">{{.Samples}}</td><td class="mono">{{if .Inlinee}}inlined: {{.Inlinee}}{{else}}{{.Calls}}{{end}}</td></tr>
{{end}}</table></div>
{{end}}{{template "foot"}}`)
