package instrprof

// Conformance tests against the real LLVM tools: build the testdata programs
// with clang++-N, run them under the MemProf runtime, convert the raw
// profiles with llvm-profdata-N for every MemProf version that release
// writes, and require Read → Write to reproduce llvm-profdata's bytes. The
// YAML tests compare with llvm-profdata-22 show --memory and merge.
//
// Without the tools these tests skip loudly, except under CI=true, where a
// missing tool fails the test.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var workDir string // per-run scratch directory, created by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "instrprof-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type builtProgram struct {
	bin, raw string
}

// buildProgram compiles testdata/<src> with the build command on its first
// line (clang++-N → clang++-release, plus extra flags), runs it with the
// MemProf runtime and returns the binary and raw profile. They are built
// through testenv.Cached, keyed by the source, the command and the
// compiler and linker versions, so once for every test run that sees them.
func buildProgram(t *testing.T, src string, release int, variant string, extra ...string) *builtProgram {
	t.Helper()
	cxx := testenv.Tool(t, fmt.Sprintf("clang++-%d", release))
	name := fmt.Sprintf("%s.%d%s", strings.TrimSuffix(src, ".cc"), release, variant)
	data, err := os.ReadFile(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	args := strings.Fields(strings.TrimPrefix(first, "//"))
	if len(args) < 3 || args[0] != "clang++-N" || args[len(args)-2] != "-o" {
		t.Fatalf("%s: first line is not a clang++-N build command", src)
	}
	// The source is compiled in the fixture directory under its own name,
	// so neither the command nor the debug info names a checkout.
	cmdArgs := append(append(slices.Clone(args[1:len(args)-2]), extra...), "-o", name)
	inputs := []string{src, string(data), strings.Join(cmdArgs, " "),
		testenv.Version(t, filepath.Base(cxx)), testenv.Version(t, "ld.lld-19")}
	dir := testenv.Cached(t, "instrprof-"+name, inputs, func(dir string) error {
		if err := os.WriteFile(filepath.Join(dir, src), data, 0o644); err != nil {
			return err
		}
		cc := exec.Command(cxx, cmdArgs...)
		cc.Dir = dir
		if out, err := cc.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", cxx, strings.Join(cmdArgs, " "), err, out)
		}
		logBase := filepath.Join(dir, name+".log")
		run := exec.Command(filepath.Join(dir, name))
		run.Dir = dir
		run.Env = append(os.Environ(), "MEMPROF_OPTIONS=log_path="+logBase)
		if out, err := run.CombinedOutput(); err != nil {
			return fmt.Errorf("running %s: %v\n%s", name, err, out)
		}
		m, _ := filepath.Glob(logBase + ".*")
		if len(m) != 1 {
			return fmt.Errorf("running %s: want one raw profile %s.*, found %v", name, logBase, m)
		}
		return os.Rename(m[0], filepath.Join(dir, name+".memprofraw"))
	})
	return &builtProgram{bin: filepath.Join(dir, name), raw: filepath.Join(dir, name+".memprofraw")}
}

func runTool(t *testing.T, tool string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, msg)
	}
	return out
}

// TestConformanceRaw: raw profile → llvm-profdata-N merge → Read → Write
// must reproduce llvm-profdata's bytes for every version the release writes
// (AccessHistogram pointers compared semantically; see compareIndexed).
func TestConformanceRaw(t *testing.T) {
	hist := []string{"-mllvm", "-memprof-use-callbacks=true", "-mllvm", "-memprof-histogram"}
	type variant struct {
		name string
		args []string
		opts WriteOptions
	}
	releases := []struct {
		release  int
		variants []variant
	}{
		{16, []variant{{"default", nil, WriteOptions{16, 9, 0, false}}}},
		{19, []variant{
			{"default", nil, WriteOptions{19, 12, 0, false}},
			{"v1", []string{"--memprof-version=1"}, WriteOptions{19, 12, 1, false}},
			{"v2", []string{"--memprof-version=2"}, WriteOptions{19, 12, 2, false}},
			{"v2-full", []string{"--memprof-version=2", "--memprof-full-schema"}, WriteOptions{19, 12, 2, true}},
			{"v3", []string{"--memprof-version=3"}, WriteOptions{19, 12, 3, false}},
			{"v3-full", []string{"--memprof-version=3", "--memprof-full-schema"}, WriteOptions{19, 12, 3, true}},
			{"prev", []string{"--write-prev-version"}, WriteOptions{19, 11, 0, false}},
		}},
		{22, []variant{
			{"default", nil, WriteOptions{22, 13, 3, false}},
			{"v2", []string{"--memprof-version=2"}, WriteOptions{22, 13, 2, false}},
			{"v2-full", []string{"--memprof-version=2", "--memprof-full-schema"}, WriteOptions{22, 13, 2, true}},
			{"v3-full", []string{"--memprof-version=3", "--memprof-full-schema"}, WriteOptions{22, 13, 3, true}},
			{"v4", []string{"--memprof-version=4"}, WriteOptions{22, 13, 4, false}},
			{"v4-full", []string{"--memprof-version=4", "--memprof-full-schema"}, WriteOptions{22, 13, 4, true}},
			{"prev", []string{"--write-prev-version"}, WriteOptions{22, 11, 3, false}},
		}},
	}
	programs := []struct {
		src, variant string
		extra        []string
		minRelease   int
	}{
		{"memprog.cc", "", nil, 16},
		{"memprog.cc", ".hist", hist, 19},
		{"many.cc", "", nil, 16},
	}
	for _, r := range releases {
		t.Run(fmt.Sprintf("llvm%d", r.release), func(t *testing.T) {
			profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", r.release))
			for _, prog := range programs {
				if r.release < prog.minRelease {
					continue
				}
				t.Run(strings.TrimSuffix(prog.src, ".cc")+prog.variant, func(t *testing.T) {
					b := buildProgram(t, prog.src, r.release, prog.variant, prog.extra...)
					for _, v := range r.variants {
						if def, _ := Defaults(llvmrelease.Release(r.release)); v.name == "default" && def != v.opts {
							t.Fatalf("Defaults(%d) = %+v, llvm-profdata default modelled as %+v", r.release, def, v.opts)
						}
						t.Run(v.name, func(t *testing.T) {
							out := filepath.Join(workDir, filepath.Base(b.bin)+"."+v.name+".profdata")
							args := append([]string{"merge", "--profiled-binary", b.bin, "-o", out}, v.args...)
							runTool(t, profdata, append(args, b.raw)...)
							want, err := os.ReadFile(out)
							if err != nil {
								t.Fatal(err)
							}
							f, err := Read(out, want)
							if err != nil {
								t.Fatal(err)
							}
							got, err := marshal(f.profileForWrite(llvmrelease.Release(r.release)), v.opts)
							if err != nil {
								t.Fatal(err)
							}
							compareIndexed(t, got, want)
						})
					}
				})
			}
		})
	}
}

// TestConformanceYAML: WriteYAML equals llvm-profdata-22 show --memory, and
// ReadYAML + Write of that YAML equals llvm-profdata-22 merge of it.
func TestConformanceYAML(t *testing.T) {
	profdata := testenv.Tool(t, "llvm-profdata-22")
	var inputs []string
	for _, src := range []string{"memprog.cc", "many.cc"} {
		b := buildProgram(t, src, 22, "")
		out := filepath.Join(workDir, filepath.Base(b.bin)+".yamlsrc.v4.profdata")
		runTool(t, profdata, "merge", "--memprof-version=4", "--profiled-binary", b.bin, "-o", out, b.raw)
		inputs = append(inputs, out)
	}
	big := filepath.Join(workDir, "synthetic.yaml")
	if err := os.WriteFile(big, syntheticYAML(150), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range append(inputs, "testdata/yamlin.yaml", big) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			yamlIn := in
			if strings.HasSuffix(in, ".profdata") {
				data, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				f, err := Read(in, data)
				if err != nil {
					t.Fatal(err)
				}
				want := runTool(t, profdata, "show", "--memory", in)
				var buf bytes.Buffer
				if err := f.WriteYAML(&buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("WriteYAML differs from show --memory (-want +got):\n%s", lineDiff(string(want), buf.String()))
				}
				yamlIn = in + ".yaml"
				if err := os.WriteFile(yamlIn, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src, err := os.ReadFile(yamlIn)
			if err != nil {
				t.Fatal(err)
			}
			p, err := memprof.ReadYAML(yamlIn, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []int{2, 3, 4} {
				out := filepath.Join(workDir, filepath.Base(yamlIn)+fmt.Sprintf(".v%d.profdata", v))
				runTool(t, profdata, "merge", fmt.Sprintf("--memprof-version=%d", v), "-o", out, yamlIn)
				want, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				got, err := marshal(p, WriteOptions{Release: 22, IndexVersion: 13, MemProfVersion: v})
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) { compareIndexed(t, got, want) })
			}
		})
	}
}

// syntheticYAML returns a deterministic YAML profile of n records with
// shared frames, function names, inline frames and callee GUIDs.
func syntheticYAML(n int) []byte {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("---\nHeapProfileRecords:\n")
	frame := func() string {
		fn := fmt.Sprintf("%#x", r.Uint64())
		switch r.IntN(4) {
		case 0:
			fn = fmt.Sprintf("_Z4fun%dv", r.IntN(20))
		case 1:
			fn = fmt.Sprintf("%#x", 0x1000+r.IntN(8))
		}
		return fmt.Sprintf("{ Function: %s, LineOffset: %d, Column: %d, IsInlineFrame: %t }", fn, r.IntN(30), r.IntN(50), r.IntN(2) == 0)
	}
	for range n {
		fmt.Fprintf(&b, "  - GUID: %#x\n", r.Uint64())
		if r.IntN(5) > 0 {
			b.WriteString("    AllocSites:\n")
			for range 1 + r.IntN(3) {
				b.WriteString("      - Callstack:\n")
				for range 1 + r.IntN(5) {
					b.WriteString("          - " + frame() + "\n")
				}
				fmt.Fprintf(&b, "        MemInfoBlock:\n          AllocCount: %d\n          TotalSize: %d\n          TotalLifetime: %d\n          TotalLifetimeAccessDensity: %d\n",
					1+r.IntN(100), r.IntN(1<<20), r.IntN(1<<30), r.IntN(100000))
			}
		}
		if r.IntN(2) == 0 {
			b.WriteString("    CallSites:\n")
			for range 1 + r.IntN(2) {
				b.WriteString("      - Frames:\n")
				for range 1 + r.IntN(3) {
					b.WriteString("          - " + frame() + "\n")
				}
				if r.IntN(2) == 0 {
					fmt.Fprintf(&b, "        CalleeGuids: [ %#x, %#x ]\n", r.Uint64(), r.Uint64())
				}
			}
		}
	}
	return []byte(b.String())
}

// TestConformanceReadsOurs: llvm-profdata-22 reads what we write for a
// synthetic profile (many records, shared frames, callee GUIDs) and prints
// exactly what WriteYAML prints for it.
func TestConformanceReadsOurs(t *testing.T) {
	profdata := testenv.Tool(t, "llvm-profdata-22")
	p := benchProfile(300)
	for i, r := range p.Records {
		for j := range r.CallSites {
			r.CallSites[j].CalleeGUIDs = []uint64{uint64(i), uint64(j) << 40}
		}
	}
	for _, o := range []WriteOptions{{22, 13, 2, false}, {22, 13, 3, true}, {22, 13, 4, false}, {22, 11, 4, true}} {
		t.Run(fmt.Sprintf("v%d-index%d-full%v", o.MemProfVersion, o.IndexVersion, o.FullSchema), func(t *testing.T) {
			data := mustMarshal(t, p, o)
			name := filepath.Join(workDir, fmt.Sprintf("ours.v%d.%d.%v.profdata", o.MemProfVersion, o.IndexVersion, o.FullSchema))
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			want := runTool(t, profdata, "show", "--memory", name)
			f, err := Read(name, data)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := f.WriteYAML(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("llvm-profdata-22 show --memory of our file differs from WriteYAML (-llvm +ours):\n%s", lineDiff(string(want), buf.String()))
			}
		})
	}
}
