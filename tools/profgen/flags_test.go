package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestMoreFlags compares llvm-profgen's less common switches that change
// what it writes, with llvm-profgen-19 and -22 where both have them:
// the density report (--show-density on stdout, --profile-density-threshold,
// --profile-density-cutoff-hot) of non-CS and CS profiles; the bound of
// the tail-call search of --infer-missing-frames (--max-search-depth, 0
// finds no path); LLVM 22's
// --csprof-max-unsymbolized-context-depth (the address contexts of probe
// binaries, alone and with --csprof-max-context-depth) and
// --load-function-from-symbol=false (a probe binary with a function
// without DWARF). Output file, stdout and stderr must be identical.
func TestMoreFlags(t *testing.T) {
	dwarf := pick(t, buildPrograms(t), "inline-clang++-22-pie")
	probe := pick(t, buildProbePrograms(t), "probe-calls-clang-22-pie")
	nodebug := tracedPrograms(t, "profgen-nodebug-traces", []tracetest.Source{{File: "testdata/probe-nodebug.c", CC: "clang-22"}},
		[]tracetest.Trace{lbrAndHybrid})[0]
	both, only22 := []int{19, 22}, []int{22}
	density := []string{"--show-density", "--format=text"}
	for _, c := range []struct {
		trace, bin string
		rels       []int
		args       []string
	}{
		{dwarf.lbr, dwarf.bin, both, density},
		{dwarf.lbr, dwarf.bin, both, append([]string{"--profile-density-cutoff-hot=500000", "--profile-density-threshold=1000"}, density...)},
		{dwarf.lbr, dwarf.bin, both, append([]string{"--profile-density-cutoff-hot=0"}, density...)},
		{dwarf.hyb, dwarf.bin, both, append([]string{"--profile-density-threshold=0.5", "--profile-density-cutoff-hot=1234567"}, density...)},
		{probe.hyb, probe.bin, both, density},
		{probe.hyb, probe.bin, only22, []string{"--csprof-max-unsymbolized-context-depth=1", "--skip-symbolization"}},
		{probe.hybModern, probe.bin, only22, []string{"--csprof-max-unsymbolized-context-depth=0", "--format=text", "--gen-cs-nested-profile=false"}},
		{probe.hybModern, probe.bin, only22, []string{"--csprof-max-unsymbolized-context-depth=2", "--csprof-max-context-depth=1", "--format=text", "--compress-recursion=0"}},
		{probe.hyb, probe.bin, both, append([]string{"--max-search-depth=0", "--format=text"}, csOff...)},
		{probe.hybModern, probe.bin, both, []string{"--max-search-depth=1", "--format=extbinary"}},
		{nodebug.lbr, nodebug.bin, only22, []string{"--load-function-from-symbol=false", "--format=text"}},
		{nodebug.hyb, nodebug.bin, only22, []string{"--load-function-from-symbol=false", "--format=extbinary"}},
	} {
		for _, rel := range c.rels {
			t.Run(fmt.Sprintf("%s/%s/%d", filepath.Base(c.trace), strings.Join(c.args, ","), rel), func(t *testing.T) {
				compareAll(t, rel, append([]string{"--perfscript=" + c.trace, "--binary=" + c.bin}, c.args...))
			})
		}
	}
	// LLVM 19 has neither of LLVM 22's switches: a usage error that says so.
	for _, flag := range []string{"--csprof-max-unsymbolized-context-depth=1", "--load-function-from-symbol"} {
		_, err := runOurs(t, []string{"--perfscript=" + probe.hyb, "--binary=" + probe.bin, "-o", filepath.Join(t.TempDir(), "x"), flag, "--llvm-version", "19"})
		if err == nil || !strings.Contains(err.Error(), "--llvm-version 22") {
			t.Errorf("%s with --llvm-version 19: %v, want a usage error naming --llvm-version 22", flag, err)
		}
	}
}

// compareAll runs llvm-profgen of release rel and ours with args and an
// output file: the output file, stdout and stderr must be identical (an
// error of both, the same words, and no output file of ours).
func compareAll(t *testing.T, rel int, args []string) {
	t.Helper()
	dir := t.TempDir()
	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	cmd := exec.Command(testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel)), append(args, "--output="+refOut)...)
	var refStdout, refStderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &refStdout, &refStderr
	refErr := cmd.Run()
	var stdout, stderr bytes.Buffer
	err := run(append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)), nil, &stdout, &stderr)
	ours := strings.ReplaceAll(stderr.String(), tool+": ", "")
	if (refErr != nil) != (err != nil) {
		t.Fatalf("llvm-profgen-%d: %v, ours: %v\n%s", rel, refErr, err, ours)
	}
	if err != nil {
		ours += "llvm-profgen: error: " + err.Error() + "\n"
		if _, serr := os.Stat(ourOut); !os.IsNotExist(serr) {
			t.Errorf("output written: %v", serr)
		}
	} else {
		want, _ := os.ReadFile(refOut)
		got, _ := os.ReadFile(ourOut)
		if !bytes.Equal(got, want) {
			t.Errorf("profile differs from llvm-profgen-%d (%d vs %d bytes):\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, len(got), len(want), want, got)
		}
	}
	if stdout.String() != refStdout.String() {
		t.Errorf("stdout differs:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, refStdout.String(), stdout.String())
	}
	if want := strings.ReplaceAll(refStderr.String(), refOut, ourOut); ours != want {
		t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, want, ours)
	}
}

// TestLLVMSampleProfile compares --llvm-sample-profile (a profile read and
// post-processed instead of a trace) with llvm-profgen-19 and -22: the
// non-CS profiles llvm-profgen-22 writes of the LBR traces of a C++ PIE, a
// C non-PIE and a probe program, read as text and extbinary and written as
// text, extbinary and binary (which probe profiles cannot be: the same
// error), also with --trim-cold-profile and --show-density; a nested CS
// profile. (Extbinary
// probe profiles are left out: llvm-profgen-19 orders their functions by
// malloc's addresses, see TestProbeBasedBytes.)
func TestLLVMSampleProfile(t *testing.T) {
	progs := buildPrograms(t)
	probe := pick(t, buildProbePrograms(t), "probe-inline-clang++-22-pie")
	dir := t.TempDir()
	for _, p := range []program{pick(t, progs, "inline-clang++-22-pie"), pick(t, progs, "calls-clang-19-nopie"), probe} {
		for _, in := range []string{"text", "extbinary"} {
			prof := filepath.Join(dir, p.name+"."+in)
			if out, err := exec.Command(testenv.Tool(t, "llvm-profgen-22"), "--perfscript="+p.lbr, "--binary="+p.bin, "--format="+in, "--output="+prof).CombinedOutput(); err != nil {
				t.Fatalf("llvm-profgen-22: %v\n%s", err, out)
			}
			for _, out := range []string{"text", "extbinary", "binary"} {
				for _, extra := range [][]string{nil, {"--trim-cold-profile", "--show-density"}} {
					for _, rel := range []int{19, 22} {
						if p.name == probe.name && (in != "text" || out == "extbinary" && rel == 19) {
							continue
						}
						t.Run(fmt.Sprintf("%s/%s/%s/%s/%d", p.name, in, out, strings.Join(extra, ","), rel), func(t *testing.T) {
							compareAll(t, rel, append([]string{"--llvm-sample-profile=" + prof, "--binary=" + p.bin, "--format=" + out}, extra...))
						})
					}
				}
			}
		}
	}
	// The default (nested, pre-inlined) CS profile is context-insensitive
	// to the readers: post-processed the same way. (llvm-profgen-19 writes
	// its extbinary metadata in an order of the callee maps it read that
	// ours does not follow.)
	nested := filepath.Join(dir, "nested.text")
	p := pick(t, progs, "inline-clang++-22-pie")
	if out, err := exec.Command(testenv.Tool(t, "llvm-profgen-22"), "--perfscript="+p.hyb, "--binary="+p.bin, "--format=text", "--output="+nested).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profgen-22: %v\n%s", err, out)
	}
	for _, c := range []struct {
		format string
		rel    int
	}{{"text", 19}, {"text", 22}, {"extbinary", 22}} {
		t.Run(fmt.Sprintf("nested/%s/%d", c.format, c.rel), func(t *testing.T) {
			compareAll(t, c.rel, []string{"--llvm-sample-profile=" + nested, "--binary=" + p.bin, "--format=" + c.format})
		})
	}
	// A flat CS profile is refused (a nested one is context-insensitive to
	// LLVM's reader, and to ours).
	cs := filepath.Join(dir, "cs.text")
	if out, err := exec.Command(testenv.Tool(t, "llvm-profgen-22"), append([]string{"--perfscript=" + probe.hyb, "--binary=" + probe.bin, "--format=text", "--output=" + cs}, csOff...)...).CombinedOutput(); err != nil {
		t.Fatalf("llvm-profgen-22: %v\n%s", err, out)
	}
	if _, err := runOurs(t, []string{"--llvm-sample-profile=" + cs, "--binary=" + probe.bin, "-o", filepath.Join(dir, "x")}); err == nil || !strings.Contains(err.Error(), "context-sensitive") {
		t.Errorf("a CS profile: %v, want an error that says CS profiles are not post-processed", err)
	}
}

// TestDisassemblyFilters compares --show-disassembly-only's
// --disassemble-functions and --show-canonical-fname with llvm-profgen-19
// and -22 on a C program whose functions got aliases with .llvm., .part.,
// .__uniq. and .cold suffixes (llvm-objcopy --add-symbol) and on a probe
// program: every line but the instruction text (see TestShowPseudoProbe),
// and with --show-source-locations the locations.
func TestDisassemblyFilters(t *testing.T) {
	calls := pick(t, buildPrograms(t), "calls-clang-22-nopie")
	probe := pick(t, buildProbePrograms(t), "probe-inline-clang++-22-pie")
	f, err := elf.Open(calls.bin)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text").Addr
	syms, _ := f.Symbols()
	f.Close()
	at := map[string]uint64{}
	for _, s := range syms {
		at[s.Name] = s.Value
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(calls.bin))
	var args []string
	for _, a := range [][2]string{{"fib.llvm.12", "fib"}, {"collatz.part.0", "collatz"}, {"square.__uniq.77.llvm.5", "square"}, {"negate.cold", "negate"}} {
		addr, ok := at[a[1]]
		if !ok {
			t.Fatalf("%s: no symbol %s", calls.bin, a[1])
		}
		args = append(args, "--add-symbol", fmt.Sprintf("%s=.text:%#x,function,global", a[0], addr-text))
	}
	if out, err := exec.Command(testenv.Tool(t, "llvm-objcopy-22"), append(args, calls.bin, bin)...).CombinedOutput(); err != nil {
		t.Fatalf("llvm-objcopy: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, bin string
		args      []string
	}{
		{"aliases", bin, []string{"--show-canonical-fname"}},
		{"aliases", bin, []string{"--show-canonical-fname", "--show-source-locations"}},
		{"aliases", bin, []string{"--disassemble-functions=fib,main"}},
		{"aliases", bin, []string{"--disassemble-functions=fib", "--show-canonical-fname"}},
		{"aliases", bin, []string{"--disassemble-functions=fib", "--disassemble-functions=square.__uniq.77,nope", "--show-canonical-fname", "--show-source-locations"}},
		{probe.name, probe.bin, []string{"--disassemble-functions=main", "--show-pseudo-probe"}},
		{probe.name, probe.bin, []string{"--disassemble-functions=main", "--show-pseudo-probe", "--show-source-locations"}},
	} {
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("%s/%s/%d", c.name, strings.Join(c.args, ","), rel), func(t *testing.T) {
				args := append([]string{"--binary=" + c.bin, "--show-disassembly-only"}, c.args...)
				want, err := exec.Command(testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel)), append(args, "--perfscript=/dev/null", "--output=/dev/null")...).Output()
				if err != nil {
					t.Fatalf("llvm-profgen-%d: %v", rel, err)
				}
				var got, plain, stderr bytes.Buffer
				if err := run(append(args, "--llvm-version", fmt.Sprint(rel)), nil, &got, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				if !slices.Contains(c.args, "--show-source-locations") {
					if w, g := instText.ReplaceAllString(string(want), "$1"), instText.ReplaceAllString(got.String(), "$1"); w != g {
						t.Errorf("disassembly differs (instruction text removed):\nllvm-profgen-%d:\n%s\nours:\n%s", rel, w, g)
					}
					return
				}
				if err := run(append(slicesWithout(args, "--show-source-locations"), "--llvm-version", fmt.Sprint(rel)), nil, &plain, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				compareSourceLocations(t, string(want), got.String(), plain.String())
			})
		}
	}
}
