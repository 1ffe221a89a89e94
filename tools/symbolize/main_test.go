package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestMain lets the test binary stand in for the tool: with
// SYMBOLIZE_TEST_AS_TOOL=1 it runs main instead of the tests, so CLI tests
// exercise the real argument handling, exit codes and stream separation.
func TestMain(m *testing.M) {
	if os.Getenv("SYMBOLIZE_TEST_AS_TOOL") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runTool runs the test binary as the tool and returns stdout, stderr and
// the exit code.
func runTool(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "SYMBOLIZE_TEST_AS_TOOL=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running tool: %v", err)
	}
	return out.String(), errb.String(), code
}

// runInProcess calls run directly (faster; used by the differential
// tests, which make hundreds of calls).
func runInProcess(stdin string, args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

// fixture is one test program built with one compiler and flag set.
type fixture struct {
	name string // e.g. "inline-clang++-19-O2-pie"
	path string
}

// buildFixtures compiles testdata/*.c and *.cc with clang-19 and clang-22
// at -O0 and -O2, PIE and non-PIE, through testenv.Cached: once, and again
// only when a source, a command or a compiler changes. Each source's first
// line is its build command with $CC/$CXX, $OPT, $PIE and $OUT to fill in.
func buildFixtures(t *testing.T) []fixture {
	t.Helper()
	// The sources are compiled in testdata/ with relative names, as build
	// systems do: DW_AT_name is relative to DW_AT_comp_dir (this matters
	// for --basenames, which LLVM applies only to relative file entries),
	// and comp_dir is this checkout's testdata/, where
	// --print-source-context-lines finds the sources. So the directory is
	// part of the key too.
	srcDir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{srcDir}
	for _, c := range []string{"clang-19", "clang-22", "clang++-19", "clang++-22"} {
		inputs = append(inputs, testenv.Version(t, c))
	}
	type job struct {
		name string
		argv []string // $OUT is left for the build to fill in
	}
	var jobs []job
	for _, src := range []string{"loops.c", "inline.cc"} {
		data, err := os.ReadFile(filepath.Join("testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		tmpl, ok := strings.CutPrefix(first, "// build: ")
		if !ok {
			t.Fatalf("%s: first line must be '// build: <command>', got %q", src, first)
		}
		inputs = append(inputs, src, string(data))
		cxx := strings.HasSuffix(src, ".cc")
		for _, ver := range []string{"19", "22"} {
			for _, opt := range []string{"-O0", "-O2"} {
				for _, pie := range []string{"-fPIE -pie", "-fno-pie -no-pie"} {
					cc := "clang-" + ver
					if cxx {
						cc = "clang++-" + ver
					}
					pieName := "pie"
					if strings.Contains(pie, "no-pie") {
						pieName = "nopie"
					}
					name := fmt.Sprintf("%s-%s%s-%s", strings.TrimSuffix(strings.TrimSuffix(src, ".cc"), ".c"), cc, opt, pieName)
					cmd := strings.NewReplacer("$CC", cc, "$CXX", cc, "$OPT", opt, "$PIE", pie).Replace(tmpl)
					inputs = append(inputs, cmd)
					jobs = append(jobs, job{name, strings.Fields(cmd)})
				}
			}
		}
	}
	dir := testenv.Cached(t, "symbolize-fixtures", inputs, func(dir string) error {
		// Two at a time: the machine is shared.
		sem := make(chan struct{}, 2)
		errs := make([]error, len(jobs))
		var wg sync.WaitGroup
		for i, j := range jobs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				argv := slices.Clone(j.argv)
				for k, a := range argv {
					if a == "$OUT" {
						argv[k] = filepath.Join(dir, j.name)
					}
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = srcDir
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
				}
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	fixtures := make([]fixture, len(jobs))
	for i, j := range jobs {
		fixtures[i] = fixture{name: j.name, path: filepath.Join(dir, j.name)}
	}
	return fixtures
}

// probeAddresses returns addresses to symbolize in bin: every second byte
// of .text (capped), each function symbol's first bytes, and a few that
// lie outside any function (0, the ELF header, data, past the end).
func probeAddresses(t *testing.T, bin string) []string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	if text == nil {
		t.Fatalf("%s: no .text", bin)
	}
	var addrs []uint64
	step := uint64(3)
	if text.Size > 3000 {
		step = text.Size / 1000
	}
	for a := text.Addr; a < text.Addr+text.Size; a += step {
		addrs = append(addrs, a)
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			addrs = append(addrs, s.Value, s.Value+1)
		}
		if elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Value != 0 {
			addrs = append(addrs, s.Value)
		}
	}
	addrs = append(addrs, 0, 1, 0x40, text.Addr+text.Size, text.Addr+text.Size+0x10000, 0xffffffffffffffff)
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = fmt.Sprintf("0x%x", a)
	}
	return out
}

// diffLines returns a short report of the first differing lines. JSON
// arrays are split into one line per address first.
func diffLines(want, got string) string {
	split := func(s string) []string {
		return strings.Split(strings.ReplaceAll(s, `},{"Address"`, "},\n{\"Address\""), "\n")
	}
	w, g := split(want), split(got)
	var b strings.Builder
	n := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  -llvm %q\n  +ours %q\n", i+1, wl, gl)
			if n++; n >= 6 {
				break
			}
		}
	}
	fmt.Fprintf(&b, "(%d lines llvm, %d lines ours)", len(w), len(g))
	return b.String()
}

// BenchmarkSymbolizeBig runs the whole tool in-process on the binary named
// by $SYMBOLIZE_BENCH_BIN with the addresses in $SYMBOLIZE_BENCH_ADDRS
// (one per line, as bench/symbolize/run.sh writes them), so the tool can be
// profiled with -cpuprofile/-memprofile. It is skipped when they are unset.
func BenchmarkSymbolizeBig(b *testing.B) {
	bin, addrs := os.Getenv("SYMBOLIZE_BENCH_BIN"), os.Getenv("SYMBOLIZE_BENCH_ADDRS")
	if bin == "" || addrs == "" {
		b.Skip("set SYMBOLIZE_BENCH_BIN and SYMBOLIZE_BENCH_ADDRS (see bench/symbolize/run.sh)")
	}
	in, err := os.ReadFile(addrs)
	if err != nil {
		b.Fatal(err)
	}
	n := bytes.Count(in, []byte("\n"))
	for b.Loop() {
		var out, errb bytes.Buffer
		if err := run([]string{"--obj=" + bin}, bytes.NewReader(in), &out, &errb); err != nil {
			b.Fatalf("%v\n%s", err, errb.String())
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "addrs/s")
}
