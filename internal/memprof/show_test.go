package memprof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// histPointer matches the AccessHistogram line, whose value LLVM prints as
// its own heap pointer when the MIB has a histogram.
var histPointer = regexp.MustCompile(`(?m)^(        AccessHistogram: )\d+$`)

// maskHistogramPointers blanks AccessHistogram values for MIBs whose
// AccessHistogramSize is non-zero.
func maskHistogramPointers(s string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "        AccessHistogram: ") && lines[i-1] != "        AccessHistogramSize: 0" {
			lines[i] = histPointer.ReplaceAllString(lines[i], "${1}<pointer>")
		}
	}
	return strings.Join(lines, "\n")
}

type showCase struct {
	release   int
	raw, bin  string
	wantError string // substring of our error when llvm-profdata fails too
}

func showCases() []showCase {
	var cs []showCase
	for _, v := range []int{16, 19, 22} {
		for _, in := range []string{"nopie-a", "nopie-b", "nopie-dump"} {
			cs = append(cs, showCase{release: v, raw: fmt.Sprintf("app-llvm%d-%s.memprofraw", v, in), bin: fmt.Sprintf("app-llvm%d-nopie", v)})
		}
		pie := showCase{release: v, raw: fmt.Sprintf("app-llvm%d-pie-a.memprofraw", v), bin: fmt.Sprintf("app-llvm%d-pie", v)}
		if v == 16 {
			pie.wantError = "Unsupported position independent code"
		}
		cs = append(cs, pie)
		cs = append(cs, showCase{release: v, raw: fmt.Sprintf("many-llvm%d.memprofraw", v), bin: fmt.Sprintf("many-llvm%d", v)})
		if v >= 19 {
			cs = append(cs, showCase{release: v, raw: fmt.Sprintf("hist-llvm%d.memprofraw", v), bin: fmt.Sprintf("hist-llvm%d", v)})
		}
	}
	return cs
}

// TestShowMatchesLLVMProfdata compares ShowRaw with llvm-profdata-N show
// --memory on every generated profile.
//
// Both symbolizer backends are checked: package elfsym (what the tools use)
// and llvm-symbolizer's JSON output (an independent reference).
func TestShowMatchesLLVMProfdata(t *testing.T) {
	for _, backend := range []string{"elfsym", "llvm-symbolizer"} {
		for _, c := range showCases() {
			testShow(t, backend, c)
		}
	}
}

func testShow(t *testing.T, backend string, c showCase) {
	{
		t.Run(fmt.Sprintf("%s/llvm%d/%s", backend, c.release, c.raw), func(t *testing.T) {
			tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", c.release))
			rawPath, binPath := fixture(t, c.raw), fixture(t, c.bin)
			want, llvmErr := exec.Command(tool, "show", "--memory", rawPath, "--profiled-binary", binPath).Output()
			raw, err := OpenRaw(rawPath)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			var sym Symbolizer
			switch backend {
			case "llvm-symbolizer":
				sym = newLLVMSymbolizer(t, binPath)
			case "elfsym":
				b, err := elfsym.Open(binPath, &elfsym.Options{DWARFOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				sym = b
			}
			err = ShowRaw(&got, raw, sym, ConvertOptions{Release: llvmrelease.Release(c.release)})
			if c.wantError != "" {
				if llvmErr == nil {
					t.Errorf("llvm-profdata-%d succeeded, want failure", c.release)
				}
				if err == nil || !strings.Contains(err.Error(), c.wantError) {
					t.Errorf("ShowRaw error = %v, want %q", err, c.wantError)
				}
				return
			}
			if llvmErr != nil {
				t.Fatalf("llvm-profdata-%d: %v", c.release, llvmErr)
			}
			if err != nil {
				t.Fatal(err)
			}
			w, g := maskHistogramPointers(string(want)), maskHistogramPointers(got.String())
			if w != g {
				t.Errorf("show text differs from llvm-profdata-%d:\n%s", c.release, lineDiff(w, g))
			}
		})
	}
}

// lineDiff shows the first differing lines with some context.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			var b strings.Builder
			from := max(0, i-6)
			for j := from; j < i; j++ {
				if j < len(wl) {
					fmt.Fprintf(&b, "  %d   %s\n", j+1, wl[j])
				}
			}
			fmt.Fprintf(&b, "  %d - %s\n  %d + %s\n", i+1, w, i+1, g)
			fmt.Fprintf(&b, "(want %d lines, got %d)", len(wl), len(gl))
			return b.String()
		}
	}
	return "(no difference)"
}

// TestShowRewrittenRaw re-encodes generated profiles with writeRaw in other
// raw versions (v3 and v4 for LLVM 19; v3, v4, v5 for LLVM 22) and checks
// llvm-profdata reads our files exactly as we do.
func TestShowRewrittenRaw(t *testing.T) {
	for _, release := range []int{19, 22} {
		versions := []uint64{3, 4}
		if release == 22 {
			versions = append(versions, 5)
		}
		for _, src := range []string{"app-llvm%d-nopie-dump.memprofraw", "hist-llvm%d.memprofraw"} {
			for _, v := range versions {
				src := fmt.Sprintf(src, release)
				t.Run(fmt.Sprintf("llvm%d/%s/v%d", release, src, v), func(t *testing.T) {
					tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", release))
					bin := fixture(t, strings.Replace(strings.TrimSuffix(src, ".memprofraw"), "-dump", "", 1))
					raw, err := OpenRaw(fixture(t, src))
					if err != nil {
						t.Fatal(err)
					}
					showRewritten(t, tool, raw, bin, v, release)
				})
			}
		}
	}
}

// TestShowSummaryThresholds gives a real profile's MIBs average lifetimes on
// both sides of 1 s and of 200 s with a low access density, rewrites it,
// and compares show with llvm-profdata-22, whose MemProfSummary comment
// counts the cold contexts with LLVM's default thresholds (200 s): the
// generated profiles' lifetimes are all far below 1 s, so only a rewritten
// one tells the thresholds apart.
func TestShowSummaryThresholds(t *testing.T) {
	tool := testenv.Tool(t, "llvm-profdata-22")
	src := "app-llvm22-nopie-dump.memprofraw"
	bin := fixture(t, "app-llvm22-nopie")
	raw, err := OpenRaw(fixture(t, src))
	if err != nil {
		t.Fatal(err)
	}
	lifetimes := []uint64{500, 5_000, 150_000, 199_999, 200_000, 900_000} // ms
	for i := range raw.MIBs {
		m := &raw.MIBs[i].Info
		m.TotalLifetime = lifetimes[i%len(lifetimes)] * uint64(m.AllocCount)
		m.TotalLifetimeAccessDensity = uint64(i % 3) // density ≤ 0.02 per byte-second
	}
	want := showRewritten(t, tool, raw, bin, 4, 22)
	if !strings.Contains(want, "Total cold contexts: ") || strings.Contains(want, "Total cold contexts: 0\n") {
		t.Fatalf("%s found no cold context; the test needs some:\n%.600s", tool, want)
	}
}

// showRewritten writes raw in raw version v, runs tool (llvm-profdata-N
// show --memory) on the file and compares its text with ShowRaw's of the
// file read back; it returns LLVM's text.
func showRewritten(t *testing.T, tool string, raw *RawProfile, bin string, v uint64, release int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := raw.writeRaw(&buf, v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rewritten.memprofraw")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(tool, "show", "--memory", path, "--profiled-binary", bin).Output()
	if err != nil {
		t.Fatalf("%s on our v%d file: %v", tool, v, err)
	}
	again, err := OpenRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := elfsym.Open(bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got bytes.Buffer
	if err := ShowRaw(&got, again, b, ConvertOptions{Release: llvmrelease.Release(release)}); err != nil {
		t.Fatal(err)
	}
	w, g := maskHistogramPointers(string(want)), maskHistogramPointers(got.String())
	if w != g {
		t.Errorf("show text differs from %s:\n%s", tool, lineDiff(w, g))
	}
	return string(want)
}
