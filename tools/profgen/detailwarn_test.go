package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// compareDetailed runs llvm-profgen (ref, of release rel) and ours with
// --show-detailed-warning: the same profile, and the same warnings, each
// per-item list in place before its summary and in llvm-profgen's order
// (the invalid ranges in the iteration order of its two hash tables, the
// functions without an entry in that of its table of names); it returns
// how many per-item lines llvm-profgen printed.
func compareDetailed(t *testing.T, ref string, rel int, args []string) int {
	t.Helper()
	dir := t.TempDir()
	args = append(args, "--show-detailed-warning")
	refOut, ourOut := filepath.Join(dir, "ref"), filepath.Join(dir, "our")
	refErr := runRef(t, ref, append(args, "--output="+refOut))
	ourErr, err := runOurs(t, append(args, "-o", ourOut, "--llvm-version", fmt.Sprint(rel)))
	if err != nil {
		t.Fatalf("profgen: %v\n%s", err, ourErr)
	}
	if ourErr != refErr {
		t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, refErr, ourErr)
	}
	want, _ := os.ReadFile(refOut)
	got, _ := os.ReadFile(ourOut)
	if !bytes.Equal(got, want) {
		t.Errorf("profile differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, want, got)
	}
	n := 0
	for _, l := range strings.Split(refErr, "\n") {
		if strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "warning: Sample PGO") && !strings.Contains(l, "%(") {
			n++
		}
	}
	return n
}

// detailMutations damage traces so that every per-item warning shows:
// stack frames that follow no call (invalid return addresses) and LBR
// entries out of order (ranges that cross functions or run backwards).
var detailMutations = []struct {
	name string
	fn   func(trace string) string
}{
	{"frames-after-no-call", func(s string) string {
		// Every third hybrid sample's second frame becomes its leaf
		// address, which no call precedes.
		lines := strings.Split(s, "\n")
		n := 0
		for i := 1; i < len(lines); i++ {
			if strings.HasPrefix(lines[i-1], "\t") || !strings.HasPrefix(lines[i], "\t") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "\t") {
				continue
			}
			if n++; n%3 == 0 {
				lines[i+1] = lines[i]
			}
		}
		return strings.Join(lines, "\n")
	}},
	{"swapped-entries", func(s string) string {
		// Every fifth LBR line has its second and third entries swapped.
		lines := strings.Split(s, "\n")
		n := 0
		for i, l := range lines {
			f := strings.Fields(l)
			if len(f) < 4 || !strings.HasPrefix(f[1], "0x") || !strings.Contains(f[1], "/") {
				continue
			}
			if n++; n%5 == 0 {
				f[1], f[2] = f[2], f[1]
				lines[i] = " " + strings.Join(f, "  ")
			}
		}
		return strings.Join(lines, "\n")
	}},
}

// programsByName indexes programs by name.
func programsByName(progs []program) map[string]program {
	m := map[string]program{}
	for _, p := range progs {
		m[p.name] = p
	}
	return m
}

// TestDetailedWarnings compares --show-detailed-warning with
// llvm-profgen-19 and -22 on the damaged traces of TestBrokenInput (LBR
// and hybrid, CS and with --ignore-stack-samples), on a binary that is not
// the traced one, and on the hybrid traces of probe binaries: each invalid
// range, truncated stack, truncated context and function without an
// entry, before the summary that counts it.
func TestDetailedWarnings(t *testing.T) {
	progs := buildPrograms(t)
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	byName := programsByName(progs)
	dir := t.TempDir()
	details := 0
	for _, name := range []string{"calls-clang-22-nopie", "shapes-clang++-22-pie"} {
		p := byName[name]
		for kind, src := range map[string]string{"lbr": p.lbr, "hybrid": p.hyb} {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			type mutation struct {
				name string
				fn   func(string) string
			}
			var mutations []mutation
			for _, m := range traceMutations {
				if m.name != "wrong-build-id" {
					mutations = append(mutations, mutation{m.name, func(s string) string { return m.fn(s, buildIDOf(t, p.bin)) }})
				}
			}
			for _, m := range detailMutations {
				mutations = append(mutations, mutation(m))
			}
			for _, m := range mutations {
				trace := filepath.Join(dir, name+"."+kind+"."+m.name+".script")
				if err := os.WriteFile(trace, []byte(m.fn(string(data))), 0o644); err != nil {
					t.Fatal(err)
				}
				var variants [][]string
				if kind == "hybrid" {
					variants = [][]string{csOff, {"--ignore-stack-samples"}}
				} else {
					variants = [][]string{nil}
				}
				for _, extra := range variants {
					for _, rel := range []int{19, 22} {
						t.Run(fmt.Sprintf("%s/%s/%s/%s/%d", name, kind, m.name, strings.Join(extra, ","), rel), func(t *testing.T) {
							details += compareDetailed(t, refs[rel], rel, append([]string{"--perfscript=" + trace, "--binary=" + p.bin, "--format=text"}, extra...))
						})
					}
				}
			}
		}
	}
	// Another build under the traced binary's name.
	calls := byName["calls-clang-22-nopie"]
	other := filepath.Join(dir, "other", filepath.Base(calls.bin))
	os.MkdirAll(filepath.Dir(other), 0o755)
	if err := copyFile(byName["calls-clang-19-nopie"].bin, other); err != nil {
		t.Fatal(err)
	}
	bins := map[string]program{"other": {name: calls.name, bin: other, lbr: calls.lbr, hyb: calls.hyb}}
	// Without function symbols (but _start's), functions of several
	// ranges have no entry: seven in each of these programs.
	for _, name := range []string{"calls-clang-22-nopie", "shapes-clang++-22-pie"} {
		p := byName[name]
		f, err := elf.Open(p.bin)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := f.Symbols()
		f.Close()
		var args []string
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Name != "_start" {
				args = append(args, "--strip-symbol="+s.Name)
			}
		}
		stripped := filepath.Join(dir, "no-function-symbols-"+name, filepath.Base(p.bin))
		os.MkdirAll(filepath.Dir(stripped), 0o755)
		if out, err := exec.Command(testenv.Tool(t, "llvm-objcopy-22"), append(args, p.bin, stripped)...).CombinedOutput(); err != nil {
			t.Fatalf("llvm-objcopy: %v\n%s", err, out)
		}
		p.bin = stripped
		bins[filepath.Base(filepath.Dir(stripped))] = p
	}
	for kind, p := range bins {
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("binary-%s/%d", kind, rel), func(t *testing.T) {
				details += compareDetailed(t, refs[rel], rel, []string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--format=text"})
				details += compareDetailed(t, refs[rel], rel, append([]string{"--perfscript=" + p.hyb, "--binary=" + p.bin, "--format=text"}, csOff...))
			})
		}
	}
	for _, p := range buildProbePrograms(t) {
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("%s/%d", p.name, rel), func(t *testing.T) {
				details += compareDetailed(t, refs[rel], rel, append([]string{"--perfscript=" + p.hyb, "--binary=" + p.bin, "--format=text"}, csOff...))
			})
		}
	}
	if details == 0 && !t.Failed() {
		t.Error("llvm-profgen printed no per-item warning: the inputs test nothing")
	}
	t.Logf("%d per-item warnings compared", details)
}
