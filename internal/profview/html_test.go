package profview_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestHTMLInChromium renders the HTML report of a raw profile in headless
// Chromium with the network cut off (every host name resolves nowhere and
// a dead proxy takes every request), checks the summary numbers in the
// DOM Chromium built against the hints computed here, and saves a
// screenshot as out/profview/report.png for people to look at.
func TestHTMLInChromium(t *testing.T) {
	chromium := testenv.Tool(t, "chromium")
	const n = 19
	dir := memproftest.Fixtures(t)
	raw := memproftest.Fixture(t, "app-llvm19-nopie-b.memprofraw")
	bin := filepath.Join(dir, "app-llvm19-nopie")
	p, err := profmerge.LoadMemProf(raw, bin, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Thresholds from the profile's own densities (a run's densities
	// depend on its timing: fixed thresholds left no cold context on one
	// machine), so that cold, notcold and hot all show.
	def, err := profview.ParseThresholds(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	flags := mixedThresholds(t, profview.Contexts(p, def), n)
	page := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := profmerge.ShowMemoryView(&buf, raw, profmerge.MemoryShowOptions{Binary: bin, Release: n, Format: "html", Thresholds: flags}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	// Self-contained: nothing to fetch.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=|url\(|@import|<script|<link`).FindString(html); m != "" {
		t.Errorf("the report refers to something outside it: %q", m)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	th, err := profview.ParseThresholds(n, flags)
	if err != nil {
		t.Fatal(err)
	}
	sum := profview.Summarize(profview.Contexts(p, th))
	if sum.Contexts[profview.Cold] == 0 || sum.Contexts[profview.Hot] == 0 {
		t.Fatalf("want cold and hot contexts to show, got %+v", sum)
	}

	_, here, _, _ := runtime.Caller(0)
	outDir := filepath.Join(filepath.Dir(here), "../../out/profview")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(outDir, "report.png")
	os.Remove(shot)
	run := func(args ...string) string { return headless(t, chromium, page, args...) }
	dom := run("--dump-dom")
	for _, ty := range profview.AllocTypes {
		for _, c := range []struct {
			col  string
			want uint64
		}{{"contexts", sum.Contexts[ty]}, {"bytes", sum.Bytes[ty]}, {"allocations", sum.Allocs[ty]}} {
			want := fmt.Sprintf(`id="summary-%s-%s">%d<`, ty, c.col, c.want)
			if !strings.Contains(dom, want) {
				t.Errorf("the DOM lacks %s", want)
			}
		}
	}
	if want := fmt.Sprintf(`id="summary-total-bytes">%d<`, sum.TotalBytes); !strings.Contains(dom, want) {
		t.Errorf("the DOM lacks %s", want)
	}
	if !strings.Contains(dom, `<svg id="flame"`) || !strings.Contains(dom, "<rect") {
		t.Errorf("the DOM has no flame graph")
	}
	run("--screenshot="+shot, "--window-size=1280,1600")
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
}
