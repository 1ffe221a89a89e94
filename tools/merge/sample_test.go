package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Differential tests of `merge --sample` against llvm-profdata-16/19/22
// merge --sample, both given the same inputs in the same order (ours
// sorts them by path; llvm-profdata gets them sorted, as --weighted-input).

var sampleReleases = []int{16, 19, 22}

const sampleTestdata = "../../internal/sampleprof/testdata/text"

// genSample writes a random text profile: plain, probe-based or CS, over a
// few names so that inputs overlap.
func genSample(r *rand.Rand, kind string) []byte {
	var b bytes.Buffer
	names := []string{"main", "foo", "bar", "_Z3bazv", "a::b(int)", "q"}
	name := func() string { return names[r.Intn(len(names))] }
	loc := func() string {
		if r.Intn(3) == 0 {
			return fmt.Sprintf("%d.%d", r.Intn(9), 1+r.Intn(3))
		}
		return fmt.Sprint(r.Intn(9))
	}
	var body func(ind string, depth int)
	body = func(ind string, depth int) {
		for range 1 + r.Intn(4) {
			fmt.Fprintf(&b, "%s%s: %d", ind, loc(), r.Intn(5000))
			for range r.Intn(3) {
				fmt.Fprintf(&b, " %s:%d", name(), r.Intn(900))
			}
			b.WriteByte('\n')
		}
		if depth < 2 && kind != "cs" {
			for range r.Intn(2) {
				fmt.Fprintf(&b, "%s%s: %s:%d\n", ind, loc(), name(), r.Intn(3000))
				body(ind+" ", depth+1)
			}
		}
		if kind == "probe" {
			fmt.Fprintf(&b, "%s!CFGChecksum: %d\n", ind, 7+r.Intn(2))
		}
	}
	for range 2 + r.Intn(6) {
		head := name()
		if kind == "cs" {
			head = "[" + name() + ":" + loc() + " @ " + name() + "]"
			if r.Intn(2) == 0 {
				head = "[" + name() + "]"
			}
		}
		fmt.Fprintf(&b, "%s:%d:%d\n", head, r.Intn(90000), r.Intn(100))
		body(" ", 0)
	}
	return b.Bytes()
}

// llvmSample runs llvm-profdata-N merge --sample; ok=false if it fails.
func llvmSample(t *testing.T, rel int, args ...string) ([]byte, string, bool) {
	t.Helper()
	tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
	out := filepath.Join(t.TempDir(), "llvm.out")
	cmd := exec.Command(tool, append(append([]string{"merge", "--sample"}, args...), "-o", out)...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
		return nil, string(msg), false
	}
	return readFile(t, out), string(msg), true
}

type sampleIn struct {
	path string
	w    int
}

// sampleInputs builds the input sets of the differential tests: each is
// sorted by path as merge orders them.
func sampleInputs(t *testing.T, rel int) map[string][]sampleIn {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// convert writes src as llvm-profdata-rel writes it with args.
	convert := func(name, src string, args ...string) string {
		data, msg, ok := llvmSample(t, rel, append(args, src)...)
		if !ok {
			t.Fatalf("llvm-profdata-%d %v %s: %s", rel, args, src, msg)
		}
		return write(name, data)
	}
	sets := map[string][]sampleIn{}
	for _, kind := range []string{"plain", "probe", "cs"} {
		var texts []string
		for i := range 4 {
			texts = append(texts, write(fmt.Sprintf("%s%d.txt", kind, i), genSample(rand.New(rand.NewSource(int64(rel*100+i+len(kind)))), kind)))
		}
		sets[kind+"-text"] = []sampleIn{{texts[0], 1}, {texts[1], 3}, {texts[2], 1}, {texts[3], 1}}
		// Mixed input encodings: text, extbinary, MD5 extbinary, and
		// raw binary where it can hold the profile.
		mixed := []sampleIn{{texts[0], 2},
			{convert(kind+"1.extbin", texts[1], "--extbinary"), 1},
			{convert(kind+"2.extmd5", texts[2], "--extbinary", "--use-md5"), 1}}
		if kind == "plain" {
			mixed = append(mixed, sampleIn{convert(kind+"3.rawbin", texts[3], "--binary"), 5})
		}
		sets[kind+"-mixed"] = mixed
		md5 := []sampleIn{}
		for i, f := range texts {
			md5 = append(md5, sampleIn{convert(fmt.Sprintf("%s%d.md5", kind, i), f, "--extbinary", "--use-md5"), 1 + i%2})
		}
		sets[kind+"-md5"] = md5
	}
	sets["corpus"] = []sampleIn{{filepath.Join(sampleTestdata, "basic.txt"), 1}, {filepath.Join(sampleTestdata, "colons.txt"), 2},
		{filepath.Join(sampleTestdata, "duplicate.txt"), 1}, {filepath.Join(sampleTestdata, "numeric_targets.txt"), 1}}
	for k := range sets {
		slices.SortFunc(sets[k], func(a, b sampleIn) int { return strings.Compare(a.path, b.path) })
	}
	return sets
}

func TestSampleMergeConformance(t *testing.T) {
	formats := [][]string{{"--text"}, {"--binary"}, {"--extbinary"}, {"--extbinary", "--use-md5"},
		{"--extbinary", "--compress-all-sections"}, {"--extbinary", "--gen-partial-profile"}, {"--extbinary", "--split-layout"}, {}}
	var exact int
	for _, rel := range sampleReleases {
		sets := sampleInputs(t, rel)
		for name, ins := range sets {
			for _, flags := range formats {
				if slices.Contains(flags, "--split-layout") && rel < 22 {
					continue
				}
				var args []string
				for _, in := range ins {
					args = append(args, fmt.Sprintf("--weighted-input=%d,%s", in.w, in.path))
				}
				want, msg, ok := llvmSample(t, rel, append(slices.Clone(flags), args...)...)
				out := filepath.Join(t.TempDir(), "ours.out")
				ourArgs := append(append([]string{"--sample", "--llvm-version", fmt.Sprint(rel), "-o", out}, flags...), args...)
				_, stderr, code := runTool(t, ourArgs...)
				what := fmt.Sprintf("LLVM %d %s %v", rel, name, flags)
				if !ok {
					if code == 0 {
						t.Errorf("%s: llvm-profdata fails (%s), we do not", what, msg)
					}
					continue
				}
				if code != 0 {
					t.Errorf("%s: exit %d: %s", what, code, stderr)
					continue
				}
				got := readFile(t, out)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: output differs\nours %.400q\nllvm %.400q", what, got, want)
					continue
				}
				exact++
			}
		}
	}
	t.Logf("%d outputs byte-identical (--compress-all-sections included)", exact)
}

func TestSampleSymbolLists(t *testing.T) {
	dir := t.TempDir()
	syms := filepath.Join(dir, "syms.txt")
	os.WriteFile(syms, []byte("main\nfoo\n  zz  \n\nbar\n"), 0o644)
	basic := filepath.Join(sampleTestdata, "basic.txt")
	for _, rel := range sampleReleases {
		withList, msg, ok := llvmSample(t, rel, "--extbinary", "--prof-sym-list="+syms, basic)
		if !ok {
			t.Fatal(msg)
		}
		in := filepath.Join(dir, fmt.Sprintf("a%d.prof", rel))
		os.WriteFile(in, withList, 0o644)
		for _, flags := range [][]string{{"--extbinary"}, {"--extbinary", "--drop-profile-symbol-list"}, {"--extbinary", "--prof-sym-list=" + syms, "--drop-profile-symbol-list"}} {
			args := append(slices.Clone(flags), in, basic)
			want, msg, ok := llvmSample(t, rel, args...)
			if !ok {
				t.Fatal(msg)
			}
			out := filepath.Join(dir, "out")
			if _, stderr, code := runTool(t, append([]string{"--llvm-version", fmt.Sprint(rel), "-o", out}, args...)...); code != 0 {
				t.Fatalf("LLVM %d %v: %s", rel, flags, stderr)
			}
			if got := readFile(t, out); !bytes.Equal(got, want) {
				t.Errorf("LLVM %d %v: differs\nours %x\nllvm %x", rel, flags, got, want)
			}
		}
	}
}

// TestSampleBadInputs: a truncated binary input fails the merge in every
// failure mode, as in llvm-profdata (its readers exit on a decoding
// error); a file that is no sample profile at all is skipped under all and
// warn. Never a partial output.
func TestSampleBadInputs(t *testing.T) {
	dir := t.TempDir()
	basic := filepath.Join(sampleTestdata, "basic.txt")
	notProf := filepath.Join(dir, "b_not_a_profile.txt")
	os.WriteFile(notProf, []byte("this is not a profile\n"), 0o644)
	for _, rel := range sampleReleases {
		full, _, _ := llvmSample(t, rel, "--extbinary", basic)
		modes := []string{"any", "all", "warn"}
		if rel == 16 {
			modes = modes[:2]
		}
		// Not a cut into the last section: llvm-profdata-N reads past the
		// end of such a file, where we report the section the table
		// points outside the file (internal/sampleprof's
		// TestTruncatedLastSection).
		for _, cut := range []int{5, 40, len(full) / 2} {
			trunc := filepath.Join(dir, fmt.Sprintf("a_trunc%d_%d.prof", rel, cut))
			os.WriteFile(trunc, full[:cut], 0o644)
			for _, mode := range modes {
				for _, bad := range []string{trunc, notProf} {
					args := []string{"--failure-mode=" + mode, "--extbinary", bad, basic}
					want, _, ok := llvmSample(t, rel, args...)
					out := filepath.Join(t.TempDir(), "out")
					_, stderr, code := runTool(t, append([]string{"--sample", "--llvm-version", fmt.Sprint(rel), "-o", out}, args...)...)
					what := fmt.Sprintf("LLVM %d %s %s", rel, filepath.Base(bad), mode)
					if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
						t.Fatalf("%s: %s", what, stderr)
					}
					if !strings.Contains(stderr, filepath.Base(bad)) {
						t.Errorf("%s: error does not name the file: %s", what, stderr)
					}
					_, statErr := os.Stat(out)
					switch {
					case !ok && code == 0:
						t.Errorf("%s: llvm-profdata fails, we do not", what)
					case !ok && statErr == nil:
						t.Errorf("%s: failed but wrote %s", what, out)
					case ok && code != 0:
						t.Errorf("%s: llvm-profdata succeeds, we fail: %s", what, stderr)
					case ok && !bytes.Equal(readFile(t, out), want):
						t.Errorf("%s: output differs", what)
					}
				}
			}
		}
		if rel == 16 {
			if _, stderr, code := runTool(t, "--sample", "--llvm-version=16", "--failure-mode=warn", "-o", filepath.Join(dir, "x"), basic); code != 2 {
				t.Errorf("LLVM 16 --failure-mode=warn: exit %d, want usage error: %s", code, stderr)
			}
		}
	}
}

func TestSampleUsage(t *testing.T) {
	dir := t.TempDir()
	basic := filepath.Join(sampleTestdata, "basic.txt")
	mem := filepath.Join(dir, "heap.profdata")
	os.WriteFile(mem, []byte{0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x81, 0, 0, 0, 0}, 0o644)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", out, basic, mem}, "heap.profdata"},
		{[]string{"--llvm-version=19", "--split-layout", "-o", out, basic}, "--split-layout"},
		{[]string{"--llvm-version=16", "--extbinary-write-vtable-type-prof", "-o", out, basic}, "--extbinary-write-vtable-type-prof"},
		{[]string{"--text", "-o", out, mem}, "sample"},
	} {
		_, stderr, code := runTool(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error naming %s", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote output", c.args)
		}
	}
	// Vtable type profiles never reach an older release.
	vt := filepath.Join(sampleTestdata, "vtables.txt")
	for _, rel := range []string{"16", "19"} {
		_, stderr, code := runTool(t, "--llvm-version", rel, "--text", "-o", out, vt)
		if code != 0 || !strings.Contains(stderr, "vtable") {
			t.Errorf("LLVM %s vtables: exit %d, %q; want a warning", rel, code, stderr)
		}
		if b := readFile(t, out); bytes.Contains(b, []byte("vtables")) {
			t.Errorf("LLVM %s: vtables written:\n%s", rel, b)
		}
	}
}

// TestSampleConvert: --sample-merge-cold-context, --sample-trim-cold-context,
// --sample-frame-depth-for-cold-context and --convert-sample-profile-layout
// (LLVM 16: --gen-cs-nested-profile) on merged weighted inputs write what
// llvm-profdata-N writes (internal/sampleprof's TestConvertConformance
// covers more profiles); their misuses are usage errors.
func TestSampleConvert(t *testing.T) {
	var n int
	for _, rel := range sampleReleases {
		sets := sampleInputs(t, rel)
		nest := []string{"--convert-sample-profile-layout=nest"}
		if rel == 16 {
			nest = []string{"--gen-cs-nested-profile"}
		}
		flagSets := [][]string{{"--sample-merge-cold-context"}, {"--sample-trim-cold-context", "--sample-merge-cold-context"},
			nest, append([]string{"--sample-merge-cold-context"}, nest...)}
		if rel > 16 {
			flagSets = append(flagSets, []string{"--convert-sample-profile-layout=flat"},
				[]string{"--sample-merge-cold-context", "--sample-frame-depth-for-cold-context=2"})
		}
		for _, set := range []string{"cs-text", "cs-mixed", "probe-mixed"} {
			var args []string
			for _, in := range sets[set] {
				args = append(args, fmt.Sprintf("--weighted-input=%d,%s", in.w, in.path))
			}
			for _, flags := range flagSets {
				for _, format := range []string{"--text", "--extbinary"} {
					all := append(append([]string{format}, flags...), args...)
					what := fmt.Sprintf("LLVM %d %s %v", rel, set, all[:len(flags)+1])
					want, msg, ok := llvmSample(t, rel, all...)
					out := filepath.Join(t.TempDir(), "out")
					_, stderr, code := runTool(t, append([]string{"--sample", "--llvm-version", fmt.Sprint(rel), "-o", out}, all...)...)
					switch {
					case !ok && code == 0:
						t.Errorf("%s: llvm-profdata fails (%.200s), we do not", what, msg)
					case ok && code != 0:
						t.Errorf("%s: exit %d: %s", what, code, stderr)
					case ok && !bytes.Equal(readFile(t, out), want):
						t.Errorf("%s: output differs", what)
					case ok:
						n++
					}
				}
			}
		}
	}
	t.Logf("%d outputs byte-identical", n)
	basic := filepath.Join(sampleTestdata, "basic.txt")
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--convert-sample-profile-layout=nested"}, "want nest or flat"},
		{[]string{"--llvm-version=16", "--convert-sample-profile-layout=flat"}, "LLVM 19 and later"},
		{[]string{"--sample-frame-depth-for-cold-context=-1"}, "at least 1"},
		{[]string{"--sample-frame-depth-for-cold-context=0"}, "at least 1"},
	} {
		_, stderr, code := runTool(t, append(append([]string{"--sample", "-o", out}, c.args...), basic)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want usage error saying %q", c.args, code, stderr, c.want)
		}
	}
	// llvm-profdata-16 merges cold contexts into base profiles whatever
	// the depth: we do too, and say so.
	cs := sampleInputs(t, 16)["cs-text"][0].path
	want, _, _ := llvmSample(t, 16, "--text", "--sample-merge-cold-context", "--sample-frame-depth-for-cold-context=3", cs)
	_, stderr, code := runTool(t, "--sample", "--llvm-version=16", "--text", "--sample-merge-cold-context", "--sample-frame-depth-for-cold-context=3", "-o", out, cs)
	if code != 0 || !strings.Contains(stderr, "ignores --sample-frame-depth-for-cold-context") || !bytes.Equal(readFile(t, out), want) {
		t.Errorf("LLVM 16 depth 3: exit %d, %q, same output %v", code, stderr, bytes.Equal(readFile(t, out), want))
	}
}
