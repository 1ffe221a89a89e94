// Package tracetest builds small programs with clang and records perf-script
// traces of their runs with ../shared/tools/lbr-trace, once for every test
// package that needs them (perfscript, profgen, tools/profgen).
package tracetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Source is one test program: File's first line is its build command,
// "// build: <command>", with $CC or $CXX (replaced by CC), $PIE (the PIE
// or non-PIE flags) and $OUT (the binary). It is compiled in File's
// directory; other files of that directory the command names (a build
// script) are part of the cache key.
type Source struct{ File, CC string }

// Trace is one lbr-trace run of every program: its arguments before "--",
// an argument for the program, and the traces it writes (name → lbr-trace
// mode, "lbr" or "hybrid").
type Trace struct {
	Args    []string
	ProgArg string
	Outputs map[string]string
}

// Program is one built binary and its traces (trace name → perf script).
type Program struct {
	Name, Bin string
	Traces    map[string]string
}

// Tracer returns lbr-trace: $LBR_TRACE, else ../shared/tools/lbr-trace.
// It needs qemu-x86_64.
func Tracer(t testing.TB) string {
	t.Helper()
	testenv.Tool(t, "qemu-x86_64")
	if p := os.Getenv("LBR_TRACE"); p != "" {
		return p
	}
	return testenv.SharedFile(t, "tools/lbr-trace")
}

// Build compiles every source PIE and non-PIE (programs named
// "<base>-<CC>-pie" and "-nopie") and records traces of each with every
// Trace, through testenv.Cached under key: once per content of the sources,
// the commands, the compilers, qemu and lbr-trace itself.
func Build(t testing.TB, key string, sources []Source, traces []Trace) []Program {
	t.Helper()
	tracer := Tracer(t)
	tracerData, err := os.ReadFile(tracer)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tracerData)
	inputs := []string{"lbr-trace " + hex.EncodeToString(sum[:]), testenv.ToolOutput(t, "qemu-x86_64", "--version"), "fixed env, ./NAME"}
	type job struct {
		name, dir string
		argv      []string
	}
	var jobs []job
	for _, src := range sources {
		text, err := os.ReadFile(src.File)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(text), "\n")
		tmpl, ok := strings.CutPrefix(first, "// build: ")
		if !ok {
			t.Fatalf("%s: first line must be '// build: <command>'", src.File)
		}
		dir, err := filepath.Abs(filepath.Dir(src.File))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, filepath.Base(src.File), string(text), testenv.Version(t, src.CC))
		inputs = append(inputs, includedSources(t, src.File, string(text))...)
		base := strings.TrimSuffix(filepath.Base(src.File), filepath.Ext(src.File))
		for _, pie := range []string{"-fPIE -pie", "-fno-pie -no-pie"} {
			kind := "pie"
			if strings.Contains(pie, "no-pie") {
				kind = "nopie"
			}
			cmd := strings.NewReplacer("$CC", src.CC, "$CXX", src.CC, "$PIE", pie).Replace(tmpl)
			inputs = append(inputs, cmd)
			inputs = append(inputs, commandFiles(t, dir, filepath.Base(src.File), cmd)...)
			jobs = append(jobs, job{fmt.Sprintf("%s-%s-%s", base, src.CC, kind), dir, strings.Fields(cmd)})
		}
	}
	for _, tr := range traces {
		inputs = append(inputs, fmt.Sprint(tr)) // fmt prints maps sorted
	}
	out := testenv.Cached(t, key, inputs, func(out string) error {
		var wg sync.WaitGroup
		errs := make([]error, len(jobs))
		sem := make(chan struct{}, 2) // the machine is shared
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				errs[i] = buildAndTrace(out, j.dir, tracer, j.name, j.argv, traces)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	var progs []Program
	for _, j := range jobs {
		p := Program{Name: j.name, Bin: filepath.Join(out, j.name), Traces: map[string]string{}}
		for _, tr := range traces {
			for name := range tr.Outputs {
				p.Traces[name] = p.Bin + "." + name + ".script"
			}
		}
		progs = append(progs, p)
	}
	return progs
}

func buildAndTrace(out, srcDir, tracer, name string, argv []string, traces []Trace) error {
	bin := filepath.Join(out, name)
	argv = append([]string(nil), argv...)
	for k, a := range argv {
		if a == "$OUT" {
			argv[k] = bin
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = srcDir
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, o)
	}
	for _, tr := range traces {
		args := append([]string{}, tr.Args...)
		names := make([]string, 0, len(tr.Outputs))
		for n := range tr.Outputs {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			script := bin + "." + n + ".script"
			if i == 0 {
				args = append(args, "--mode", tr.Outputs[n], "--out", script)
			} else {
				args = append(args, "--also", tr.Outputs[n]+"="+script)
			}
		}
		// The program runs as ./NAME in a fixed environment: ld.so's
		// startup work (and so every branch after it) depends on the
		// environment and on the path of the program, and the traces
		// must not change from one machine or cache directory to another.
		args = append(args, "--", "./"+name)
		if tr.ProgArg != "" {
			args = append(args, tr.ProgArg)
		}
		cmd := exec.Command(tracer, args...)
		cmd.Dir = out
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("lbr-trace %s: %v\n%s", strings.Join(args, " "), err, o)
		}
	}
	return nil
}

// Seed keeps the mmap lines and the first samples of a trace (LBR-only or
// hybrid), each LBR line cut to its first entries: small fuzz seeds.
func Seed(data []byte, samples, entries int) []byte {
	var out strings.Builder
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
	return []byte(out.String())
}

// commandFiles returns the name and text of every file of dir other than
// src that the build command cmd names as an argument.
func commandFiles(t testing.TB, dir, src, cmd string) []string {
	t.Helper()
	var out []string
	for _, arg := range strings.Fields(cmd) {
		if arg == src || strings.ContainsRune(arg, '$') {
			continue
		}
		st, err := os.Stat(filepath.Join(dir, arg))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, arg))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, arg, string(data))
	}
	return out
}

// includedSources returns the name and text of every file a source pulls
// in with #include "…" (relative to the including file, recursively), so
// that editing an included test program changes the cache key too.
func includedSources(t testing.TB, file, text string) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	var walk func(file, text string)
	walk = func(file, text string) {
		for _, line := range strings.Split(text, "\n") {
			rest, ok := strings.CutPrefix(strings.TrimSpace(line), "#include \"")
			if !ok {
				continue
			}
			name, _, ok := strings.Cut(rest, "\"")
			if !ok {
				continue
			}
			path := filepath.Join(filepath.Dir(file), name)
			if seen[path] {
				continue
			}
			seen[path] = true
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s includes %s: %v", file, name, err)
			}
			out = append(out, name, string(data))
			walk(path, string(data))
		}
	}
	walk(file, text)
	return out
}
