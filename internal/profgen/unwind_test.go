package profgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// TestCompareStrings checks compareStrings against the comparison of the
// context strings, on contexts that share prefixes and whose names and
// numbers print in an order other than their own ("f" < "f:"; line 10 <
// line 9 as text).
func TestCompareStrings(t *testing.T) {
	names := []string{"f", "f:1", "f:", "g", "f @ g", "", "f1"}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() Context {
		c := make(Context, rng.IntN(5))
		for i := range c {
			c[i] = frame{name: names[rng.IntN(len(names))], line: uint32(rng.IntN(3) * 9 / 2), disc: uint32(rng.IntN(3) / 2 * 10)}
		}
		return c
	}
	var bufs [2][]byte
	for range 20000 {
		a := random()
		b := random()
		if rng.IntN(2) == 0 {
			// Share a prefix.
			n := rng.IntN(len(a) + 1)
			b = append(slices.Clone(a[:n]), b...)
		}
		want := strings.Compare(a.String(), b.String())
		if got := compareStrings(a, b, &bufs); got != want {
			t.Fatalf("compareStrings(%q, %q) = %d, want %d", a.String(), b.String(), got, want)
		}
	}
}

// TestCompressRecursion uses the examples of compressRecursionContext's
// comments in ProfileGenerator.h and a limit.
func TestCompressRecursion(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int
		want  string
	}{
		{"aabb", -1, "ab"},
		{"abcbc", -1, "abc"},
		{"abcabc", -1, "abc"},
		{"xabababy", -1, "xaby"},
		{"xabababy", 1, "xabababy"},
		{"aaab", 0, "aaab"},
		{"a", -1, "a"},
		{"", -1, ""},
	} {
		got := string(compressRecursion([]byte(c.in), c.limit))
		if got != c.want {
			t.Errorf("compress(%q, %d) = %q, want %q", c.in, c.limit, got, c.want)
		}
	}
	if got := trimContext([]int{1, 2, 3, 4}, 2); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("trimContext = %v", got)
	}
}

// callsTrace returns a hybrid trace of perfscript's calls.c (clang-19,
// PIE), its binary and its symbolizer.
func callsTrace(tb testing.TB) (string, *perfscript.Binary, *elfsym.Binary) {
	return hybridTrace(tb, "profgen-fuzz", "../perfscript/testdata/calls.c")
}

// hybridTrace returns a hybrid trace of the program (clang-19, PIE), its
// binary and symbolizer.
func hybridTrace(tb testing.TB, name, src string) (string, *perfscript.Binary, *elfsym.Binary) {
	progs := tracetest.Build(tb, name, []tracetest.Source{{File: src, CC: "clang-19"}},
		[]tracetest.Trace{{Args: []string{"--period", "211", "--jitter", "40", "--pid", "4242"}, Outputs: map[string]string{"hybrid": "hybrid"}}})
	p := progs[0]
	bin, err := perfscript.OpenBinary(p.Bin)
	if err != nil {
		tb.Fatal(err)
	}
	sym, err := elfsym.Open(p.Bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sym.Close() })
	return p.Traces["hybrid"], bin, sym
}

// FuzzUnwind feeds mutated prefixes of a real hybrid trace through the
// context-sensitive path: the parser's hybrid samples, the virtual
// unwinder, the unsymbolized CS output and CS generation. Every outcome is
// a profile or a *decode.Error, never a panic; ranges run forwards.
func FuzzUnwind(f *testing.F) {
	trace, bin, sym := callsTrace(f)
	data, err := os.ReadFile(trace)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tracetest.Seed(data, 2, 4))
	f.Add(tracetest.Seed(data, 6, 8))
	f.Fuzz(func(t *testing.T, data []byte) {
		u := NewUnwinder(bin, sym, DefaultContextOptions)
		prof, err := perfscript.Parse("fuzz", bytes.NewReader(data), bin, perfscript.Options{HybridSample: u.Add})
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T) is not a *decode.Error", err, err)
			}
			return
		}
		if !prof.CS {
			return
		}
		cs, err := u.Unwind(func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs.Counters {
			for r := range c.Ranges {
				if r[0] > r[1] {
					t.Fatalf("range %#x-%#x runs backwards", r[0], r[1])
				}
			}
		}
		if err := cs.WriteUnsymbolized(io.Discard, bin.PreferredBase()); err != nil {
			t.Fatal(err)
		}
		// Flat, and pre-inlined.
		for _, pre := range []bool{false, true} {
			sp, err := GenerateCS(bin, u, cs, CSOptions{PreInliner: pre})
			if err != nil {
				t.Fatal(err)
			}
			sp.AppendText(nil, sampleprofText)
			if _, err := sp.AppendExtBinary(nil, sampleprofBinary); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestUnwindOrder: the unwinder's counters, WasLeafInlined and warnings
// do not depend on the order the samples arrive in nor on how they are
// batched (llvm-profgen unwinds its distinct samples in one sorted pass;
// ours streams): a hybrid trace's samples in trace order, each with twice
// its count, in the default batches, and the samples in reverse order,
// twice over, one per batch (so each distinct sample is unwound twice and
// its warning counts must be taken once) or all in one batch (where the
// repeats are found and merged) give the same result, with
// contexts of every depth and cut to one frame (where stacks of different
// leaves share contexts; this C program has no context that two stacks
// with different WasLeafInlined share); the same for the program built
// with pseudo probes (contexts of call addresses, the probe path).
func TestUnwindOrder(t *testing.T) {
	t.Run("dwarf", func(t *testing.T) {
		trace, bin, sym := callsTrace(t)
		testUnwindOrder(t, trace, bin, sym)
	})
	t.Run("probes", func(t *testing.T) {
		trace, bin, sym := hybridTrace(t, "profgen-probe-order", "../../tools/profgen/testdata/probe-calls.c")
		if !bin.PseudoProbes {
			t.Fatal("probe-calls.c built without pseudo probes")
		}
		testUnwindOrder(t, trace, bin, sym)
	})
}

func testUnwindOrder(t *testing.T, trace string, bin *perfscript.Binary, sym *elfsym.Binary) {
	type sample struct {
		stack []uint64
		lbr   []perfscript.Branch
		count uint64
	}
	var samples []sample
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := perfscript.Parse("hybrid", f, bin, perfscript.Options{HybridSample: func(stack []uint64, lbr []perfscript.Branch, count uint64, _ bool) {
		samples = append(samples, sample{slices.Clone(stack), slices.Clone(lbr), count})
	}}); err != nil {
		t.Fatal(err)
	}
	run := func(opts ContextOptions, order []sample, batch int) (string, []string) {
		u := NewUnwinder(bin, sym, opts)
		u.batchBytes = batch
		seen := map[string]bool{}
		for _, s := range order {
			k := fmt.Sprint(s.stack, s.lbr)
			u.Add(s.stack, s.lbr, s.count, !seen[k])
			seen[k] = true
		}
		var warnings []string
		cs, err := u.Unwind(func(m string) { warnings = append(warnings, m) })
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		st := u.st
		// The warnings' counts (this trace has few warnings to show them).
		fmt.Fprintln(&b, st.totalBranches, st.mismatchedProEpi, st.mismatchedExtCall, st.unpairedExt, st.pairedExt, len(st.untracked))
		for _, c := range cs.Counters {
			fmt.Fprintf(&b, "[%s] %x inlined %v\n", c.Context, c.Addrs, c.WasLeafInlined)
			for _, m := range []map[[2]uint64]uint64{c.Ranges, c.Branches} {
				for _, k := range sortedPairs(m) {
					fmt.Fprintf(&b, "  %x-%x:%d\n", k[0], k[1], m[k])
				}
			}
		}
		return b.String(), warnings
	}
	reversed := slices.Clone(samples)
	slices.Reverse(reversed)
	reversed = append(reversed, reversed...)
	doubled := slices.Clone(samples)
	for i := range doubled {
		doubled[i].count *= 2
	}
	for _, opts := range []ContextOptions{DefaultContextOptions, {MaxContextDepth: 1, MaxUnsymbolizedContextDepth: -1, MaxCompressionSize: -1}} {
		want, wantWarn := run(opts, doubled, batchBytes)
		if bin.PseudoProbes && strings.Count(want, "[] [") == strings.Count(want, "[] []") {
			t.Fatalf("%+v: no counter of a call-address context:\n%s", opts, want)
		}
		for _, batch := range []int{1, batchBytes} {
			got, gotWarn := run(opts, reversed, batch)
			if got != want || !slices.Equal(gotWarn, wantWarn) {
				t.Errorf("%+v: reversed, batches of %d bytes:\n%s\n%q\nin order:\n%s\n%q", opts, batch, got, gotWarn, want, wantWarn)
			}
		}
	}
	if len(samples) < 50 {
		t.Errorf("only %d samples", len(samples))
	}
}

var (
	sampleprofText   = sampleprof.TextWriteOptions{Release: 22}
	sampleprofBinary = sampleprof.BinaryOptions{Release: 22}
)
