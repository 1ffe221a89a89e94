package profview_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestSampleHTMLInChromium renders the HTML report of real sample
// profiles (CS with a flame graph of contexts, probe-based, line-based)
// in headless Chromium with the network cut off, checks that every
// summary number in the DOM equals what `merge show --sample
// --detailed-summary --hot-func-list` prints (LLVM 22's text, and 19's
// for the maximum block count 22 no longer prints), that names are
// demangled, and saves a screenshot of the CS report as
// out/profview/sample-report.png.
func TestSampleHTMLInChromium(t *testing.T) {
	chromium := testenv.Tool(t, "chromium")
	fx := sampleFixtures(t)
	_, here, _, _ := runtime.Caller(0)
	outDir := filepath.Join(filepath.Dir(here), "../../out/profview")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cycles-cs.txt", "probe-cs-modern.prof", "inline-modern.prof", "calls-lbr.prof"} {
		path := fx[name]
		var buf bytes.Buffer
		if err := profmerge.ShowSampleHTML(&buf, path, profmerge.SampleViewOptions{Release: 22}); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if m := regexp.MustCompile(`(?i)(src|href)\s*=|url\(|@import|<script|<link`).FindString(html); m != "" {
			t.Errorf("%s: the report refers to something outside it: %q", name, m)
		}
		page := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) string { return headless(t, chromium, page, args...) }
		dom := run("--dump-dom")

		text := func(rel llvmrelease.Release) string {
			var b bytes.Buffer
			o := profmerge.SampleShowOptions{ShowOptions: sampleprof.ShowOptions{Release: rel, DetailedSummary: true, HotList: true}}
			if err := profmerge.ShowSample(&b, path, o); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		t22, t19 := text(22), text(19)
		want := map[string]string{}
		grab := func(text, re string, ids ...string) {
			m := regexp.MustCompile(`(?m)` + re).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("%s: the text view has no %q:\n%s", name, re, text)
			}
			for i, id := range ids {
				want[id] = m[i+1]
			}
		}
		grab(t22, `^Total functions: (\d+)$`, "summary-total-functions")
		grab(t22, `^Maximum function count: (\d+)$`, "summary-max-function-count")
		grab(t19, `^Maximum block count: (\d+)$`, "summary-max-block-count")
		grab(t22, `^Total number of blocks: (\d+)$`, "summary-total-blocks")
		grab(t22, `^Total count: (\d+)$`, "summary-total-count")
		grab(t22, `^\d+ blocks \([\d.]+%\) with count >= (\d+) account for 99% of`, "summary-hot-threshold")
		grab(t22, `^\d+ blocks \([\d.]+%\) with count >= (\d+) account for 99\.9999% of`, "summary-cold-threshold")
		grab(t22, `^(\d+) out of (\d+) functions with profile \(([\d.]+)%\) are considered hot functions \(max sample >= (\d+)\)`,
			"hot-functions", "functions-with-profile", "hot-functions-pct", "summary-hot-threshold")
		grab(t22, `^(\d+) out of (\d+) profile counts \(([\d.]+)%\) are from hot functions`, "hot-samples", "total-samples", "hot-samples-pct")
		cutoffs := regexp.MustCompile(`(?m)^(\d+) blocks \([\d.]+%\) with count >= (\d+) account for`).FindAllStringSubmatch(t22, -1)
		if len(cutoffs) != len(sampleprof.DefaultCutoffs) {
			t.Fatalf("%s: %d detailed entries in the text view", name, len(cutoffs))
		}
		for i, c := range sampleprof.DefaultCutoffs {
			id := "detailed-" + itoa(uint64(c))
			want[id+"-blocks"], want[id+"-mincount"] = cutoffs[i][1], cutoffs[i][2]
		}
		for id, v := range want {
			if s := `id="` + id + `">` + v + `<`; !strings.Contains(dom, s) {
				t.Errorf("%s: the DOM lacks %s", name, s)
			}
		}
		if !strings.Contains(dom, `<svg id="flame"`) || !strings.Contains(dom, "<rect") {
			t.Errorf("%s: the DOM has no flame graph", name)
		}
		// Names as llvm-symbolizer prints them (the mangled one only in
		// a title).
		if strings.HasPrefix(name, "cycles") && (!strings.Contains(dom, ">main:4 @ even(long, long)<") || !strings.Contains(dom, "odd(long, long)")) {
			t.Errorf("%s: demangled names missing", name)
		}
		if name == "cycles-cs.txt" {
			shot := filepath.Join(outDir, "sample-report.png")
			os.Remove(shot)
			run("--screenshot="+shot, "--window-size=1280,2000")
			if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
				t.Fatalf("no screenshot: %v", err)
			}
			t.Logf("screenshot: %s", shot)
		}
	}
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }
