package main

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// splitTrace traces a run that takes the branches the training run of
// testdata/split-cold.c never took (they are in the .cold parts).
var splitTrace = tracetest.Trace{
	Args:    lbrAndHybrid.Args,
	ProgArg: "7",
	Outputs: lbrAndHybrid.Outputs,
}

// buildSplitPrograms builds testdata/split-cold.c with clang-19 and -22,
// PIE and non-PIE, and traces the runs.
func buildSplitPrograms(t *testing.T) []program {
	t.Helper()
	progs := tracedPrograms(t, "profgen-cold-traces", []tracetest.Source{
		{File: "testdata/split-cold.c", CC: "clang-19"},
		{File: "testdata/split-cold.c", CC: "clang-22"},
	}, []tracetest.Trace{splitTrace})
	for _, p := range progs {
		f, err := elf.Open(p.bin)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := f.Symbols()
		f.Close()
		var cold []string
		for _, s := range syms {
			if strings.HasSuffix(s.Name, ".cold") {
				cold = append(cold, s.Name)
			}
		}
		slices.Sort(cold)
		if !slices.Equal(cold, []string{"step.cold", "walk.cold"}) {
			t.Fatalf("%s: cold parts %v, want step.cold and walk.cold (-fsplit-machine-functions)", p.bin, cold)
		}
	}
	return progs
}

// TestSplitFunctions compares with llvm-profgen-19 and -22 the profiles of
// functions split by -fsplit-machine-functions (hot part step, cold part
// step.cold: one DWARF function of two ranges). llvm-profgen takes a range
// as a function entry when the symbol at its start has the function's
// name after getCanonicalFnName, which strips .llvm. and .part. but not
// .cold: the cold range is no entry, so a jump into it is no call (no call
// target, no head sample) and its start is no function start. Non-CS on
// the LBR trace, CS on the hybrid one (each release's defaults, and flat
// without the pre-inliner), text and extbinary, warnings included.
func TestSplitFunctions(t *testing.T) {
	progs := buildSplitPrograms(t)
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	for _, p := range progs {
		for _, format := range []string{"text", "extbinary"} {
			for _, v := range []struct {
				name, trace string
				extra       []string
			}{
				{"lbr", p.lbr, nil},
				{"cs", p.hyb, nil},
				{"cs-flat", p.hyb, csOff},
			} {
				for _, rel := range []int{19, 22} {
					t.Run(fmt.Sprintf("%s/%s/%s/%d", p.name, v.name, format, rel), func(t *testing.T) {
						runBoth(t, refs[rel], rel, append([]string{"--perfscript=" + v.trace, "--binary=" + p.bin, "--format=" + format}, v.extra...))
					})
				}
			}
		}
	}
}

// compareDisassembly runs --show-disassembly-only with args through
// llvm-profgen-rel and ours and compares every line but the instruction
// text (instText) and the warnings; it returns llvm-profgen's warnings.
func compareDisassembly(t *testing.T, rel int, args []string) string {
	t.Helper()
	args = append([]string{"--show-disassembly-only"}, args...)
	cmd := exec.Command(testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel)), append(args, "--perfscript=/dev/null", "--output=/dev/null")...)
	var refErr bytes.Buffer
	cmd.Stderr = &refErr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-profgen-%d: %v\n%s", rel, err, refErr.String())
	}
	var got, stderr bytes.Buffer
	if err := run(append(args, "--llvm-version", fmt.Sprint(rel)), nil, &got, &stderr); err != nil {
		t.Fatalf("profgen: %v\n%s", err, stderr.String())
	}
	if w, g := instText.ReplaceAllString(string(want), "$1"), instText.ReplaceAllString(got.String(), "$1"); w != g {
		t.Errorf("disassembly differs (instruction text removed):\nllvm-profgen-%d:\n%s\nours:\n%s", rel, w, g)
	}
	if w, g := refErr.String(), strings.ReplaceAll(stderr.String(), tool+": ", ""); w != g {
		t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, w, g)
	}
	return refErr.String()
}

// invalidOpcodes are one-byte opcodes that do not exist in 64-bit mode:
// LLVM's decoder and golang.org/x/arch's both fail on them after one byte.
var invalidOpcodes = []byte{0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x60, 0x61}

// TestDisassemblySplitAndMidInstruction compares --show-disassembly-only
// with llvm-profgen-19 and -22 on the split functions (step.cold keeps
// its suffix with --show-canonical-fname) and on a copy with symbols
// added (llvm-objcopy --add-symbol) inside an instruction of each
// function, at a byte that is no opcode in 64-bit mode: llvm-profgen
// decodes every symbol from its own start to the next symbol, with the
// section's bytes (the instruction before an added symbol is decoded
// whole), and warns "Found N invalid instructions", with
// --show-detailed-warning each run first (in its DenseSet's order).
// Lines and warnings, not the instruction text.
func TestDisassemblySplitAndMidInstruction(t *testing.T) {
	p := pick(t, buildSplitPrograms(t), "split-cold-clang-22-nopie")
	f, err := elf.Open(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text")
	data, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	defer f.Close()
	// One added symbol in each function, at the first byte inside it that
	// is no opcode.
	var args []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Size == 0 || f.Sections[s.Section] != text {
			continue
		}
		for a := s.Value + 1; a < s.Value+s.Size; a++ {
			if slices.Contains(invalidOpcodes, data[a-text.Addr]) {
				args = append(args, "--add-symbol", fmt.Sprintf("%s_mid=.text:%#x,function,local", s.Name, a-text.Addr))
				break
			}
		}
	}
	if len(args) < 4 {
		t.Fatalf("%s: fewer than two functions with a byte of %x inside their instructions", p.bin, invalidOpcodes)
	}
	bin := filepath.Join(t.TempDir(), "mid")
	if out, err := exec.Command(testenv.Tool(t, "llvm-objcopy-22"), append(args, p.bin, bin)...).CombinedOutput(); err != nil {
		t.Fatalf("llvm-objcopy: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"split", []string{"--binary=" + p.bin}},
		{"split-canonical", []string{"--binary=" + p.bin, "--show-canonical-fname"}},
		{"mid-instruction", []string{"--binary=" + bin}},
		{"mid-instruction-detailed", []string{"--binary=" + bin, "--show-detailed-warning"}},
		{"mid-instruction-walk", []string{"--binary=" + bin, "--disassemble-functions=walk,walk_mid"}},
	} {
		for _, rel := range []int{19, 22} {
			t.Run(fmt.Sprintf("%s/%d", c.name, rel), func(t *testing.T) {
				warnings := compareDisassembly(t, rel, c.args)
				if strings.HasPrefix(c.name, "mid") && !strings.Contains(warnings, "invalid instructions") {
					t.Errorf("llvm-profgen-%d found no invalid instructions (%q): the added symbol is not inside an instruction", rel, warnings)
				}
			})
		}
	}
}
