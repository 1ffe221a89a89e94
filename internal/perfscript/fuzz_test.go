package perfscript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// seedTrace keeps the mmap line and the first samples of a real trace,
// each LBR line cut to its first entries, so that seeds stay small.
func seedTrace(data []byte, samples, entries int) []byte {
	var out bytes.Buffer
	n := 0
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(l, "/P/") {
			f := strings.SplitAfter(l, "/0 ")
			if len(f) > entries {
				l = strings.Join(f[:entries], "") + "\n"
			}
			n++
		}
		out.WriteString(l)
		if n == samples {
			break
		}
	}
	return out.Bytes()
}

// FuzzParse feeds the parser mutated prefixes of real lbr-trace traces,
// read as LBR and as hybrid scripts against a real binary: every outcome
// is a profile or a *decode.Error, never a panic, and the profile's ranges
// are ordered.
func FuzzParse(f *testing.F) {
	progs := buildPrograms(f)
	p := progs[0]
	for _, name := range []string{"lbr", "hybrid", "lbr-modern"} {
		data, err := os.ReadFile(p.traces[name])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seedTrace(data, 2, 3))
	}
	bin, err := OpenBinary(p.bin)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var warnings int
		opts := Options{IgnoreStackSamples: true, Warn: func(string) { warnings++ }}
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
