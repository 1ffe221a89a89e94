package perfscript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
)

// FuzzParse feeds the parser mutated prefixes of real lbr-trace traces,
// read as LBR and as hybrid scripts against a real binary: every outcome
// is a profile or a *decode.Error, never a panic, and the profile's ranges
// are ordered; odd-length inputs with --show-detailed-warning.
func FuzzParse(f *testing.F) {
	progs := buildPrograms(f)
	p := progs[0]
	for _, name := range []string{"lbr", "hybrid", "lbr-modern"} {
		data, err := os.ReadFile(p.traces[name])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tracetest.Seed(data, 2, 3))
	}
	bin, err := OpenBinary(p.bin)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var warnings int
		// Odd-length inputs also list each item (--show-detailed-warning:
		// the samples kept in order for the invalid ranges' order).
		opts := Options{IgnoreStackSamples: true, Warn: func(string) { warnings++ }, ShowDetailedWarning: len(data)%2 == 1}
		prof, err := Parse("fuzz", bytes.NewReader(data), bin, opts)
		check := func(prof *Profile, err error) {
			if err != nil {
				var de *decode.Error
				if !errors.As(err, &de) || !strings.HasPrefix(de.Msg, "line ") {
					t.Fatalf("error %v (%T) is not a *decode.Error with a line", err, err)
				}
				return
			}
			for r := range prof.Ranges {
				if r.Source > r.Target {
					t.Fatalf("range %#x-%#x runs backwards", r.Source, r.Target)
				}
			}
			if err := prof.WriteUnsymbolized(io.Discard, bin.PreferredBase()); err != nil {
				t.Fatal(err)
			}
		}
		check(prof, err)
		// Both readers on every input, whatever its detected content.
		for _, c := range []Content{LBR, Hybrid} {
			check(parseContent("fuzz", bytes.NewReader(data), bin, opts, c))
		}
	})
}
