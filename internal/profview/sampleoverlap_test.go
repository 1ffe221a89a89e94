package profview_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/profgen"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// The programs and traces of tools/profgen's tests (the same cache
// entries: the key depends on the sources' content, not their paths).
var (
	profgenSources = []tracetest.Source{
		{File: "../perfscript/testdata/calls.c", CC: "clang-19"},
		{File: "../perfscript/testdata/calls.c", CC: "clang-22"},
		{File: "../perfscript/testdata/shapes.cc", CC: "clang++-22"},
		{File: "../../tools/profgen/testdata/inline.cc", CC: "clang++-19"},
		{File: "../../tools/profgen/testdata/inline.cc", CC: "clang++-22"},
		{File: "../../tools/profgen/testdata/cycles.cc", CC: "clang++-19"},
		{File: "../../tools/profgen/testdata/cycles.cc", CC: "clang++-22"},
	}
	callchainSources = []tracetest.Source{
		{File: "../../tools/profgen/testdata/callchain.cc", CC: "clang++-19"},
		{File: "../../tools/profgen/testdata/callchain.cc", CC: "clang++-22"},
		{File: "../../tools/profgen/testdata/probe-callchain.cc", CC: "clang++-22"},
	}
	lbrAndHybrid = tracetest.Trace{
		Args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
		Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
	}
	modernHybrid = tracetest.Trace{
		Args:    []string{"--period", "97", "--jitter", "20", "--pid", "77", "--brstack-style", "modern", "--kernel-entries", "all", "--lbr-depth", "8", "--seed", "3"},
		ProgArg: "1000",
		Outputs: map[string]string{"hybrid-modern": "hybrid"},
	}
)

// sampleFixtures generates sample profiles with llvm-profgen-22 (and a
// few with our profgen, named ours-*) from the traces of two runs
// (different periods and workloads) of real programs: name → path, and
// "bin:"+name → the profiled binary.
func sampleFixtures(t *testing.T) map[string]string {
	t.Helper()
	llvmProfgen := testenv.Tool(t, "llvm-profgen-22")
	progs := map[string]tracetest.Program{}
	for _, p := range tracetest.Build(t, "profgen-traces", profgenSources, []tracetest.Trace{lbrAndHybrid, modernHybrid}) {
		progs[p.Name] = p
	}
	for _, p := range tracetest.Build(t, "profgen-callchain-traces", callchainSources, []tracetest.Trace{lbrAndHybrid, modernHybrid}) {
		progs[p.Name] = p
	}
	dir := t.TempDir()
	out := map[string]string{}
	gen := func(name, prog, trace string, args ...string) {
		p, ok := progs[prog]
		if !ok {
			t.Fatalf("no program %s", prog)
		}
		path := filepath.Join(dir, name)
		args = append([]string{"--binary", p.Bin, "--perfscript", p.Traces[trace], "--output", path}, args...)
		if b, err := exec.Command(llvmProfgen, args...).CombinedOutput(); err != nil {
			t.Fatalf("llvm-profgen-22 %q: %v\n%s", args, err, b)
		}
		out[name], out["bin:"+name] = path, p.Bin
	}
	// ours generates a profile with our profgen (internal/profgen).
	ours := func(name, prog, trace string, set func(o *profgen.Options)) {
		p := progs[prog]
		o := profgen.DefaultOptions()
		o.Release, o.Binary, o.Perfscript, o.Output = 22, p.Bin, p.Traces[trace], filepath.Join(dir, name)
		set(&o)
		if err := profgen.Run(o); err != nil {
			t.Fatalf("profgen %s: %v", name, err)
		}
		out[name], out["bin:"+name] = o.Output, p.Bin
	}
	ours("ours-inline-lbr.txt", "inline-clang++-22-nopie", "lbr", func(o *profgen.Options) { o.Format = "text" })
	ours("ours-cycles-cs-modern.prof", "cycles-clang++-22-nopie", "hybrid-modern", func(o *profgen.Options) { o.CS.GenNestedProfile = false })
	// Non-CS, DWARF lines: text and extbinary.
	gen("inline-lbr.txt", "inline-clang++-22-nopie", "lbr", "--format=text")
	gen("inline-modern.prof", "inline-clang++-22-nopie", "hybrid-modern", "--ignore-stack-samples")
	gen("calls-lbr.prof", "calls-clang-22-nopie", "lbr", "--format=binary")
	gen("calls-modern.txt", "calls-clang-22-nopie", "hybrid-modern", "--ignore-stack-samples", "--format=text")
	// CS: flat contexts (text, extbinary) and nested preinlined (extbinary).
	gen("cycles-cs.txt", "cycles-clang++-22-nopie", "hybrid", "--format=text", "--gen-cs-nested-profile=0")
	gen("cycles-cs-modern.prof", "cycles-clang++-22-nopie", "hybrid-modern", "--gen-cs-nested-profile=0")
	gen("cycles-nested.prof", "cycles-clang++-22-nopie", "hybrid")
	gen("cycles-nested-modern.prof", "cycles-clang++-22-nopie", "hybrid-modern")
	// Probe-based: CS and not.
	gen("probe-cs.txt", "probe-callchain-clang++-22-nopie", "hybrid", "--format=text", "--gen-cs-nested-profile=0")
	gen("probe-cs-modern.prof", "probe-callchain-clang++-22-nopie", "hybrid-modern", "--gen-cs-nested-profile=0")
	gen("probe-lbr.prof", "probe-callchain-clang++-22-nopie", "lbr")
	gen("probe-modern.txt", "probe-callchain-clang++-22-nopie", "hybrid-modern", "--ignore-stack-samples", "--format=text")
	return out
}

// samplePairs are the pairs compared: two runs of one program (non-CS,
// CS flat, CS nested, probe-based CS and not), and two programs.
var samplePairs = [][2]string{
	{"inline-lbr.txt", "inline-modern.prof"},
	{"calls-lbr.prof", "calls-modern.txt"},
	{"cycles-cs.txt", "cycles-cs-modern.prof"},
	{"cycles-nested.prof", "cycles-nested-modern.prof"},
	{"probe-cs.txt", "probe-cs-modern.prof"},
	{"probe-lbr.prof", "probe-modern.txt"},
	{"inline-lbr.txt", "calls-modern.txt"},
	// Our profgen's profiles against llvm-profgen's of the other run.
	{"ours-inline-lbr.txt", "inline-modern.prof"},
	{"cycles-cs.txt", "ours-cycles-cs-modern.prof"},
}

// TestSampleOverlapLLVM compares `merge overlap --sample` with
// llvm-profdata-22 overlap --sample, byte for byte, on pairs of real
// profiles with the options that choose function-level details.
func TestSampleOverlapLLVM(t *testing.T) {
	fx := sampleFixtures(t)
	variants := []struct {
		args []string
		o    profview.SampleOverlapOptions
	}{
		{nil, profview.SampleOverlapOptions{ValueCutoff: profview.NoValueCutoff}},
		{[]string{"--value-cutoff=1"}, profview.SampleOverlapOptions{ValueCutoff: 1}},
		{[]string{"--similarity-cutoff=995000", "--function=main"}, profview.SampleOverlapOptions{ValueCutoff: profview.NoValueCutoff, SimilarityCutoff: 995000, Function: "main"}},
	}
	// The fixtures are of the kinds they are named for.
	for name, kind := range map[string]string{"inline-lbr.txt": "", "calls-lbr.prof": "", "cycles-cs.txt": "cs",
		"cycles-nested.prof": "", "probe-cs.txt": "cs probe", "probe-lbr.prof": "probe"} {
		p, err := profmerge.LoadSample(fx[name], 22)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if p.CS {
			got = append(got, "cs")
		}
		if p.ProbeBased {
			got = append(got, "probe")
		}
		if strings.Join(got, " ") != kind || len(p.Funcs) < 3 {
			t.Errorf("%s: kind %q, %d functions; want %q and a few functions", name, got, len(p.Funcs), kind)
		}
	}
	compared := 0
	for _, rel := range []llvmrelease.Release{22, 19, 16} {
		profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
		for _, pair := range samplePairs {
			for _, ab := range [][2]string{pair, {pair[1], pair[0]}} {
				a, b := fx[ab[0]], fx[ab[1]]
				for _, v := range variants {
					args := append([]string{"overlap", "--sample", a, b}, v.args...)
					want, err := exec.Command(profdata, args...).Output()
					if err != nil {
						t.Fatalf("llvm-profdata-%d %q: %v", rel, args, err)
					}
					var got bytes.Buffer
					v.o.Release = rel
					if err := profmerge.OverlapSample(&got, a, b, v.o); err != nil {
						t.Fatalf("%s %s: %v", ab[0], ab[1], err)
					}
					if got.String() != string(want) {
						t.Errorf("overlap %s %s %q:\n%s\nwant (llvm-profdata-%d):\n%s", ab[0], ab[1], v.args, got.String(), rel, want)
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d overlap reports equal llvm-profdata-22's, -19's and -16's", compared)
	// Mixed kinds: LLVM's refusal.
	var sink bytes.Buffer
	err := profmerge.OverlapSample(&sink, fx["cycles-cs.txt"], fx["inline-lbr.txt"], profview.SampleOverlapOptions{Release: 22, ValueCutoff: profview.NoValueCutoff})
	if err == nil || !strings.Contains(err.Error(), "cannot compare CS profile with non-CS profile") {
		t.Errorf("CS with non-CS: %v", err)
	}
}

// TestSampleDiff checks `merge diff` of sample profiles: the text holds
// overlap's report and every function of either profile, with the
// samples and similarity llvm-profdata-22's function-level details give
// each function of B (demangled names mapped to LLVM's), and the pprof
// outputs (the diff, and show --format=pprof of both as -diff_base
// inputs) are read by go tool pprof, the diff's values being B minus A
// scaled to B's total.
func TestSampleDiff(t *testing.T) {
	fx := sampleFixtures(t)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	dir := t.TempDir()
	for _, pair := range [][2]string{samplePairs[0], samplePairs[2]} {
		a, b := fx[pair[0]], fx[pair[1]]
		var text, over bytes.Buffer
		o := profmerge.SampleDiffOptions{SampleOverlapOptions: profview.SampleOverlapOptions{Release: 22, ValueCutoff: profview.NoValueCutoff}}
		if err := profmerge.DiffSample(&text, a, b, "text", o); err != nil {
			t.Fatal(err)
		}
		if err := profmerge.OverlapSample(&over, a, b, o.SampleOverlapOptions); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), over.String()) {
			t.Errorf("%s: the diff lacks overlap's report", pair)
		}
		pa, err := profmerge.LoadSample(a, 22)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := profmerge.LoadSample(b, 22)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][]string{{"A", pair[0]}, {"B", pair[1]}} {
			prof := pa
			if p[0] == "B" {
				prof = pb
			}
			for _, fs := range prof.Funcs {
				if !strings.Contains(text.String(), "  "+profview.ContextName(fs)+"\n") {
					t.Errorf("%s: the diff does not list %s's %s", pair, p[1], profview.ContextName(fs))
				}
			}
		}
		// Every function's samples and similarity as llvm-profdata's
		// function-level details give them (--value-cutoff=0: every
		// function of B).
		llvm, err := exec.Command(testenv.Tool(t, "llvm-profdata-22"), "overlap", "--sample", "--value-cutoff=0", a, b).Output()
		if err != nil {
			t.Fatal(err)
		}
		inA := map[string]bool{}
		for _, fs := range pa.Funcs {
			inA[fs.ContextString()] = true
		}
		display := map[string]string{}
		for _, fs := range pb.Funcs {
			display[fs.ContextString()] = profview.ContextName(fs)
		}
		ours := map[string][]string{}
		for _, line := range strings.Split(text.String(), "\n") {
			if f := strings.Fields(line); len(f) > 6 && strings.HasSuffix(f[1], "%") {
				if _, _, ok := strings.Cut(line, "  "+strings.Join(f[6:], " ")); ok {
					ours[strings.Join(f[6:], " ")] = f
				}
			}
		}
		_, details, _ := strings.Cut(string(llvm), "Function-level details:\n")
		rows := strings.Split(strings.TrimSpace(details), "\n")[1:]
		if len(rows) != len(pb.Funcs) {
			t.Errorf("%s: llvm-profdata lists %d functions, B has %d", pair, len(rows), len(pb.Funcs))
		}
		for _, row := range rows {
			f := strings.Fields(row)
			name := display[strings.Join(f[8:], " ")]
			got := ours[name]
			if got == nil {
				t.Errorf("%s: the diff has no row for %s", pair, name)
				continue
			}
			sim := f[2]
			if !inA[strings.Join(f[8:], " ")] {
				sim = "new"
			}
			if got[0] != f[6] || got[2] != f[7] || got[5] != sim {
				t.Errorf("%s: %s: A %s B %s similarity %s, llvm-profdata: %s %s %s", pair, name, got[0], got[2], got[5], f[6], f[7], sim)
			}
		}
		// pprof: the diff and the two views.
		files := map[string]string{"diff": filepath.Join(dir, "diff.pb.gz"), "A": filepath.Join(dir, "a.pb.gz"), "B": filepath.Join(dir, "b.pb.gz")}
		var buf bytes.Buffer
		if err := profmerge.DiffSample(&buf, a, b, "pprof", o); err != nil {
			t.Fatal(err)
		}
		write(t, files["diff"], buf.Bytes())
		for _, v := range [][2]string{{"A", a}, {"B", b}} {
			buf.Reset()
			if err := profmerge.ShowSampleView(&buf, v[1], profmerge.SampleViewOptions{Release: 22}); err != nil {
				t.Fatal(err)
			}
			write(t, files[v[0]], buf.Bytes())
		}
		raw, err := os.ReadFile(files["diff"])
		if err != nil {
			t.Fatal(err)
		}
		d, err := profile.Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var ta, tb, td int64
		for _, fs := range pa.Funcs {
			ta += int64(bodyTotal(fs))
		}
		for _, fs := range pb.Funcs {
			tb += int64(bodyTotal(fs))
		}
		for _, s := range d.Sample {
			td += s.Value[0]
		}
		// Scaled A rounds per location: the sum is B's total less A's
		// scaled total, within a sample per location of A.
		if slack := int64(len(d.Sample)); td < -slack || td > slack {
			t.Errorf("%s: diff sums to %d (A %d, B %d), want about 0", pair, td, ta, tb)
		}
		top := runPprof(t, goTool, "-top", files["diff"])
		if !strings.Contains(top, "scaled to B's total samples") || strings.Contains(top, " _Z") || !strings.Contains(top, "(long") {
			t.Errorf("pprof -top of the diff (want demangled names):\n%s", top)
		}
		base := runPprof(t, goTool, "-top", "-diff_base="+files["A"], files["B"])
		if !strings.Contains(base, "flat%") {
			t.Errorf("pprof -diff_base:\n%s", base)
		}
	}
}

// bodyTotal is the sum of a profile's line counts, inlinees included.
func bodyTotal(fs *sampleprof.FunctionSamples) uint64 {
	var n uint64
	for _, b := range fs.Body {
		n += b.Samples
	}
	for _, c := range fs.Callsites {
		n += bodyTotal(c.Callee)
	}
	return n
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
