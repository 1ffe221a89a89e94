package profview_test

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// frameRE is a frame as the text views print it with the binary's lines:
// "name file:line:column", " (inlined)" after inline frames.
var frameRE = regexp.MustCompile(`^(.+) (/[^ ]+):(\d+):(\d+)( \(inlined\))?$`)

// srcFrame is one frame of a view: its demangled name and absolute line.
type srcFrame struct {
	name, file string
	line       int
}

// TestViewNamesAndLines runs every MemProf view of app.cc's profile
// (clang++-22, raw and indexed by llvm-profdata-22, with
// --profiled-binary) and checks each frame against the program's source:
// names are demangled as llvm-symbolizer prints them, and the absolute
// line of every frame in app.cc holds the allocation (for the leaf) or
// the call of the frame below it. The hot path
// main → hot_loop → hot_alloc → alloc_buf (inlined) must show the lines
// the source has for its calls and its new. Without the binary, every
// view says so.
func TestViewNamesAndLines(t *testing.T) {
	const n = 22
	profdata := testenv.Tool(t, "llvm-profdata-22")
	dir := memproftest.Fixtures(t)
	bin := filepath.Join(dir, "app-llvm22-nopie")
	raw := memproftest.Fixture(t, "app-llvm22-nopie-a.memprofraw")
	src, err := os.ReadFile(filepath.Join(dir, "src", "app.cc"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	lineOf := func(substr string) int {
		for i, l := range lines {
			if strings.Contains(l, substr) {
				return i + 1
			}
		}
		t.Fatalf("app.cc has no line with %q", substr)
		return 0
	}
	hotPath := []srcFrame{
		{"alloc_buf(unsigned long)", "app.cc", lineOf("return new char[n]")},
		{"hot_alloc(unsigned long)", "app.cc", lineOf("char *hot_alloc(size_t n) { return alloc_buf(n)")},
		{"hot_loop(int, unsigned long)", "app.cc", lineOf("char *p = hot_alloc(size)")},
		{"main", "app.cc", lineOf("hot_loop(b ? 500")},
	}
	// The names of the profile's functions as LLVM prints them.
	symNames := profdataNames(t, profdata, bin, raw)

	indexed := filepath.Join(t.TempDir(), "a.profdata")
	if out, err := exec.Command(profdata, "merge", "--profiled-binary", bin, raw, "-o", indexed).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profdata-22 merge: %v\n%s", err, out)
	}
	view := func(path, format, binary string) []byte {
		var buf bytes.Buffer
		if err := profmerge.ShowMemoryView(&buf, path, profmerge.MemoryShowOptions{Binary: binary, Release: n, Format: format}); err != nil {
			t.Fatalf("%s view of %s: %v", format, path, err)
		}
		return buf.Bytes()
	}
	// check checks one stack (leaf first) against the source.
	check := func(what string, stack []srcFrame) {
		for i, f := range stack {
			if strings.HasPrefix(f.name, "_Z") || strings.HasPrefix(f.name, "0x") {
				t.Errorf("%s: frame %q is not demangled", what, f.name)
			}
			if !symNames[f.name] {
				t.Errorf("%s: LLVM names no function of the profile %q", what, f.name)
			}
			if filepath.Base(f.file) != "app.cc" {
				continue
			}
			if f.line < 1 || f.line > len(lines) {
				t.Errorf("%s: %s at line %d: app.cc has %d lines", what, f.name, f.line, len(lines))
				continue
			}
			text := lines[f.line-1]
			want := "new "
			if i > 0 {
				callee := stack[i-1].name
				if filepath.Base(stack[i-1].file) != "app.cc" {
					continue
				}
				want = callee[:strings.IndexByte(callee, '(')] + "("
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s: %s at app.cc:%d: the line %q has no %q", what, f.name, f.line, text, want)
			}
		}
	}
	hasHotPath := func(what string, stacks [][]srcFrame) {
		for _, s := range stacks {
			if len(s) != len(hotPath) {
				continue
			}
			ok := true
			for i := range s {
				ok = ok && s[i].name == hotPath[i].name && filepath.Base(s[i].file) == hotPath[i].file && s[i].line == hotPath[i].line
			}
			if ok {
				return
			}
		}
		t.Errorf("%s: no stack is the hot path %v", what, hotPath)
	}

	for _, in := range []struct{ name, path string }{{"raw", raw}, {"indexed", indexed}} {
		// Text hints.
		hints := string(view(in.path, "hints", bin))
		stacks := textStacks(t, hints)
		if len(stacks) == 0 {
			t.Fatalf("%s hints: no stacks:\n%s", in.name, hints)
		}
		for _, s := range stacks {
			check(in.name+" hints", s)
		}
		hasHotPath(in.name+" hints", stacks)
		if strings.Contains(hints, profview.NoBinaryNote) {
			t.Errorf("%s hints: says there is no binary", in.name)
		}

		// pprof: functions demangled with their file and first line,
		// lines absolute.
		p, err := profile.ParseData(view(in.path, "pprof", bin))
		if err != nil {
			t.Fatal(err)
		}
		var pstacks [][]srcFrame
		for _, s := range p.Sample {
			var st []srcFrame
			for _, l := range s.Location {
				for _, ln := range l.Line {
					if ln.Function.StartLine == 0 || ln.Function.Filename == "" || ln.Line < ln.Function.StartLine {
						t.Errorf("%s pprof: %s has start %s:%d, line %d", in.name, ln.Function.Name, ln.Function.Filename, ln.Function.StartLine, ln.Line)
					}
					st = append(st, srcFrame{ln.Function.Name, ln.Function.Filename, int(ln.Line)})
				}
			}
			check(in.name+" pprof", st)
			pstacks = append(pstacks, st)
		}
		hasHotPath(in.name+" pprof", pstacks)

		// HTML and diff print the frames as the hints do.
		page := string(view(in.path, "html", bin))
		var diff bytes.Buffer
		if err := profmerge.DiffMemory(&diff, in.path, in.path, profmerge.MemoryShowOptions{Binary: bin, Release: n, Format: "text"}); err != nil {
			t.Fatal(err)
		}
		// Every frame of the hints, as printed, is in the HTML.
		for _, l := range strings.Split(hints, "\n") {
			if l = strings.TrimPrefix(l, "    "); frameRE.MatchString(l) && !strings.Contains(page, html.EscapeString(l)) && !strings.Contains(page, templateEscape(l)) {
				t.Errorf("%s html: lacks the frame %q", in.name, l)
			}
		}
		for _, f := range hotPath {
			if !strings.Contains(page, f.name) {
				t.Errorf("%s html: lacks %q", in.name, f.name)
			}
		}
		if strings.Contains(page, profview.NoBinaryNote) || strings.Contains(diff.String(), profview.NoBinaryNote) {
			t.Errorf("%s html or diff: says there is no binary", in.name)
		}
		// A diff of a profile with another: the same frames.
		var dd bytes.Buffer
		rawB := memproftest.Fixture(t, "app-llvm22-nopie-b.memprofraw")
		if in.name == "raw" {
			if err := profmerge.DiffMemory(&dd, in.path, rawB, profmerge.MemoryShowOptions{Binary: bin, Release: n, Format: "text"}); err != nil {
				t.Fatal(err)
			}
			var dstacks [][]srcFrame
			_, sections, _ := strings.Cut(dd.String(), "\nAdded (only in B)")
			for _, l := range strings.Split(sections, "\n") {
				if !strings.HasPrefix(l, "    ") {
					continue
				}
				var st []srcFrame
				for _, fs := range strings.Split(strings.TrimSpace(l), " < ") {
					st = append(st, parseFrame(t, "diff", fs))
				}
				check("diff", st)
				dstacks = append(dstacks, st)
			}
			if len(dstacks) == 0 {
				t.Errorf("diff A B: no stacks:\n%s", dd.String())
			}
		}
	}

	// Without the binary: an indexed profile's views say so, once.
	hints := string(view(indexed, "hints", ""))
	if strings.Count(hints, profview.NoBinaryNote) != 1 {
		t.Errorf("hints without a binary: want the note once:\n%s", hints)
	}
	if !regexp.MustCompile(`(?m)^    0x[0-9a-f]{16}:\+\d+:\d+`).MatchString(hints) {
		t.Errorf("hints without a binary: frames are not GUIDs with offsets:\n%s", hints)
	}
	if page := string(view(indexed, "html", "")); strings.Count(page, templateEscape(profview.NoBinaryNote)) != 1 {
		t.Errorf("html without a binary: want the note once")
	}
	p, err := profile.ParseData(view(indexed, "pprof", ""))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range p.Comments {
		found = found || c == profview.NoBinaryNote
	}
	if !found {
		t.Errorf("pprof without a binary: comments %q lack the note", p.Comments)
	}
	var diff bytes.Buffer
	if err := profmerge.DiffMemory(&diff, indexed, indexed, profmerge.MemoryShowOptions{Release: n, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(diff.String(), profview.NoBinaryNote) != 1 {
		t.Errorf("diff without a binary: want the note once:\n%s", diff.String())
	}
}

// templateEscape is how html/template escapes text.
func templateEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '"':
			b.WriteString("&#34;")
		case '+':
			b.WriteString("&#43;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func parseFrame(t *testing.T, what, s string) srcFrame {
	m := frameRE.FindStringSubmatch(s)
	if m == nil {
		t.Errorf("%s: frame %q has no absolute source line", what, s)
		return srcFrame{name: s}
	}
	line, _ := strconv.Atoi(m[3])
	return srcFrame{m[1], m[2], line}
}

// textStacks returns the stacks of the hints report, leaf first.
func textStacks(t *testing.T, hints string) [][]srcFrame {
	var out [][]srcFrame
	var cur []srcFrame
	in := false
	for _, l := range strings.Split(hints, "\n") {
		switch {
		case l == "  stack:":
			in, cur = true, nil
		case in && strings.HasPrefix(l, "    "):
			cur = append(cur, parseFrame(t, "hints", strings.TrimPrefix(l, "    ")))
		default:
			if in {
				out = append(out, cur)
			}
			in = false
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

// profdataNames returns the names of the raw profile's functions as
// llvm-profdata-22 show --memory symbolizes them, demangled by
// llvm-cxxfilt-22 (LLVM's demangler, the one llvm-symbolizer uses).
func profdataNames(t *testing.T, profdata, bin, raw string) map[string]bool {
	out, err := exec.Command(profdata, "show", "--memory", "--profiled-binary", bin, raw).Output()
	if err != nil {
		t.Fatalf("llvm-profdata-22 show --memory: %v", err)
	}
	var mangled bytes.Buffer
	for _, l := range strings.Split(string(out), "\n") {
		if _, name, ok := strings.Cut(l, "SymbolName: "); ok {
			mangled.WriteString(strings.TrimSpace(name) + "\n")
		}
	}
	cmd := exec.Command(testenv.Tool(t, "llvm-cxxfilt-22"))
	cmd.Stdin = &mangled
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-cxxfilt-22: %v", err)
	}
	names := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			names[l] = true
		}
	}
	if len(names) == 0 {
		t.Fatalf("llvm-profdata-22 show --memory names no function:\n%s", out)
	}
	return names
}
