package profview

import (
	"fmt"
	"io"
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
	page.Flame = flameGraph(ctxs, syms)
	return htmlTemplate.Execute(w, page)
}

type htmlPage struct {
	Title, Flags, Rule string
	Note               string // NoBinaryNote or ""
	Release            llvmrelease.Release
	Summary            []htmlSumRow
	Top                []htmlCtx
	ByHint             []htmlGroup
	Flame              flameSVG
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

func flameGraph(ctxs []Context, syms *Symbols) flameSVG {
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
	total := func(n *flameNode) uint64 { return n.total }
	children := func(n *flameNode) map[string]*flameNode { return n.children }
	return layoutFlame(root, total, children, func(n *flameNode, d int) flameRect {
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
		return flameRect{Label: n.name, Title: fmt.Sprintf("%s\n%d bytes (%s)", n.name, n.total, strings.Join(parts, ", ")), Class: cls}
	})
}

var htmlTemplate = htmlTemplateOf("report", nil, `{{define "style"}}.stack { white-space: pre; }
{{end}}{{template "head" (heading "MemProf report" .Title)}}<p>Hints as clang {{.Release}} derives them with <code>{{.Flags}}</code>.</p>
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
{{template "flame" .Flame}}<h2>Largest contexts</h2>
{{template "ctxs" .Top}}
{{range .ByHint}}<h2>Largest {{.Type}} contexts</h2>
{{if .Rows}}{{template "ctxs" .Rows}}{{else}}<p>none</p>{{end}}
{{end}}{{template "foot"}}{{define "ctxs"}}<div class="wide"><table>
<tr><th>hint</th><th>bytes</th><th>allocations</th><th>why</th><th>stack (leaf first)</th></tr>
{{range .}}<tr class="{{.Type}}"><td>{{.Type}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Allocs}}</td><td>{{.Why}}</td><td class="stack">{{range $i, $f := .Stack}}{{if $i}}
{{end}}{{$f}}{{end}}</td></tr>
{{end}}</table></div>{{end}}
`)
