package sampleprof

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// mergeBoth merges texts (weights ws) by ReadText and Add, and by
// ParseTextMerge and AddText where it applies, and returns each way's
// extbinary, text and warnings.
func mergeBoth(t *testing.T, rel llvmrelease.Release, texts [][]byte, ws []uint64) (old, fast string, fastUsed int) {
	t.Helper()
	run := func(useFast bool) string {
		var out strings.Builder
		m := Merger{Release: rel, Warnf: func(f string, a ...any) { fmt.Fprintf(&out, "warning: "+f+"\n", a...) }}
		names := &Names{}
		for i, data := range texts {
			name := fmt.Sprintf("in%d.txt", i)
			if useFast {
				if tl := ParseTextMerge(data, ReadOptions{Release: rel, Names: names}); tl != nil {
					fastUsed++
					err := m.AddText(name, tl, ws[i])
					tl.Release()
					if err != nil {
						fmt.Fprintf(&out, "error: %v\n", err)
						return out.String()
					}
					continue
				}
			}
			p, err := ReadText(name, data, ReadOptions{Release: rel, Names: names})
			if err == nil {
				err = m.Add(name, p, ws[i])
			}
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
				return out.String()
			}
		}
		p := m.Profile()
		ext, err := p.AppendExtBinary(nil, BinaryOptions{Release: rel})
		fmt.Fprintf(&out, "extbinary %x %v\n", ext, err)
		out.Write(p.AppendText(nil, TextWriteOptions{Release: rel}))
		return out.String()
	}
	return run(false), run(true), fastUsed
}

// TestAddTextAsAdd: merging text profiles line by line (AddText) gives
// what reading each into a profile and merging it gives: counts, the
// merged map's order, warnings (overflow, checksum mismatch) and errors,
// for generated profiles with repeated headers, lines out of order,
// weights and counts near 2^64, mixed with profiles the fast path leaves
// to ReadText.
func TestAddTextAsAdd(t *testing.T) {
	var fastTotal, overflows, errs int
	for seed := range int64(300) {
		r := rand.New(rand.NewSource(seed))
		n := 1 + r.Intn(5)
		var texts [][]byte
		var ws []uint64
		for range n {
			kind := genPlain
			if r.Intn(8) == 0 {
				kind = []genKind{genProbe, genCS}[r.Intn(2)]
			}
			text := genText(r, kind)
			switch r.Intn(6) {
			case 0: // a repeated header
				text = append(text, text[:bytes.IndexByte(text, '\n')+1]...)
				text = append(text, " 3: 7 foo:2\n  1: 1\n"...)
			case 1: // counts near 2^64: the merge or the file overflows
				text = bytes.ReplaceAll(text, []byte(": 0\n"), []byte(": 18446744073709551000\n"))
			case 2: // lines that do not parse
				text = append(text, " x: 1\n"...)
			case 3:
				text = append([]byte("# comment\r\n\n"), bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))...)
			}
			texts = append(texts, text)
			ws = append(ws, []uint64{1, 1, 2, 1 << 40}[r.Intn(4)])
		}
		for _, rel := range []llvmrelease.Release{16, 19, 22} {
			old, fast, used := mergeBoth(t, rel, texts, ws)
			fastTotal += used
			overflows += strings.Count(fast, "counter overflow")
			errs += strings.Count(fast, "error: ")
			if old != fast {
				t.Fatalf("seed %d, LLVM %d: AddText differs from Add\nAdd:\n%s\nAddText:\n%s\ninputs:\n%s", seed, rel, old, fast, bytes.Join(texts, []byte("----\n")))
			}
		}
	}
	if fastTotal < 300 || overflows < 10 || errs < 10 {
		t.Errorf("the fast path merged %d inputs, %d overflows, %d errors: want more", fastTotal, overflows, errs)
	}
	t.Logf("%d inputs merged by AddText; %d overflows, %d errors", fastTotal, overflows, errs)
}
