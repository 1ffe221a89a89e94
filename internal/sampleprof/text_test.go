package sampleprof

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var releases = llvmrelease.Majors()

// llvmMerge runs llvm-profdata-N merge --sample args -o OUT IN and returns
// OUT, or ok=false when the tool fails (or crashes).
func llvmMerge(t *testing.T, rel int, in string, args ...string) ([]byte, bool) {
	t.Helper()
	tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
	return llvmRun(t, rel, "merge", in, args, func() ([]byte, bool) {
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(tool, append(append([]string{"merge", "--sample"}, args...), "-o", out, in)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatalf("%s: %v %s", tool, err, msg)
			}
			return nil, false
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b, true
	})
}

// llvmRuns remembers what llvm-profdata answered, by release, command,
// options and the input's name and contents: the tests ask some of the
// same questions (the text corpus as extbinary, MD5 extbinary and raw
// binary, asked for by TestShowConformance after TestExtBinaryConformance,
// TestRawBinaryConformance and TestLLVMWrittenInputs: 254 of about 4,200
// runs), and each run costs about 0.1 s of CPU starting libLLVM whatever
// its input. LLVM's answers are deterministic. Only runs whose options name no
// file are remembered (an option's file could change under the same path).
var llvmRuns = struct {
	sync.Mutex
	m map[string]llvmAnswer
}{m: map[string]llvmAnswer{}}

type llvmAnswer struct {
	out []byte
	ok  bool
}

// llvmRun returns run's answer, or the remembered one for the same
// question.
func llvmRun(t *testing.T, rel int, cmd, in string, args []string, run func() ([]byte, bool)) ([]byte, bool) {
	t.Helper()
	data, err := os.ReadFile(in)
	if err != nil || slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "--") || strings.ContainsRune(a, '/') }) {
		return run()
	}
	h := sha256.New()
	for _, s := range append([]string{fmt.Sprint(rel), cmd, filepath.Base(in), string(data)}, args...) {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	key := string(h.Sum(nil))
	llvmRuns.Lock()
	a, found := llvmRuns.m[key]
	llvmRuns.Unlock()
	if found {
		return bytes.Clone(a.out), a.ok
	}
	out, ok := run()
	llvmRuns.Lock()
	llvmRuns.m[key] = llvmAnswer{bytes.Clone(out), ok}
	llvmRuns.Unlock()
	return out, ok
}

// corpus returns the hand-written text cases and generated ones, as files.
func textCorpus(t *testing.T) []string {
	files, err := filepath.Glob("testdata/text/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 12 {
		r := newRand(int64(i))
		name := filepath.Join(dir, fmt.Sprintf("gen%02d.txt", i))
		kind := genKind(i % 4)
		if err := os.WriteFile(name, genText(r, kind), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	hashCases := genHashCases()
	for _, name := range slices.Sorted(maps.Keys(hashCases)) {
		data := hashCases[name]
		name = filepath.Join(dir, name)
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	return files
}

// genHashCases writes profiles whose FuncMetadata order and hot-list ties
// follow LLVM's hash of every length class (llvmhash.go): CS contexts of 1
// to 20 frames (frame hashes of 8 to 160 bytes), and probe-based
// functions whose names have 1 to 99 bytes (LLVM 16 hashes the names),
// many of equal total samples.
func genHashCases() map[string][]byte {
	r := newRand(99)
	var deep, names bytes.Buffer
	fns := []string{"main", "foo", "_Z3bazv", "q", strings.Repeat("long_name_", 7), strings.Repeat("m", 25)}
	for i := range 80 {
		var frames []string
		for range i % 20 {
			frames = append(frames, fmt.Sprintf("%s:%d", fns[r.Intn(len(fns))], r.Intn(9)))
			if r.Intn(3) == 0 {
				frames[len(frames)-1] += fmt.Sprintf(".%d", 1+r.Intn(3))
			}
		}
		frames = append(frames, fns[r.Intn(len(fns))])
		fmt.Fprintf(&deep, "[%s]:%d:1\n 1: 5\n !CFGChecksum: 5\n", strings.Join(frames, " @ "), 100*r.Intn(5))
	}
	for i := range 150 {
		fmt.Fprintf(&names, "%s%d:%d:1\n 1: 5\n !CFGChecksum: 5\n", strings.Repeat("f", r.Intn(98)), i, 100*r.Intn(5))
	}
	return map[string][]byte{"hash_deep_cs.txt": deep.Bytes(), "hash_names.txt": names.Bytes()}
}

type genKind int

const (
	genPlain genKind = iota
	genProbe
	genCS
	genVTables
)

// genText writes a random text profile of kind in canonical-ish order
// (LLVM re-sorts whatever we give it).
func genText(r *rand.Rand, kind genKind) []byte {
	var b bytes.Buffer
	names := []string{"main", "foo", "bar", "_Z3bazv", "a::b(int)", "x.__uniq.123", "zed", "q"}
	name := func() string { return names[r.Intn(len(names))] }
	count := func() uint64 {
		switch r.Intn(6) {
		case 0:
			return 0
		case 1:
			return uint64(r.Intn(1000000))
		}
		return uint64(r.Intn(100))
	}
	loc := func() string {
		if r.Intn(3) == 0 {
			return fmt.Sprintf("%d.%d", r.Intn(20), r.Intn(5))
		}
		return fmt.Sprint(r.Intn(20))
	}
	var body func(depth int)
	body = func(depth int) {
		ind := strings.Repeat(" ", depth)
		for range r.Intn(5) {
			fmt.Fprintf(&b, "%s%s: %d", ind, loc(), count())
			for range r.Intn(3) {
				fmt.Fprintf(&b, " %s:%d", name(), count())
			}
			b.WriteByte('\n')
			if kind == genVTables && r.Intn(2) == 0 {
				fmt.Fprintf(&b, "%s%s: vtables _ZTV%s:%d _ZTVx:%d\n", ind, loc(), names[r.Intn(4)], count(), count())
			}
		}
		if depth < 3 {
			for range r.Intn(3) {
				fmt.Fprintf(&b, "%s%s: %s:%d\n", ind, loc(), name(), count())
				body(depth + 1)
			}
		}
		if kind == genProbe {
			fmt.Fprintf(&b, "%s!CFGChecksum: %d\n", ind, 1+r.Intn(5))
			if r.Intn(3) == 0 {
				fmt.Fprintf(&b, "%s!Attributes: %d\n", ind, r.Intn(4))
			}
		}
	}
	for range 1 + r.Intn(12) {
		if kind == genCS {
			var frames []string
			for range r.Intn(3) {
				frames = append(frames, name()+":"+loc())
			}
			frames = append(frames, name())
			fmt.Fprintf(&b, "[%s]:%d:%d\n", strings.Join(frames, " @ "), count(), count())
			for range r.Intn(5) {
				fmt.Fprintf(&b, " %s: %d\n", loc(), count())
			}
			if r.Intn(3) == 0 {
				fmt.Fprintf(&b, " !Attributes: %d\n", r.Intn(8))
			}
			continue
		}
		fmt.Fprintf(&b, "%s:%d:%d\n", name(), count(), count())
		body(1)
	}
	return b.Bytes()
}

func TestTextConformance(t *testing.T) {
	var same, bothFail int
	defer func() { t.Logf("text: %d outputs identical, %d inputs rejected by both", same, bothFail) }()
	for _, file := range textCorpus(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range releases {
			want, ok := llvmMerge(t, rel, file, "--text")
			p, err := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
			if !ok {
				if err == nil {
					t.Errorf("%s: llvm-profdata-%d fails, we read it", filepath.Base(file), rel)
				} else {
					bothFail++
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: llvm-profdata-%d reads it, we fail: %v", filepath.Base(file), rel, err)
				continue
			}
			got := p.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)})
			if !bytes.Equal(got, want) {
				t.Errorf("%s: LLVM %d text differs:\n--- ours\n%s--- llvm-profdata\n%s", filepath.Base(file), rel, got, want)
			} else {
				same++
			}
		}
	}
}

func TestTextErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"f:1:1\n 1:  10\n", "line 2"},
		{"f:1:1\n\n 1: 1\n !Attributes: 1\n 2: 1\n", "line 5: found non-metadata"},
		{"f:x:1\n", "line 1: expected"},
		{"g:1:1\nf:1:1\n 1: 10 a:1 \n", "line 3"},
	} {
		_, err := ReadText("in.txt", []byte(tc.in), ReadOptions{})
		var de *decode.Error
		if !errors.As(err, &de) || !errors.Is(err, decode.ErrMalformed) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want a *decode.Error with %q", tc.in, err, tc.msg)
			continue
		}
		lines := strings.Split(tc.in, "\n")
		var n int
		fmt.Sscanf(tc.msg, "line %d", &n)
		off := 0
		for _, l := range lines[:n-1] {
			off += len(l) + 1
		}
		if de.Offset != int64(off) || de.File != "in.txt" {
			t.Errorf("%q: error at %s offset %d, want in.txt offset %d", tc.in, de.File, de.Offset, off)
		}
	}
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
