package perfscript

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// lbrTrace returns the path of ../shared/tools/lbr-trace (or $LBR_TRACE),
// which records perf-script LBR and hybrid samples from a real run of an
// x86-64 program under qemu-user.
func lbrTrace(t testing.TB) string {
	t.Helper()
	testenv.Tool(t, "qemu-x86_64")
	if p := os.Getenv("LBR_TRACE"); p != "" {
		return p
	}
	return testenv.SharedFile(t, "tools/lbr-trace")
}

// program is one test binary with the traces recorded from its run.
type program struct {
	name string // e.g. "calls-clang-19-pie"
	bin  string
	// traces maps a trace name ("lbr", "hybrid", ...) to its file.
	traces map[string]string
}

// traceSpec is one lbr-trace run: its arguments before "--", the program
// arguments, and the files it writes (mode=name).
type traceSpec struct {
	args    []string
	progArg string
	outputs map[string]string // trace name -> lbr-trace mode
}

var traceSpecs = []traceSpec{
	{
		args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
		outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
	},
	{
		// Perf ≥ 6.1's brstack style, a kernel entry after every syscall,
		// short LBRs and a second pid.
		args:    []string{"--period", "97", "--jitter", "20", "--pid", "77", "--brstack-style", "modern", "--kernel-entries", "all", "--lbr-depth", "8", "--seed", "3"},
		progArg: "120",
		outputs: map[string]string{"lbr-modern": "lbr", "hybrid-modern": "hybrid"},
	},
}

// buildPrograms compiles testdata's programs PIE and non-PIE and traces each
// with lbr-trace, once per content of the sources, the commands, the
// compilers and lbr-trace itself (testenv.Cached).
func buildPrograms(t testing.TB) []program {
	t.Helper()
	tracer := lbrTrace(t)
	tracerData, err := os.ReadFile(tracer)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tracerData)
	srcDir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{"lbr-trace " + hex.EncodeToString(sum[:]), testenv.ToolOutput(t, "qemu-x86_64", "--version")}
	type job struct {
		name string
		argv []string
	}
	var jobs []job
	for _, src := range []struct{ file, cc string }{{"calls.c", "clang-19"}, {"shapes.cc", "clang++-22"}} {
		data, err := os.ReadFile(filepath.Join("testdata", src.file))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		tmpl, ok := strings.CutPrefix(first, "// build: ")
		if !ok {
			t.Fatalf("%s: first line must be '// build: <command>'", src.file)
		}
		inputs = append(inputs, src.file, string(data), testenv.Version(t, src.cc))
		for _, pie := range []string{"-fPIE -pie", "-fno-pie -no-pie"} {
			pieName := "pie"
			if strings.Contains(pie, "no-pie") {
				pieName = "nopie"
			}
			name := fmt.Sprintf("%s-%s-%s", strings.Split(src.file, ".")[0], src.cc, pieName)
			cmd := strings.NewReplacer("$CC", src.cc, "$CXX", src.cc, "$PIE", pie).Replace(tmpl)
			inputs = append(inputs, cmd)
			jobs = append(jobs, job{name, strings.Fields(cmd)})
		}
	}
	for _, ts := range traceSpecs {
		inputs = append(inputs, fmt.Sprint(ts))
	}
	dir := testenv.Cached(t, "perfscript-traces", inputs, func(dir string) error {
		var wg sync.WaitGroup
		errs := make([]error, len(jobs))
		sem := make(chan struct{}, 2) // the machine is shared
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				errs[i] = buildAndTrace(dir, srcDir, tracer, j.name, j.argv)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	var progs []program
	for _, j := range jobs {
		p := program{name: j.name, bin: filepath.Join(dir, j.name), traces: map[string]string{}}
		for _, ts := range traceSpecs {
			for name := range ts.outputs {
				p.traces[name] = filepath.Join(dir, j.name+"."+name+".script")
			}
		}
		progs = append(progs, p)
	}
	return progs
}

func buildAndTrace(dir, srcDir, tracer, name string, argv []string) error {
	bin := filepath.Join(dir, name)
	for k, a := range argv {
		if a == "$OUT" {
			argv[k] = bin
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = srcDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	for _, ts := range traceSpecs {
		args := append([]string{}, ts.args...)
		first := true
		for tname, mode := range ts.outputs {
			out := filepath.Join(dir, name+"."+tname+".script")
			if first {
				args = append(args, "--mode", mode, "--out", out)
				first = false
			} else {
				args = append(args, "--also", mode+"="+out)
			}
		}
		args = append(args, "--", bin)
		if ts.progArg != "" {
			args = append(args, ts.progArg)
		}
		cmd := exec.Command(tracer, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("lbr-trace %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}
