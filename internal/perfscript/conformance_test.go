package perfscript

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var profgens = []string{"llvm-profgen-19", "llvm-profgen-22"}

// profgenResult is what llvm-profgen --skip-symbolization gave: the
// unsymbolized profile, its warnings (without "warning: ") and, when it
// failed, its error message.
type profgenResult struct {
	out      string
	warnings []string
	err      string
}

func runProfgen(t *testing.T, tool, bin, trace string, extra ...string) profgenResult {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.up")
	args := append([]string{"--binary=" + bin, "--perfscript=" + trace, "--skip-symbolization", "--output=" + out}, extra...)
	cmd := exec.Command(testenv.Tool(t, tool), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	var r profgenResult
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "warning: "):
			r.warnings = append(r.warnings, strings.TrimPrefix(l, "warning: "))
		case strings.Contains(l, "error: "):
			_, r.err, _ = strings.Cut(l, "error: ")
		case l != "" && runErr != nil:
			r.err += l
		}
	}
	if runErr != nil {
		if r.err == "" {
			r.err = runErr.Error()
		}
		return r
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r.out = string(data)
	return r
}

// openTrace opens a binary and a trace (closed at the test's end).
func openTrace(t *testing.T, bin, trace string) (*Binary, *os.File) {
	t.Helper()
	b, err := OpenBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return b, f
}

// ours runs Parse as llvm-profgen --skip-symbolization would.
func ours(t *testing.T, bin, trace string, opts Options) profgenResult {
	t.Helper()
	b, f := openTrace(t, bin, trace)
	var r profgenResult
	opts.Warn = func(m string) {
		// llvm-profgen's warning stream is line-based; so is the comparison.
		r.warnings = append(r.warnings, strings.Split(strings.TrimSuffix(m, "\n"), "\n")...)
	}
	p, err := Parse(trace, f, b, opts)
	if err != nil {
		var de *decode.Error
		if !errors.As(err, &de) {
			t.Fatalf("error %v is not a *decode.Error", err)
		}
		r.err = de.Msg
		return r
	}
	var buf bytes.Buffer
	if err := p.WriteUnsymbolized(&buf, b.PreferredBase()); err != nil {
		t.Fatal(err)
	}
	r.out = buf.String()
	return r
}

// compare checks ours against llvm-profgen: identical profile text,
// identical warnings, and the same error (ours carries the line number
// first: "line N: MSG").
func compare(t *testing.T, tool string, want, got profgenResult) {
	t.Helper()
	if want.err != "" || got.err != "" {
		_, gotMsg, _ := strings.Cut(got.err, ": ")
		if !strings.HasPrefix(got.err, "line ") || gotMsg != want.err {
			t.Errorf("%s: error %q, ours %q", tool, want.err, got.err)
		}
		return
	}
	if want.out != got.out {
		t.Errorf("%s: unsymbolized profile differs:\n%s", tool, lineDiff(want.out, got.out))
	}
	if !slices.Equal(want.warnings, got.warnings) {
		t.Errorf("%s: warnings differ:\n llvm: %q\n ours: %q", tool, want.warnings, got.warnings)
	}
}

func lineDiff(want, got string) string {
	w, g := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	at := func(l []string) string {
		return strings.Join(l[i:min(i+3, len(l))], "")
	}
	return fmt.Sprintf("first difference at line %d (of %d from llvm, %d ours):\nllvm:\n%sours:\n%s", i+1, len(w), len(g), at(w), at(g))
}

// TestConformance compares Parse + WriteUnsymbolized with llvm-profgen 19
// and 22 --skip-symbolization on traces lbr-trace recorded from real runs
// of the test programs: LBR-only traces, and hybrid traces read with
// --ignore-stack-samples. The unsymbolized profile is written from ordered
// maps (std::map) in llvm-profgen, so its order does not depend on a hash
// table and the comparison is of the exact bytes.
func TestConformance(t *testing.T) {
	progs := buildPrograms(t)
	n := 0
	for _, p := range progs {
		for tname, trace := range p.traces {
			t.Run(p.name+"/"+tname, func(t *testing.T) {
				var extra []string
				opts := Options{}
				if strings.HasPrefix(tname, "hybrid") {
					extra = append(extra, "--ignore-stack-samples")
					opts.IgnoreStackSamples = true
				}
				got := ours(t, p.bin, trace, opts)
				if got.err == "" && strings.Count(got.out, "\n") < 20 {
					t.Errorf("suspiciously small profile:\n%s", got.out)
				}
				for _, tool := range profgens {
					compare(t, tool, runProfgen(t, tool, p.bin, trace, extra...), got)
					n++
				}
			})
		}
	}
	t.Logf("%d comparisons", n)
}

// TestPIDFilter concatenates the traces of two runs with different pids and
// filters them with --pid, as llvm-profgen does for several processes in
// one trace: the samples carry no pid, so only the mmap events are
// filtered, and samples before the kept process's mmap use the preferred
// base.
func TestPIDFilter(t *testing.T) {
	progs := buildPrograms(t)
	for _, p := range progs {
		a, err := os.ReadFile(p.traces["lbr"])
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p.traces["lbr-modern"])
		if err != nil {
			t.Fatal(err)
		}
		trace := filepath.Join(t.TempDir(), "two-pids.script")
		if err := os.WriteFile(trace, append(append([]byte{}, b...), a...), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, pid := range []int32{0, 77, 4242, 5} {
			t.Run(fmt.Sprintf("%s/pid=%d", p.name, pid), func(t *testing.T) {
				var extra []string
				opts := Options{}
				if pid != 0 {
					extra = append(extra, "--pid="+strconv.Itoa(int(pid)))
					opts.PID, opts.HasPID = pid, true
				}
				got := ours(t, p.bin, trace, opts)
				for _, tool := range profgens {
					compare(t, tool, runProfgen(t, tool, p.bin, trace, extra...), got)
				}
			})
		}
	}
}

// TestHybridSamples reads hybrid traces with their stacks through the
// HybridSample hook: every sample's leaf is the newest branch's target,
// the frames above it are calls of the binary or ExternalAddr, and the
// warnings are llvm-profgen's parsing warnings (its unwinder's own come
// later, from the unwinder).
func TestHybridSamples(t *testing.T) {
	for _, p := range buildPrograms(t) {
		t.Run(p.name, func(t *testing.T) {
			b, err := OpenBinary(p.bin)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p.traces["hybrid"])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var n, total, firsts uint64
			var warnings []string
			opts := Options{Warn: func(m string) { warnings = append(warnings, m) }, HybridSample: func(stack []uint64, lbr []Branch, count uint64, first bool) {
				n++
				total += count
				if first {
					firsts++
				}
				if stack[0] != lbr[0].Target {
					t.Errorf("leaf %#x, newest branch target %#x", stack[0], lbr[0].Target)
				}
				for _, a := range stack[1:] {
					if k, ok := b.kindOf(a); a != ExternalAddr && (!ok || k != instCall) {
						t.Errorf("frame %#x is not a call", a)
					}
				}
			}}
			prof, err := Parse(p.name, f, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !prof.CS || n == 0 || total != n || len(prof.Ranges) != 0 {
				t.Errorf("CS %v, %d samples (total count %d), %d ranges", prof.CS, n, total, len(prof.Ranges))
			}
			if firsts != prof.Distinct {
				t.Errorf("%d samples reported first, %d distinct", firsts, prof.Distinct)
			}
			if prof.Distinct == 0 || prof.Distinct > n {
				t.Errorf("%d distinct samples of %d", prof.Distinct, n)
			}
			for _, tool := range profgens {
				want := runProfgen(t, tool, p.bin, p.traces["hybrid"])
				if len(want.warnings) < len(warnings) || !slices.Equal(want.warnings[:len(warnings)], warnings) {
					t.Errorf("%s: warnings %q, ours %q (a prefix)", tool, want.warnings, warnings)
				}
			}
		})
	}
}
