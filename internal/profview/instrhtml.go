package profview

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// SummaryLine is one "Label: value" line of a text view's summary, which
// the HTML report shows with the same words and numbers.
type SummaryLine struct{ Label, Value string }

// ParseSummary returns the "Label: value" lines of a text view (those
// after its per-function part), in order.
func ParseSummary(text string) []SummaryLine {
	var out []SummaryLine
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		k, v, ok := strings.Cut(l, ": ")
		if !ok || v == "" {
			continue
		}
		out = append(out, SummaryLine{k, v})
	}
	return out
}

// SummaryID is the DOM id of a summary line: "summary-" and its label in
// lower case, spaces as dashes.
func SummaryID(label string) string {
	return "summary-" + strings.ToLower(strings.Join(strings.Fields(label), "-"))
}

// InstrHTMLOptions are what WriteInstrHTML shows besides the records.
type InstrHTMLOptions struct {
	Title string
	Top   int // functions shown in detail (default 30)
	// Summary is the text view's summary (ParseSummary of `merge show`).
	Summary []SummaryLine
	// MemProf, if set, is the profile's MemProf part (an indexed profile
	// holding both), summarised with its hints.
	MemProf    []Context
	Thresholds Thresholds
}

type instrHTMLFunc struct {
	Name, Where, PGO string
	Hash             string
	Sum, Max, Entry  uint64
	NCounts          int
	CS               bool
	Counts           string
	Values           []instrHTMLSite
}

type instrHTMLSite struct {
	Kind    string
	Site    int
	Entries []instrHTMLValue
}

type instrHTMLValue struct {
	Target string
	Count  uint64
	Share  string
}

// WriteInstrHTML writes one self-contained HTML page (inline CSS, no
// script, nothing fetched) for an instrumented profile: the text view's
// summary, the hottest functions (by the sum of their counters) with
// their block counts and value profiles (indirect-call targets, memory
// intrinsic sizes, vtables), and the MemProf part when the profile has
// one. Names are demangled; with syms (the profiled binary), a function
// shows its source file and first line.
func WriteInstrHTML(w io.Writer, in *InstrInput, syms *Symbols, o InstrHTMLOptions) error {
	if o.Top <= 0 {
		o.Top = 30
	}
	names := map[uint64]string{}
	for i := range in.Records {
		names[llvmname.GUID(in.Records[i].Name)] = in.Records[i].Name
	}
	type rec struct {
		r        *instrprof.FuncRecord
		sum, max uint64
	}
	recs := make([]rec, 0, len(in.Records))
	for i := range in.Records {
		r := &in.Records[i]
		x := rec{r: r}
		for _, c := range r.Counts {
			x.sum += c
			x.max = max(x.max, c)
		}
		recs = append(recs, x)
	}
	slices.SortStableFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(b.sum, a.sum); c != 0 {
			return c
		}
		return strings.Compare(a.r.Name, b.r.Name)
	})
	page := instrHTMLPage{Title: o.Title, Summary: o.Summary, Note: syms.Note(), Total: len(recs)}
	for _, x := range recs[:min(o.Top, len(recs))] {
		r := x.r
		f := instrHTMLFunc{Name: InstrDisplayName(r.Name), PGO: r.Name, Hash: fmt.Sprintf("0x%016x", r.Hash),
			Sum: x.sum, Max: x.max, NCounts: len(r.Counts), CS: isCS(in, r)}
		if len(r.Counts) > 0 {
			f.Entry = r.Counts[0]
		}
		if fn := syms.fn(InstrGUID(r.Name)); fn.Line > 0 {
			f.Where = fmt.Sprintf("%s:%d", fn.File, fn.Line)
		}
		counts := make([]string, len(r.Counts))
		for i, c := range r.Counts {
			counts[i] = fmt.Sprint(c)
		}
		f.Counts = strings.Join(counts, ", ")
		for k, kind := range []string{"indirect call", "memop size", "vtable"} {
			for s, site := range r.Values[k] {
				st := instrHTMLSite{Kind: kind, Site: s}
				var total uint64
				for _, v := range site {
					total += v.Count
				}
				for _, v := range site {
					t := fmt.Sprint(v.Value)
					if k != instrprof.IPVKMemOPSize {
						if n, ok := names[v.Value]; ok {
							t = InstrDisplayName(n)
						} else {
							t = fmt.Sprintf("0x%016x", v.Value)
						}
					}
					st.Entries = append(st.Entries, instrHTMLValue{Target: t, Count: v.Count, Share: fmt.Sprintf("%.2f%%", float64(v.Count)*100/float64(max(total, 1)))})
				}
				if len(st.Entries) > 0 {
					f.Values = append(f.Values, st)
				}
			}
		}
		page.Funcs = append(page.Funcs, f)
	}
	if len(o.MemProf) > 0 {
		s := Summarize(o.MemProf)
		page.MemProf = true
		page.MemRelease = o.Thresholds.Release
		for _, ty := range AllocTypes {
			page.MemSummary = append(page.MemSummary, htmlSumRow{Type: ty.String(), Contexts: s.Contexts[ty], Bytes: s.Bytes[ty], Allocs: s.Allocs[ty]})
		}
		page.MemSummary = append(page.MemSummary, htmlSumRow{Type: "total", Contexts: s.TotalContexts, Bytes: s.TotalBytes, Allocs: s.TotalAllocs})
	}
	return instrHTMLTemplate.Execute(w, page)
}

type instrHTMLPage struct {
	Title, Note string
	Summary     []SummaryLine
	Funcs       []instrHTMLFunc
	Total       int
	MemProf     bool
	MemRelease  llvmrelease.Release
	MemSummary  []htmlSumRow
}

var instrHTMLTemplate = htmlTemplateOf("instr", template.FuncMap{"sid": SummaryID}, `{{define "style"}}.counts { font: 12px/1.3 ui-monospace, monospace; max-width: 70em; overflow-wrap: anywhere; }
{{end}}{{template "head" (heading "Instrumentation profile" .Title)}}{{if .Note}}<p id="note">Note: {{.Note}}.</p>{{end}}
<h2>Summary</h2>
<table id="summary">
{{range .Summary}}<tr><th>{{.Label}}</th><td class="n" id="{{sid .Label}}">{{.Value}}</td></tr>
{{end}}</table>
<h2>Hottest functions (by the sum of their counters; {{len .Funcs}} of {{.Total}})</h2>
<div class="wide"><table id="hot">
<tr><th>function</th><th>source</th><th>counter sum</th><th>max counter</th><th>first counter</th><th>counters</th></tr>
{{range $i, $f := .Funcs}}<tr><td>{{$f.Name}}{{if $f.CS}} (context-sensitive){{end}}</td><td class="mono">{{$f.Where}}</td><td class="n">{{$f.Sum}}</td><td class="n">{{$f.Max}}</td><td class="n">{{$f.Entry}}</td><td class="n">{{$f.NCounts}}</td></tr>
{{end}}</table></div>
{{range $i, $f := .Funcs}}<h3 id="f{{$i}}">{{$f.Name}}</h3>
<p class="mono">{{$f.PGO}} hash {{$f.Hash}}{{if $f.Where}} at {{$f.Where}}{{end}}</p>
<p>Block counts ({{$f.NCounts}}):</p><p class="counts">[{{$f.Counts}}]</p>
{{if $f.Values}}<table><tr><th>value profile</th><th>site</th><th>target or size</th><th>count</th><th>share of the site</th></tr>
{{range $f.Values}}{{$s := .}}{{range .Entries}}<tr><td>{{$s.Kind}}</td><td class="n">{{$s.Site}}</td><td class="mono">{{.Target}}</td><td class="n">{{.Count}}</td><td class="n">{{.Share}}</td></tr>
{{end}}{{end}}</table>{{end}}
{{end}}
{{if .MemProf}}<h2>MemProf part</h2>
<p>Hints as clang {{.MemRelease}} derives them with its default thresholds (see <code>merge show --memory --format=html</code> for the contexts).</p>
<table id="memprof-summary"><tr><th>hint</th><th>contexts</th><th>bytes</th><th>allocations</th></tr>
{{range .MemSummary}}<tr><td>{{.Type}}</td><td class="n" id="memprof-{{.Type}}-contexts">{{.Contexts}}</td><td class="n" id="memprof-{{.Type}}-bytes">{{.Bytes}}</td><td class="n" id="memprof-{{.Type}}-allocations">{{.Allocs}}</td></tr>
{{end}}</table>{{end}}
{{template "foot"}}`)
