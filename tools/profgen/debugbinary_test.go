package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// debugTwins are a program's production binaries and debug files, as a
// release pipeline makes them with llvm-objcopy: stripDebug
// (--strip-debug: symbols kept), stripAll (--strip-all: no symbol table,
// so llvm-profgen disassembles nothing) and keepDebug (--only-keep-debug:
// the DWARF and symbols, the code sections empty). The stripped binaries
// keep the program's file name, which the trace's mmap events name.
type debugTwins struct {
	stripDebug, stripAll, keepDebug string
}

// makeDebugTwins writes p's twins under dir.
func makeDebugTwins(t *testing.T, dir string, p program) debugTwins {
	t.Helper()
	objcopy := testenv.Tool(t, "llvm-objcopy-22")
	base := filepath.Base(p.bin)
	tw := debugTwins{
		stripDebug: filepath.Join(dir, p.name, "strip-debug", base),
		stripAll:   filepath.Join(dir, p.name, "strip-all", base),
		keepDebug:  filepath.Join(dir, p.name, base+".debug"),
	}
	for _, c := range []struct{ flag, out string }{
		{"--strip-debug", tw.stripDebug}, {"--strip-all", tw.stripAll}, {"--only-keep-debug", tw.keepDebug},
	} {
		if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(objcopy, c.flag, p.bin, c.out).CombinedOutput(); err != nil {
			t.Fatalf("llvm-objcopy %s: %v\n%s", c.flag, err, out)
		}
	}
	return tw
}

// TestDebugBinary compares --debug-binary with llvm-profgen-19 and -22:
// a stripped --binary (the addresses, code, symbols and pseudo probes)
// symbolized with the DWARF of its unstripped twin or of its
// --only-keep-debug file. Programs: a C++ one with deep inlining (PIE), a
// C one (non-PIE) and a pseudo-probe one; LBR traces (non-CS, text and
// extbinary) and hybrid traces (the default pre-inlined, nested CS
// profile), and a binary stripped of its symbols too (llvm-profgen then
// finds no code: every sample is dropped, with its warnings). Outputs and
// warnings must be identical.
func TestDebugBinary(t *testing.T) {
	dwarfProgs, probeProgs := buildPrograms(t), buildProbePrograms(t)
	progs := []struct {
		p        program
		malloc19 bool
	}{
		{pick(t, dwarfProgs, "inline-clang++-22-pie"), false},
		{pick(t, dwarfProgs, "calls-clang-19-nopie"), false},
		{pick(t, probeProgs, "probe-inline-clang++-22-pie"), true},
	}
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	dir := t.TempDir()
	for _, pp := range progs {
		p := pp.p
		tw := makeDebugTwins(t, dir, p)
		type variant struct {
			bin, debug string // which twins
			hybrid     bool
			format     string
		}
		files := map[string]string{"strip-debug": tw.stripDebug, "strip-all": tw.stripAll, "keep-debug": tw.keepDebug, "unstripped": p.bin}
		for _, v := range []variant{
			{"strip-debug", "keep-debug", false, "text"},
			{"strip-debug", "keep-debug", false, "extbinary"},
			{"strip-debug", "unstripped", true, "text"},
			{"strip-debug", "keep-debug", true, "extbinary"},
			{"strip-all", "keep-debug", false, "text"},
		} {
			for _, rel := range []int{19, 22} {
				t.Run(fmt.Sprintf("%s/%s/%s/%v/%s/%d", p.name, v.bin, v.debug, v.hybrid, v.format, rel), func(t *testing.T) {
					trace := p.lbr
					if v.hybrid {
						trace = p.hyb
					}
					compareCS(t, refs[rel], rel, dir, trace, files[v.bin], v.format, []string{"--debug-binary=" + files[v.debug]}, pp.malloc19)
				})
			}
		}
		// The disassembly with the locations of the debug file.
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("%s/show-source-locations/%d", p.name, rel), func(t *testing.T) {
				args := []string{"--binary=" + tw.stripDebug, "--debug-binary=" + tw.keepDebug, "--show-disassembly-only"}
				want, err := exec.Command(refs[rel], append(args, "--show-source-locations", "--perfscript=/dev/null", "--output=/dev/null")...).Output()
				if err != nil {
					t.Fatalf("llvm-profgen-%d: %v", rel, err)
				}
				var got, plain, stderr bytes.Buffer
				if err := run(append(args, "--show-source-locations", "--llvm-version", fmt.Sprint(rel)), nil, &got, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				if err := run(append(args, "--llvm-version", fmt.Sprint(rel)), nil, &plain, &stderr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, stderr.String())
				}
				compareSourceLocations(t, string(want), got.String(), plain.String())
			})
		}
	}
}

// pick returns the program of that name.
func pick(t *testing.T, progs []program, name string) program {
	t.Helper()
	for _, p := range progs {
		if p.name == name {
			return p
		}
	}
	var names []string
	for _, p := range progs {
		names = append(names, p.name)
	}
	t.Fatalf("no program %s (have %s)", name, strings.Join(names, ", "))
	return program{}
}
