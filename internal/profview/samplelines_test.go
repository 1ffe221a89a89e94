package profview_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// dwarfTruth is what llvm-symbolizer says of every instruction of a
// binary: per function (linkage name, canonical), its DW_AT_decl_line
// ("Function start line") and file, and the lines of it the line table
// maps some instruction to (inlined frames included).
type dwarfTruth struct {
	start map[string]int64
	file  map[string]string
	lines map[string]map[int64]bool
}

func symbolizeAll(t *testing.T, bin string) dwarfTruth {
	t.Helper()
	objdump := testenv.Tool(t, "llvm-objdump-22")
	symbolizer := testenv.Tool(t, "llvm-symbolizer-22")
	dis, err := exec.Command(objdump, "-d", "--no-show-raw-insn", bin).Output()
	if err != nil {
		t.Fatalf("llvm-objdump-22 -d %s: %v", bin, err)
	}
	var addrs bytes.Buffer
	for _, m := range regexp.MustCompile(`(?m)^\s+([0-9a-f]+):`).FindAllSubmatch(dis, -1) {
		addrs.WriteString("0x" + string(m[1]) + "\n")
	}
	cmd := exec.Command(symbolizer, "--obj="+bin, "--verbose", "--inlining", "--no-demangle")
	cmd.Stdin = &addrs
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-symbolizer-22: %v", err)
	}
	tr := dwarfTruth{start: map[string]int64{}, file: map[string]string{}, lines: map[string]map[int64]bool{}}
	var fn, file string
	var start int64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "  ") {
			fn = llvmname.Canonical(strings.TrimSpace(l))
			continue
		}
		k, v, _ := strings.Cut(strings.TrimSpace(l), ": ")
		switch k {
		case "Filename":
			file = v
		case "Function start line":
			start, _ = strconv.ParseInt(v, 10, 64)
			tr.start[fn], tr.file[fn] = start, file
		case "Line":
			n, _ := strconv.ParseInt(v, 10, 64)
			if tr.lines[fn] == nil {
				tr.lines[fn] = map[int64]bool{}
			}
			tr.lines[fn][n] = true
		}
	}
	return tr
}

// TestSampleViewLinesFromBinary holds the source lines the sample views
// show with --profiled-binary to what llvm-symbolizer-22 reads from the
// binary's DWARF, on profiles llvm-profgen-22 and our profgen made from
// real programs: every function's first line is its DW_AT_decl_line
// (and the source text there names it), and every line with samples is
// a line of that function the line table maps an instruction to. Probe
// ids stay as the profile holds them.
func TestSampleViewLinesFromBinary(t *testing.T) {
	fx := sampleFixtures(t)
	repoSource := map[string]string{}
	for _, src := range append(slices.Clone(profgenSources), callchainSources...) {
		repoSource[filepath.Base(src.File)] = src.File
	}
	for _, name := range []string{"inline-lbr.txt", "ours-inline-lbr.txt", "calls-lbr.prof", "cycles-cs.txt", "cycles-nested.prof"} {
		t.Run(name, func(t *testing.T) {
			bin := fx["bin:"+name]
			tr := symbolizeAll(t, bin)
			var buf bytes.Buffer
			if err := profmerge.ShowSampleView(&buf, fx[name], profmerge.SampleViewOptions{Release: 22, Binary: bin}); err != nil {
				t.Fatal(err)
			}
			p, err := profile.Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			checked, lines, sources := 0, 0, 0
			for _, f := range p.Function {
				want, ok := tr.start[llvmname.Canonical(f.SystemName)]
				if !ok {
					continue
				}
				checked++
				if f.StartLine != want || f.Filename != tr.file[llvmname.Canonical(f.SystemName)] {
					t.Errorf("%s starts at %s:%d, llvm-symbolizer says %s:%d", f.SystemName, f.Filename, f.StartLine, tr.file[llvmname.Canonical(f.SystemName)], want)
				}
				// The fixture's source in this repository (the cached
				// build may come from another checkout).
				if src, err := os.ReadFile(repoSource[filepath.Base(f.Filename)]); err == nil {
					sources++
					text := strings.Split(string(src), "\n")
					short := baseName(f.Name)
					if f.StartLine < 1 || int(f.StartLine) > len(text) || !strings.Contains(text[f.StartLine-1], short) {
						t.Errorf("%s: line %d of %s does not name it", f.Name, f.StartLine, f.Filename)
					}
				}
			}
			for _, s := range p.Sample {
				if s.Value[0] == 0 {
					continue // head samples sit at the function's first line
				}
				for _, ln := range s.Location[0].Line {
					fn := llvmname.Canonical(ln.Function.SystemName)
					if tr.lines[fn] == nil {
						continue
					}
					lines++
					if !tr.lines[fn][ln.Line] {
						t.Errorf("%s: line %d has samples, but no instruction of it maps to that line", ln.Function.Name, ln.Line)
					}
				}
			}
			if checked == 0 || lines == 0 || sources == 0 {
				t.Fatalf("no function checked (%d), no line (%d) or no source read (%d)", checked, lines, sources)
			}
			t.Logf("%d functions (%d with their source), %d sampled lines checked", checked, sources, lines)

			// The HTML report: each function's header names its file and
			// first line; its rows are lines, not offsets.
			buf.Reset()
			if err := profmerge.ShowSampleHTML(&buf, fx[name], profmerge.SampleViewOptions{Release: 22, Binary: bin}); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			if !strings.Contains(html, "source lines of the profiled binary") {
				t.Errorf("the report does not say its lines are source lines")
			}
			heads := regexp.MustCompile(`<h3 class="mono" title="([^"]*)">[^<]*<span class="where">([^<]*):(\d+)</span>`).FindAllStringSubmatch(html, -1)
			for _, h := range heads {
				fn := strings.Trim(h[1], "[]") // a CS context: its leaf
				fn = fn[strings.LastIndex(fn, " @ ")+1:]
				fn = strings.TrimPrefix(fn, "@ ")
				fn = llvmname.Canonical(fn)
				if want, ok := tr.start[fn]; ok && (strconv.FormatInt(want, 10) != h[3] || tr.file[fn] != h[2]) {
					t.Errorf("HTML: %s at %s:%s, llvm-symbolizer says %s:%d", fn, h[2], h[3], tr.file[fn], want)
				}
			}
			if len(heads) == 0 {
				t.Errorf("HTML: no function header names its file and line")
			}
		})
	}
}

// TestSampleViewProbeIDsStay: a probe-based profile's views keep probe
// ids with the profiled binary, and say so.
func TestSampleViewProbeIDsStay(t *testing.T) {
	fx := sampleFixtures(t)
	name := "probe-lbr.prof"
	view := func(bin string) []byte {
		var buf bytes.Buffer
		if err := profmerge.ShowSampleView(&buf, fx[name], profmerge.SampleViewOptions{Release: 22, Binary: bin}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	plain, withBin := view(""), view(fx["bin:"+name])
	if !bytes.Equal(plain, withBin) {
		t.Errorf("the pprof view of a probe-based profile changed with the binary")
	}
	var buf bytes.Buffer
	if err := profmerge.ShowSampleHTML(&buf, fx[name], profmerge.SampleViewOptions{Release: 22, Binary: fx["bin:"+name]}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "pseudo-probe ids") {
		t.Errorf("the HTML report of a probe-based profile does not say its numbers are probe ids")
	}
}

// baseName is the unqualified name of a demangled function name:
// "long (anonymous namespace)::clampv<long>(long, long, long)" → "clampv".
func baseName(n string) string {
	// cutGroup drops the bracketed group that ends n (open ... close).
	cutGroup := func(n string, open, close byte) string {
		if !strings.HasSuffix(n, string(close)) {
			return n
		}
		depth := 0
		for i := len(n) - 1; i >= 0; i-- {
			switch n[i] {
			case close:
				depth++
			case open:
				if depth--; depth == 0 {
					return n[:i]
				}
			}
		}
		return n
	}
	n = cutGroup(cutGroup(n, '(', ')'), '<', '>')
	n = n[strings.LastIndex(n, "::")+1:]
	return strings.TrimPrefix(n[strings.LastIndex(n, " ")+1:], ":")
}

// TestSampleDiffLinesFromBinary: `merge diff --sample --profiled-binary`
// heads each function's lines with its file and DW_AT_decl_line as
// llvm-symbolizer-22 reads them, and shows lines the line table maps to
// that function.
func TestSampleDiffLinesFromBinary(t *testing.T) {
	fx := sampleFixtures(t)
	a, b := "inline-lbr.txt", "inline-modern.prof"
	bin := fx["bin:"+a]
	if fx["bin:"+b] != bin {
		t.Fatalf("%s and %s come from different binaries", a, b)
	}
	tr := symbolizeAll(t, bin)
	var buf bytes.Buffer
	o := profmerge.SampleDiffOptions{Top: 100, Binary: bin}
	o.Release = 22
	if err := profmerge.DiffSample(&buf, fx[a], fx[b], "text", o); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.Contains(text, "lines are source lines of the profiled binary") {
		t.Errorf("the diff does not say its lines are source lines:\n%s", text)
	}
	// Source line of each function: its demangled name → file:line.
	byName := map[string]string{}
	for fn, l := range tr.start {
		byName[demangle.Name(fn)] = tr.file[fn] + ":" + strconv.FormatInt(l, 10)
	}
	heads := 0
	for _, m := range regexp.MustCompile(`(?m)^  (\S.*)  (\S+:\d+)$`).FindAllStringSubmatch(text, -1) {
		want, ok := byName[m[1]]
		if !ok {
			continue
		}
		heads++
		if m[2] != want {
			t.Errorf("%s at %s, llvm-symbolizer says %s", m[1], m[2], want)
		}
	}
	if heads == 0 {
		t.Errorf("no function of the diff is headed by its file and line:\n%s", text)
	}
	t.Logf("%d function heads checked", heads)
}
