package profgen

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

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

// FuzzUnwind feeds mutated prefixes of a real hybrid trace through the
// context-sensitive path: the parser's hybrid samples, the virtual
// unwinder, the unsymbolized CS output and CS generation. Every outcome is
// a profile or a *decode.Error, never a panic; ranges run forwards.
func FuzzUnwind(f *testing.F) {
	progs := tracetest.Build(f, "profgen-fuzz", []tracetest.Source{{File: "../perfscript/testdata/calls.c", CC: "clang-19"}},
		[]tracetest.Trace{{Args: []string{"--period", "211", "--jitter", "40", "--pid", "4242"}, Outputs: map[string]string{"hybrid": "hybrid"}}})
	p := progs[0]
	data, err := os.ReadFile(p.Traces["hybrid"])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tracetest.Seed(data, 2, 4))
	f.Add(tracetest.Seed(data, 6, 8))
	bin, err := perfscript.OpenBinary(p.Bin)
	if err != nil {
		f.Fatal(err)
	}
	sym, err := elfsym.Open(p.Bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { sym.Close() })
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

var (
	sampleprofText   = sampleprof.TextWriteOptions{LLVM: 22}
	sampleprofBinary = sampleprof.BinaryOptions{LLVM: 22}
)
