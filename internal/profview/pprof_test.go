package profview_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/demangle"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// dumpSite is one allocation context as `merge show --memory` prints it.
type dumpSite struct {
	frames        []string // display names, leaf first
	allocs, bytes int64
}

// parseDump reads the allocation sites of a `merge show --memory` dump
// (the text form of a raw profile, with SymbolName lines, or the YAML of
// an indexed one, with GUIDs), each distinct call stack once.
func parseDump(t *testing.T, dump string) []dumpSite {
	var out []dumpSite
	seen := map[string]bool{}
	var cur *dumpSite
	var key strings.Builder // the call stack's lines, frame positions included
	inStack := false
	num := func(line string) int64 {
		v, err := strconv.ParseInt(strings.TrimSpace(line[strings.IndexByte(line, ':')+1:]), 10, 64)
		if err != nil {
			t.Fatalf("dump line %q: %v", line, err)
		}
		return v
	}
	guidRE := regexp.MustCompile(`\{ Function: (0x[0-9a-f]+),`)
	for _, line := range strings.Split(dump, "\n") {
		s := strings.TrimSpace(line)
		if cur != nil && inStack {
			key.WriteString(s + "\n")
		}
		switch {
		case strings.HasSuffix(s, "Callstack:"):
			cur, inStack = &dumpSite{}, true
			key.Reset()
		case strings.HasPrefix(s, "MemInfoBlock:"):
			inStack = false
		case cur != nil && inStack && strings.HasPrefix(s, "SymbolName: "):
			cur.frames = append(cur.frames, demangle.Name(strings.TrimPrefix(s, "SymbolName: ")))
		case cur != nil && inStack && guidRE.MatchString(s):
			g, _ := strconv.ParseUint(guidRE.FindStringSubmatch(s)[1][2:], 16, 64)
			cur.frames = append(cur.frames, fmt.Sprintf("0x%016x", g))
		case cur != nil && strings.HasPrefix(s, "AllocCount:"):
			cur.allocs = num(s)
		case cur != nil && strings.HasPrefix(s, "TotalSize:"):
			cur.bytes = num(s)
			// A stack printed under several functions counts once.
			if k := key.String(); !seen[k] {
				seen[k] = true
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	return out
}

// pprofTraces runs go tool pprof -traces on file for one sample type and
// returns "value frame;frame;..." per sample, sorted.
func pprofTraces(t *testing.T, goTool, file, index string) []string {
	args := []string{"-traces", "-sample_index=" + index, file}
	if index == "alloc_space" {
		args = append([]string{"-unit=B"}, args...)
	}
	out := runPprof(t, goTool, args...)
	var traces []string
	for _, block := range strings.Split(out, "-----------+-------------------------------------------------------")[1:] {
		var value string
		var frames []string
		for _, line := range strings.Split(block, "\n") {
			if len(line) < 13 || strings.Contains(line[:12], ":") {
				continue // label lines ("      hint:  cold") and blank ones
			}
			if v := strings.TrimSpace(line[:11]); v != "" {
				value = v
			}
			frames = append(frames, strings.TrimSuffix(strings.TrimSpace(line[11:]), " (inline)"))
		}
		if len(frames) > 0 {
			traces = append(traces, value+" "+strings.Join(frames, ";"))
		}
	}
	slices.Sort(traces)
	return traces
}

func runPprof(t *testing.T, goTool string, args ...string) string {
	cmd := exec.Command(goTool, append([]string{"tool", "pprof"}, args...)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool pprof %q: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestPprof writes raw and indexed MemProf profiles as pprof profiles,
// parses them back with github.com/google/pprof/profile, and checks what
// `go tool pprof -traces` and `-top` print against `merge show --memory`:
// the same call stacks with the same bytes and allocation counts.
func TestPprof(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		testenv.Missing(t, "go tool: %v", err)
	}
	for _, n := range []int{19, 22} {
		profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", n))
		dir := memproftest.Fixtures(t)
		for _, prog := range []string{"app-llvm%d-nopie-b", "hist-llvm%d"} {
			name := fmt.Sprintf(prog, n)
			bin := strings.TrimSuffix(strings.TrimSuffix(name, "-b"), "-a")
			raw := memproftest.Fixture(t, name+".memprofraw")
			indexed := filepath.Join(t.TempDir(), "prof.profdata")
			if b, err := exec.Command(profdata, "merge", raw, "--profiled-binary", filepath.Join(dir, bin), "-o", indexed).CombinedOutput(); err != nil {
				t.Fatalf("llvm-profdata: %v\n%s", err, b)
			}
			for _, in := range []struct{ kind, path, binary string }{{"raw", raw, filepath.Join(dir, bin)}, {"indexed", indexed, ""}} {
				t.Run(fmt.Sprintf("%s/%s", name, in.kind), func(t *testing.T) {
					var dump bytes.Buffer
					if err := profmerge.Show(&dump, in.path, in.binary, llvmrelease.Release(n), nil); err != nil {
						t.Fatal(err)
					}
					sites := parseDump(t, dump.String())
					if len(sites) == 0 {
						t.Fatalf("no allocation sites in the dump:\n%s", dump.String())
					}
					out := filepath.Join(t.TempDir(), "prof.pb.gz")
					f, err := os.Create(out)
					if err != nil {
						t.Fatal(err)
					}
					if err := profmerge.ShowMemoryView(f, in.path, profmerge.MemoryShowOptions{Binary: in.binary, Release: llvmrelease.Release(n), Format: "pprof"}); err != nil {
						t.Fatal(err)
					}
					f.Close()
					checkParsed(t, out, sites)
					var wantBytes, wantAllocs []string
					var total int64
					for _, s := range sites {
						wantBytes = append(wantBytes, fmt.Sprintf("%dB %s", s.bytes, strings.Join(s.frames, ";")))
						wantAllocs = append(wantAllocs, fmt.Sprintf("%d %s", s.allocs, strings.Join(s.frames, ";")))
						total += s.bytes
					}
					slices.Sort(wantBytes)
					slices.Sort(wantAllocs)
					if got := pprofTraces(t, goTool, out, "alloc_space"); !slices.Equal(got, wantBytes) {
						t.Errorf("pprof -traces (alloc_space):\n%s\nwant (from merge show --memory):\n%s", strings.Join(got, "\n"), strings.Join(wantBytes, "\n"))
					}
					if got := pprofTraces(t, goTool, out, "alloc_objects"); !slices.Equal(got, wantAllocs) {
						t.Errorf("pprof -traces (alloc_objects):\n%s\nwant (from merge show --memory):\n%s", strings.Join(got, "\n"), strings.Join(wantAllocs, "\n"))
					}
					top := runPprof(t, goTool, "-top", "-unit=B", "-nodefraction=0", out)
					if want := fmt.Sprintf("of %dB total", total); !strings.Contains(top, want) {
						t.Errorf("pprof -top does not say %q:\n%s", want, top)
					}
					// Every leaf function's flat bytes.
					flat := map[string]int64{}
					for _, s := range sites {
						flat[s.frames[0]] += s.bytes
					}
					for fn, b := range flat {
						if !regexp.MustCompile(`(?m)^\s+` + strconv.FormatInt(b, 10) + `B .* ` + regexp.QuoteMeta(fn) + `( \(inline\))?$`).MatchString(top) {
							t.Errorf("pprof -top: no line with flat %dB for %s:\n%s", b, fn, top)
						}
					}
				})
			}
		}
	}
}

// checkParsed parses the file with github.com/google/pprof/profile and
// checks it is valid and holds one sample per site with its values.
func checkParsed(t *testing.T, path string, sites []dumpSite) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != len(sites) {
		t.Errorf("%d samples, want %d (one per context)", len(p.Sample), len(sites))
	}
	var got, want []string
	for _, s := range p.Sample {
		var frames []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				frames = append(frames, ln.Function.Name)
			}
		}
		got = append(got, fmt.Sprintf("%d %d %s", s.Value[0], s.Value[1], strings.Join(frames, ";")))
		if h := s.Label["hint"]; len(h) != 1 {
			t.Errorf("sample %v: hint label %q", frames, h)
		}
	}
	for _, s := range sites {
		want = append(want, fmt.Sprintf("%d %d %s", s.allocs, s.bytes, strings.Join(s.frames, ";")))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("parsed samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
