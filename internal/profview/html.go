package profview

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// HTMLOptions are what WriteHTML shows besides the contexts.
type HTMLOptions struct {
	Title string // e.g. the profile's base name
	Top   int    // contexts per table (default 20)
}

// WriteHTML writes one self-contained HTML page (inline CSS and SVG, no
// script, nothing fetched): the summary per hint, the largest contexts,
// the largest contexts of each hint and a flame graph of the bytes
// allocated per calling context (roots at the top, callees below; the
// colour of a frame is the hint of most of its bytes).
func WriteHTML(w io.Writer, ctxs []Context, t Thresholds, syms *Symbols, o HTMLOptions) error {
	if o.Top <= 0 {
		o.Top = 20
	}
	s := Summarize(ctxs)
	page := htmlPage{Title: o.Title, Release: t.Release, Flags: strings.Join(t.Flags(), " "), Note: syms.Note()}
	var rule strings.Builder
	writeRule(&rule, t)
	page.Rule = strings.TrimSpace(strings.ReplaceAll(rule.String(), "# ", ""))
	for _, ty := range AllocTypes {
		page.Summary = append(page.Summary, htmlSumRow{Type: ty.String(), Contexts: s.Contexts[ty], Bytes: s.Bytes[ty], Allocs: s.Allocs[ty]})
	}
	page.Summary = append(page.Summary, htmlSumRow{Type: "total", Contexts: s.TotalContexts, Bytes: s.TotalBytes, Allocs: s.TotalAllocs})
	row := func(c *Context) htmlCtx {
		r := htmlCtx{Type: c.Hint.String(), ID: c.ID, Bytes: c.Info.TotalSize, Allocs: c.Info.AllocCount, Why: c.Decision.Why}
		if c.HintNote != "" {
			r.Why += "; " + c.HintNote
		}
		for _, f := range c.Frames {
			fs := syms.Frame(f)
			if f.IsInlineFrame {
				fs += " (inlined)"
			}
			r.Stack = append(r.Stack, fs)
		}
		return r
	}
	for i := range ctxs[:min(o.Top, len(ctxs))] {
		page.Top = append(page.Top, row(&ctxs[i]))
	}
	for _, ty := range AllocTypes {
		g := htmlGroup{Type: ty.String()}
		for i := range ctxs {
			if ctxs[i].Hint == ty && len(g.Rows) < o.Top {
				g.Rows = append(g.Rows, row(&ctxs[i]))
			}
		}
		page.ByHint = append(page.ByHint, g)
	}
	page.Flame, page.FlameHeight = flameGraph(ctxs, syms)
	return htmlTemplate.Execute(w, page)
}

type htmlPage struct {
	Title, Flags, Rule string
	Note               string // NoBinaryNote or ""
	Release            llvmrelease.Release
	Summary            []htmlSumRow
	Top                []htmlCtx
	ByHint             []htmlGroup
	Flame              []flameRect
	FlameHeight        int
}

type htmlSumRow struct {
	Type                    string
	Contexts, Bytes, Allocs uint64
}

type htmlCtx struct {
	Type   string
	ID     uint64
	Bytes  uint64
	Allocs uint32
	Why    string
	Stack  []string
}

type htmlGroup struct {
	Type string
	Rows []htmlCtx
}

// flameNode is a calling context in the flame graph: a frame reached by
// the path from the root.
type flameNode struct {
	name     string
	bytes    map[AllocType]uint64
	total    uint64
	children map[string]*flameNode
}

type flameRect struct {
	X, Y, W   float64
	Label     string
	Title     string
	Class     string
	ShowLabel bool
}

const (
	flameWidth = 1200.0
	flameRow   = 18
)

func flameGraph(ctxs []Context, syms *Symbols) ([]flameRect, int) {
	root := &flameNode{name: "all", bytes: map[AllocType]uint64{}, children: map[string]*flameNode{}}
	for i := range ctxs {
		c := &ctxs[i]
		n := root
		n.total += c.Info.TotalSize
		n.bytes[c.Hint] += c.Info.TotalSize
		for j := len(c.Frames) - 1; j >= 0; j-- {
			f := c.Frames[j]
			key := syms.Frame(f)
			child := n.children[key]
			if child == nil {
				child = &flameNode{name: key, bytes: map[AllocType]uint64{}, children: map[string]*flameNode{}}
				n.children[key] = child
			}
			n = child
			n.total += c.Info.TotalSize
			n.bytes[c.Hint] += c.Info.TotalSize
		}
	}
	var rects []flameRect
	depth := 0
	var walk func(n *flameNode, x, w float64, d int)
	walk = func(n *flameNode, x, w float64, d int) {
		if w < 0.5 {
			return
		}
		depth = max(depth, d+1)
		cls := "notcold"
		best := uint64(0)
		for _, ty := range AllocTypes {
			if n.bytes[ty] > best {
				best, cls = n.bytes[ty], ty.String()
			}
		}
		if d == 0 {
			cls = "all"
		}
		var parts []string
		for _, ty := range AllocTypes {
			if n.bytes[ty] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", ty, n.bytes[ty]))
			}
		}
		rects = append(rects, flameRect{X: x, Y: float64(d * flameRow), W: w, Label: n.name, ShowLabel: w > 40,
			Title: fmt.Sprintf("%s\n%d bytes (%s)", n.name, n.total, strings.Join(parts, ", ")), Class: cls})
		keys := make([]string, 0, len(n.children))
		for k := range n.children {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		cx := x
		for _, k := range keys {
			c := n.children[k]
			cw := 0.0
			if n.total > 0 {
				cw = w * float64(c.total) / float64(n.total)
			}
			walk(c, cx, cw, d+1)
			cx += cw
		}
	}
	walk(root, 0, flameWidth, 0)
	return rects, depth * flameRow
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"f1": func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"w":  func() float64 { return flameWidth },
	"clip": func(s string, w float64) string {
		n := int(w / 7)
		if len(s) <= n {
			return s
		}
		if n < 3 {
			return ""
		}
		return s[:n-2] + ".."
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>MemProf report{{if .Title}}: {{.Title}}{{end}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, .stack { font: 12px/1.3 ui-monospace, monospace; }
.stack { white-space: pre; }
.cold { background: #cfe3ff; } .hot { background: #ffd0c8; } .notcold { background: #f1f1e6; }
svg rect.cold { fill: #6fa8e6; } svg rect.hot { fill: #e8674f; } svg rect.notcold { fill: #e6c36f; }
svg rect.all { fill: #bbb; } svg rect { stroke: #fff; stroke-width: .5; }
.wide { overflow-x: auto; } .legend span { padding: 0 .6em; margin-right: .4em; }
svg text { font: 11px ui-monospace, monospace; pointer-events: none; }
</style>
</head>
<body>
<h1>MemProf report{{if .Title}}: <code>{{.Title}}</code>{{end}}</h1>
<p>Hints as clang {{.Release}} derives them with <code>{{.Flags}}</code>.</p>
<p class="stack">{{.Rule}}</p>
{{if .Note}}<p id="note">Note: {{.Note}}.</p>{{end}}
<h2>Summary</h2>
<table id="summary">
<tr><th>hint</th><th>contexts</th><th>bytes</th><th>allocations</th></tr>
{{range .Summary}}<tr class="{{.Type}}"><td>{{.Type}}</td><td class="n" id="summary-{{.Type}}-contexts">{{.Contexts}}</td><td class="n" id="summary-{{.Type}}-bytes">{{.Bytes}}</td><td class="n" id="summary-{{.Type}}-allocations">{{.Allocs}}</td></tr>
{{end}}</table>
<h2>Flame graph: bytes allocated by calling context</h2>
<p class="legend">Callers above callees; width is bytes; colour is the hint of most of a frame's bytes:
<span class="cold">cold</span><span class="notcold">notcold</span><span class="hot">hot</span> (hover for the numbers).</p>
<div class="wide">
<svg id="flame" xmlns="http://www.w3.org/2000/svg" width="{{w}}" height="{{.FlameHeight}}" viewBox="0 0 {{w}} {{.FlameHeight}}">
{{range .Flame}}<g><title>{{.Title}}</title><rect class="{{.Class}}" x="{{f1 .X}}" y="{{.Y}}" width="{{f1 .W}}" height="17"></rect>{{if .ShowLabel}}<text x="{{f1 .X}}" dx="3" y="{{.Y}}" dy="13">{{clip .Label .W}}</text>{{end}}</g>
{{end}}</svg>
</div>
<h2>Largest contexts</h2>
{{template "ctxs" .Top}}
{{range .ByHint}}<h2>Largest {{.Type}} contexts</h2>
{{if .Rows}}{{template "ctxs" .Rows}}{{else}}<p>none</p>{{end}}
{{end}}</body>
</html>
{{define "ctxs"}}<div class="wide"><table>
<tr><th>hint</th><th>bytes</th><th>allocations</th><th>why</th><th>stack (leaf first)</th></tr>
{{range .}}<tr class="{{.Type}}"><td>{{.Type}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Allocs}}</td><td>{{.Why}}</td><td class="stack">{{range $i, $f := .Stack}}{{if $i}}
{{end}}{{$f}}{{end}}</td></tr>
{{end}}</table></div>{{end}}
`))
