package profview

import (
	"fmt"
	"html/template"
	"slices"
)

// This file holds what the HTML reports (MemProf: html.go, sample
// profiles: samplehtml.go, instrumentation profiles: instrhtml.go)
// share: the page skeleton and its styles, and the flame graph's layout
// and SVG. Each report's template is htmlTemplateOf(its own parts).

// flameRect is a frame of a flame graph as the SVG draws it.
type flameRect struct {
	X, Y, W   float64
	Label     string
	Title     string
	Class     string
	ShowLabel bool
}

// flameSVG is a laid-out flame graph: its frames and its height.
type flameSVG struct {
	Rects  []flameRect
	Height int
}

const (
	flameWidth = 1200.0
	flameRow   = 18
)

// layoutFlame lays out the tree below root, callers above callees: a
// frame's width is its share of its parent's total, children in the
// order of their keys; frames narrower than half a pixel are left out
// (with what is below them). rect gives a frame's label, title and
// class; layoutFlame sets its place.
func layoutFlame[N any](root N, total func(N) uint64, children func(N) map[string]N, rect func(n N, depth int) flameRect) flameSVG {
	var g flameSVG
	var walk func(n N, x, w float64, d int)
	walk = func(n N, x, w float64, d int) {
		if w < 0.5 {
			return
		}
		g.Height = max(g.Height, (d+1)*flameRow)
		r := rect(n, d)
		r.X, r.Y, r.W, r.ShowLabel = x, float64(d*flameRow), w, w > 40
		g.Rects = append(g.Rects, r)
		kids := children(n)
		keys := make([]string, 0, len(kids))
		for k := range kids {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		cx, t := x, total(n)
		for _, k := range keys {
			c := kids[k]
			cw := 0.0
			if t > 0 {
				cw = w * float64(total(c)) / float64(t)
			}
			walk(c, cx, cw, d+1)
			cx += cw
		}
	}
	walk(root, 0, flameWidth, 0)
	return g
}

// pageHeading is what the "head" template titles a page with:
// "Heading: Title" ("Heading" when Title is empty).
type pageHeading struct{ Heading, Title string }

// htmlFuncs are the functions every report's template may call.
var htmlFuncs = template.FuncMap{
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
	"heading": func(h, title string) pageHeading { return pageHeading{h, title} },
}

// htmlShared defines "head" (called with a pageHeading: the doctype,
// the styles every report shares plus the report's "style", and the
// page's h1), "flame" (a flameSVG) and "foot". The hotness classes are
// LLVM's: hot, cold and warm (sample profiles), notcold (MemProf hints).
const htmlShared = `{{define "style"}}{{end}}
{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Heading}}{{if .Title}}: {{.Title}}{{end}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; margin: 1.2em 0 .3em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono, .stack { font: 12px/1.3 ui-monospace, monospace; }
.hot { background: #ffd0c8; } .cold { background: #cfe3ff; } .warm, .notcold { background: #f1f1e6; }
svg rect.cold { fill: #6fa8e6; } svg rect.hot { fill: #e8674f; } svg rect.warm, svg rect.notcold { fill: #e6c36f; }
svg rect.all { fill: #bbb; } svg rect { stroke: #fff; stroke-width: .5; }
svg text { font: 11px ui-monospace, monospace; pointer-events: none; }
.wide { overflow-x: auto; } .legend span { padding: 0 .6em; margin-right: .4em; }
{{template "style"}}</style>
</head>
<body>
<h1>{{.Heading}}{{if .Title}}: <code>{{.Title}}</code>{{end}}</h1>
{{end}}
{{define "flame"}}<div class="wide">
<svg id="flame" xmlns="http://www.w3.org/2000/svg" width="{{w}}" height="{{.Height}}" viewBox="0 0 {{w}} {{.Height}}">
{{range .Rects}}<g><title>{{.Title}}</title><rect class="{{.Class}}" x="{{f1 .X}}" y="{{.Y}}" width="{{f1 .W}}" height="17"></rect>{{if .ShowLabel}}<text x="{{f1 .X}}" dx="3" y="{{.Y}}" dy="13">{{clip .Label .W}}</text>{{end}}</g>
{{end}}</svg>
</div>
{{end}}
{{define "foot"}}</body>
</html>
{{end}}`

// htmlTemplateOf is a report's template: the shared parts, funcs (the
// report's own functions, if any), then text, which calls "head",
// "flame" and "foot" and may define "style".
func htmlTemplateOf(name string, funcs template.FuncMap, text string) *template.Template {
	t := template.Must(template.New(name).Funcs(htmlFuncs).Funcs(funcs).Parse(htmlShared))
	return template.Must(t.Parse(text))
}
