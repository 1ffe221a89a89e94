package zlibcompat_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// bigTextProfile is a text sample profile whose sections (name table,
// function bodies) run from a few KiB to a few hundred KiB, so the
// compressed sections cross the 32 KiB window, the 64 KiB buffer and
// several symbol-buffer flushes.
func bigTextProfile(funcs int) []byte {
	rng := rand.New(rand.NewPCG(7, uint64(funcs)))
	var b strings.Builder
	name := func(i int) string { return fmt.Sprintf("_ZN4ns%d6Class%dE%dfunction_%di", i%7, i%13, i, i*31%1000) }
	for f := 0; f < funcs; f++ {
		total := 1000 + rng.IntN(1000000)
		fmt.Fprintf(&b, "%s:%d:%d\n", name(f), total, rng.IntN(5000))
		lines := 1 + rng.IntN(30)
		for l := 1; l <= lines; l++ {
			fmt.Fprintf(&b, " %d: %d", l, rng.IntN(100000))
			if rng.IntN(4) == 0 {
				fmt.Fprintf(&b, " %s:%d", name(rng.IntN(funcs)), rng.IntN(1000))
			}
			b.WriteString("\n")
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&b, " %d.%d: %s:%d\n  1: %d\n", l, 1+rng.IntN(3), name(rng.IntN(funcs)), 1+rng.IntN(1000), rng.IntN(1000))
			}
		}
	}
	return []byte(b.String())
}

// TestProfileSections: extbinary profiles with compressed sections, from
// small to several hundred KiB per section, byte for byte as
// llvm-profdata-16, -19 and -22 write them.
func TestProfileSections(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ rel, funcs int }{{19, 1}, {19, 30}, {19, 400}, {19, 3000}, {16, 400}, {22, 3000}} {
		rel, funcs := c.rel, c.funcs
		tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
		text := bigTextProfile(funcs)
		in := filepath.Join(dir, fmt.Sprintf("p%d-%d.txt", rel, funcs))
		if err := os.WriteFile(in, text, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("p%d-%d.prof", rel, funcs))
		cmd := exec.Command(tool, "merge", "--sample", "--extbinary", "--compress-all-sections", "-o", out, in)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, msg)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		p, err := sampleprof.ReadText(in, text, sampleprof.ReadOptions{Release: llvmrelease.Release(rel)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendExtBinary(nil, sampleprof.BinaryOptions{Release: llvmrelease.Release(rel), CompressAll: true})
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := p.AppendExtBinary(nil, sampleprof.BinaryOptions{Release: llvmrelease.Release(rel)})
		t.Logf("LLVM %d, %d functions: %d bytes uncompressed, %d compressed", rel, funcs, len(plain), len(got))
		if !bytes.Equal(got, want) {
			t.Errorf("%d functions (%d bytes of text): ours %d bytes, llvm-profdata-%d %d", funcs, len(text), len(got), rel, len(want))
		}
	}
}
