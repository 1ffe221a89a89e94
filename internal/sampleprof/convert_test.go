package sampleprof

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// genConvertText writes a random profile for the converters: CS contexts
// of one to four frames (repeated ones merge in the reader) with mixed
// checksums and attributes, whose cold ones and whose order of merging
// matter; or a nested profile (plain or probe-based) to flatten.
func genConvertText(r *rand.Rand, kind string) []byte {
	var b bytes.Buffer
	names := []string{"main", "foo", "bar", "_Z3bazv", "q", "w"}
	name := func() string { return names[r.Intn(len(names))] }
	loc := func() string {
		if r.Intn(3) == 0 {
			return fmt.Sprintf("%d.%d", r.Intn(6), 1+r.Intn(2))
		}
		return fmt.Sprint(r.Intn(6))
	}
	pick := func(s ...int) int { return s[r.Intn(len(s))] }
	var body func(ind string, depth int)
	body = func(ind string, depth int) {
		for range r.Intn(4) {
			fmt.Fprintf(&b, "%s%s: %d", ind, loc(), pick(0, 1, 3, 50, r.Intn(500)))
			for range r.Intn(3) {
				fmt.Fprintf(&b, " %s:%d", name(), r.Intn(100))
			}
			b.WriteByte('\n')
		}
		if kind != "cs" && depth < 2 {
			for range r.Intn(3) {
				fmt.Fprintf(&b, "%s%s: %s:%d\n", ind, loc(), name(), r.Intn(300))
				body(ind+" ", depth+1)
			}
		}
		switch {
		case kind == "probe":
			fmt.Fprintf(&b, "%s!CFGChecksum: %d\n", ind, 5+r.Intn(2))
		case kind == "cs" && r.Intn(2) == 0:
			fmt.Fprintf(&b, "%s!CFGChecksum: 7\n", ind)
		}
		if kind == "cs" && r.Intn(2) == 0 {
			fmt.Fprintf(&b, "%s!Attributes: %d\n", ind, r.Intn(4))
		}
	}
	for range 5 + r.Intn(50) {
		head := name()
		if kind == "cs" {
			var frames []string
			for range r.Intn(4) {
				frames = append(frames, name()+":"+loc())
			}
			head = "[" + strings.Join(append(frames, name()), " @ ") + "]"
		}
		fmt.Fprintf(&b, "%s:%d:%d\n", head, pick(0, 1, 5, 20, 100, 1000, r.Intn(10000)), r.Intn(50))
		body(" ", 0)
	}
	return b.Bytes()
}

// convertCase is a conversion of llvm-profdata merge --sample and the
// same through this package's API.
type convertCase struct {
	name     string
	args     []string
	releases []int
	apply    func(p *Profile, rel int) error
}

func coldOptions(trim, merge bool, depth int) func(p *Profile, rel int) error {
	return func(p *Profile, rel int) error {
		return p.TrimColdContexts(ColdContextOptions{Threshold: p.ComputeSummaryFor(llvmrelease.Release(rel)).CountThreshold(ColdCutoff),
			Trim: trim, Merge: merge, FrameDepth: depth, Release: llvmrelease.Release(rel)})
	}
}

var convertCases = []convertCase{
	{"trim", []string{"--sample-trim-cold-context"}, releases, coldOptions(true, false, 1)},
	{"merge", []string{"--sample-merge-cold-context"}, releases, coldOptions(false, true, 1)},
	{"merge+trim", []string{"--sample-merge-cold-context", "--sample-trim-cold-context"}, releases, coldOptions(true, true, 1)},
	// llvm-profdata-16 ignores the depth (measured): not compared there.
	{"merge depth 2", []string{"--sample-merge-cold-context", "--sample-frame-depth-for-cold-context=2"}, []int{19, 22}, coldOptions(false, true, 2)},
	{"nest", []string{"--convert-sample-profile-layout=nest"}, []int{19, 22}, func(p *Profile, rel int) error {
		p.NestContexts(NestOptions{Release: llvmrelease.Release(rel)})
		return nil
	}},
	{"nest 16", []string{"--gen-cs-nested-profile"}, []int{16}, func(p *Profile, rel int) error {
		p.NestContexts(NestOptions{Release: llvmrelease.Release(rel)})
		return nil
	}},
	{"merge, nest", []string{"--sample-merge-cold-context", "--convert-sample-profile-layout=nest"}, []int{19, 22}, func(p *Profile, rel int) error {
		if err := coldOptions(false, true, 1)(p, rel); err != nil {
			return err
		}
		p.NestContexts(NestOptions{Release: llvmrelease.Release(rel)})
		return nil
	}},
	{"flat", []string{"--convert-sample-profile-layout=flat"}, []int{19, 22}, func(p *Profile, rel int) error {
		p.Flatten(llvmrelease.Release(rel))
		return nil
	}},
}

// TestConvertConformance: the trimmer and the converters give what
// llvm-profdata-N merge --sample gives with the same options, text and
// extbinary byte for byte, on generated CS, plain and probe-based
// profiles. Where llvm-profdata crashes (merging cold profiles of a
// profile without contexts), TrimColdContexts returns ErrNoContexts.
func TestConvertConformance(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, kind := range []string{"cs", "cs", "cs", "cs", "cs", "cs", "plain", "plain", "probe"} {
		f := filepath.Join(dir, fmt.Sprintf("%s%d.txt", kind, i))
		if err := os.WriteFile(f, genConvertText(newRand(int64(100+i)), kind), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	files = append(files, "testdata/text/cs.txt", "testdata/text/cs_odd_frames.txt", "testdata/text/probe.txt")
	var exact, crashes int
	for _, file := range files {
		for _, c := range convertCases {
			for _, rel := range c.releases {
				for _, format := range []string{"--text", "--extbinary"} {
					what := fmt.Sprintf("%s %s LLVM %d %s", filepath.Base(file), c.name, rel, format)
					want, ok := llvmMerge(t, rel, file, append([]string{format}, c.args...)...)
					p, err := mergeFiles(t, rel, []mergeInput{{file, 1}})
					if err != nil {
						t.Fatal(err)
					}
					err = c.apply(p, rel)
					switch {
					case !ok && errors.Is(err, ErrNoContexts):
						crashes++
						continue
					case !ok:
						t.Errorf("%s: llvm-profdata fails, we do not (%v)", what, err)
						continue
					case err != nil:
						t.Errorf("%s: %v", what, err)
						continue
					}
					var got []byte
					if format == "--text" {
						got = p.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)})
					} else if got, err = p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)}); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s: differs\n--- ours\n%.2000s\n--- llvm\n%.2000s", what, got, want)
						continue
					}
					exact++
				}
			}
		}
	}
	t.Logf("%d outputs byte-identical, %d where llvm-profdata crashes and we refuse", exact, crashes)
}

// TestConvertCorpus runs every conversion on every profile of the text
// corpus (odd ones included) and reads back what is written: no panics,
// and the output is a profile again (unless the profile as read cannot be
// read back either: LLVM writes line offsets it then rejects).
func TestConvertCorpus(t *testing.T) {
	for _, file := range textCorpus(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range releases {
			for _, c := range convertCases {
				p, err := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
				if err != nil {
					continue
				}
				if err := c.apply(p, rel); err != nil && !errors.Is(err, ErrNoContexts) {
					t.Errorf("%s %s LLVM %d: %v", filepath.Base(file), c.name, rel, err)
				}
				out, err := p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
				if err != nil {
					t.Errorf("%s %s LLVM %d: %v", filepath.Base(file), c.name, rel, err)
					continue
				}
				orig, _ := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
				origOut, _ := orig.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
				if _, err := ReadExtBinary("orig", origOut, ReadOptions{Release: llvmrelease.Release(rel)}); err != nil {
					continue
				}
				if _, err := ReadExtBinary("out", out, ReadOptions{Release: llvmrelease.Release(rel)}); err != nil {
					t.Errorf("%s %s LLVM %d: reading back: %v", filepath.Base(file), c.name, rel, err)
				}
			}
		}
	}
}
