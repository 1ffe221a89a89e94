package profview_test

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// shortName is the identifier a function's definition line holds: the
// last component of its demangled name, without parameters, template
// arguments and a destructor's "~".
func shortName(name string) string {
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	if i := strings.IndexByte(name, '<'); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.LastIndexByte(name, ' '); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimPrefix(name, "~")
}

// instrMemFixture merges gen.sh's shapes-llvm22-mem run (instrumentation
// and MemProf profiles of one process, a -gmlt binary) with
// llvm-profdata-22 into one indexed profile, and returns it, the binary
// and shapes.cc's lines.
func instrMemFixture(t *testing.T) (indexed, bin string, src []string) {
	dir := instrproftest.Fixtures(t)
	profdata := testenv.Tool(t, "llvm-profdata-22")
	bin = filepath.Join(dir, "shapes-llvm22-mem")
	indexed = filepath.Join(t.TempDir(), "both.profdata")
	if out, err := exec.Command(profdata, "merge", "--profiled-binary", bin, "-o", indexed,
		testenv.FixtureFile(t, dir, "shapes-llvm22-mem.profraw"), testenv.FixtureFile(t, dir, "shapes-llvm22-mem.memprofraw")).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profdata-22 merge: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "src", "shapes.cc"))
	if err != nil {
		t.Fatal(err)
	}
	return indexed, bin, strings.Split(string(b), "\n")
}

// TestInstrPprofNamesAndLines: the pprof view of an instrumented profile
// with its profiled binary names every function demangled, and each
// function of shapes.cc sits at the line that defines it; go tool pprof
// reads it (-top, and -diff_base against another run). Without the
// binary a comment says so.
func TestInstrPprofNamesAndLines(t *testing.T) {
	indexed, bin, src := instrMemFixture(t)
	var buf bytes.Buffer
	if err := profmerge.ShowInstrView(&buf, indexed, profmerge.InstrViewOptions{Format: "pprof", Binary: bin, Show: instrprof.ShowOptions{Release: 22}}); err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range p.Function {
		if strings.HasPrefix(f.Name, "_Z") {
			t.Errorf("%s is not demangled", f.Name)
		}
		if filepath.Base(f.Filename) != "shapes.cc" || f.StartLine == 0 {
			continue
		}
		if f.StartLine > int64(len(src)) || !strings.Contains(src[f.StartLine-1], shortName(f.Name)) {
			t.Errorf("%s at shapes.cc:%d: the line does not define it", f.Name, f.StartLine)
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("only %d functions of shapes.cc have lines", checked)
	}
	tmp := t.TempDir()
	pb := filepath.Join(tmp, "a.pb.gz")
	if err := os.WriteFile(pb, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", pb).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "main") {
		t.Errorf("go tool pprof -top: %v\n%s", err, out)
	}
	buf.Reset()
	if err := profmerge.ShowInstrView(&buf, indexed, profmerge.InstrViewOptions{Format: "pprof", Show: instrprof.ShowOptions{Release: 22}}); err != nil {
		t.Fatal(err)
	}
	if p, err := profile.ParseData(buf.Bytes()); err != nil || !strings.Contains(strings.Join(p.Comments, "\n"), profview.NoBinaryNote) {
		t.Errorf("pprof without a binary: %v, comments %q", err, p.Comments)
	}
	// diff --format=pprof of two runs: go tool pprof reads it.
	dir := instrproftest.Fixtures(t)
	var d bytes.Buffer
	if err := profmerge.DiffInstr(&d, filepath.Join(dir, "shapes-llvm22-ir-3.profraw"), filepath.Join(dir, "shapes-llvm22-ir-50.profraw"), profmerge.InstrDiffOptions{Format: "pprof"}); err != nil {
		t.Fatal(err)
	}
	dpb := filepath.Join(tmp, "d.pb.gz")
	if err := os.WriteFile(dpb, d.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "tool", "pprof", "-top", dpb).CombinedOutput(); err != nil || !strings.Contains(string(out), "main") {
		t.Errorf("go tool pprof -top of the diff: %v\n%s", err, out)
	}
}

// TestInstrHTMLInChromium renders the HTML report of an indexed profile
// holding instrumentation and MemProf data in headless Chromium, offline,
// and checks that every summary number in the DOM is the text view's
// (which equals llvm-profdata-22 show's), the MemProf part's totals are
// the hints', and the hottest functions of shapes.cc show the lines that
// define them. The screenshot is out/profview/instr-report.png.
func TestInstrHTMLInChromium(t *testing.T) {
	chromium := testenv.Tool(t, "chromium")
	indexed, bin, src := instrMemFixture(t)
	var page, text bytes.Buffer
	if err := profmerge.ShowInstrView(&page, indexed, profmerge.InstrViewOptions{Format: "html", Binary: bin, Show: instrprof.ShowOptions{Release: 22}}); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=|url\(|@import|<script|<link`).FindString(page.String()); m != "" {
		t.Errorf("the report refers to something outside it: %q", m)
	}
	if err := profmerge.ShowInstr(&text, indexed, instrprof.ShowOptions{Release: 22}); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(testenv.Tool(t, "llvm-profdata-22"), "show", indexed).Output()
	if err != nil || string(want) != text.String() {
		t.Fatalf("the text view differs from llvm-profdata-22 show (%v):\n%s\n%s", err, want, text.String())
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, here, _, _ := runtime.Caller(0)
	outDir := filepath.Join(filepath.Dir(here), "../../out/profview")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(outDir, "instr-report.png")
	os.Remove(shot)
	run := func(args ...string) string { return headless(t, chromium, file, args...) }
	dom := run("--dump-dom")
	sum := profview.ParseSummary(text.String())
	numbers := 0
	for _, l := range sum {
		if _, err := strconv.ParseUint(l.Value, 10, 64); err == nil {
			numbers++
		}
		if w := fmt.Sprintf(`id="%s">%s<`, profview.SummaryID(l.Label), html.EscapeString(l.Value)); !strings.Contains(dom, w) {
			t.Errorf("the DOM lacks %s", w)
		}
	}
	if numbers < 5 {
		t.Errorf("the text view's summary has %d numbers: %q", numbers, sum)
	}
	mp, err := profmerge.LoadMemProf(indexed, "", 22, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms := profview.Summarize(profview.Contexts(mp, profview.DefaultThresholds(22)))
	if w := fmt.Sprintf(`id="memprof-total-bytes">%d<`, ms.TotalBytes); ms.TotalBytes == 0 || !strings.Contains(dom, w) {
		t.Errorf("the DOM lacks the MemProf part's %s", w)
	}
	rows := regexp.MustCompile(`<tr><td>([^<]*)</td><td class="mono">([^<]*)</td>`).FindAllStringSubmatch(dom, -1)
	checked := 0
	for _, r := range rows {
		name, where := html.UnescapeString(r[1]), html.UnescapeString(r[2])
		f, line, ok := strings.Cut(where, ":")
		if !ok || filepath.Base(f) != "shapes.cc" {
			continue
		}
		n, _ := strconv.Atoi(line)
		if n < 1 || n > len(src) || !strings.Contains(src[n-1], shortName(name)) {
			t.Errorf("%s at shapes.cc:%d: the line does not define it", name, n)
		}
		checked++
	}
	if checked < 4 {
		t.Errorf("only %d hot functions of shapes.cc have lines:\n%q", checked, rows)
	}
	run("--screenshot="+shot, "--window-size=1280,1600")
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
}
