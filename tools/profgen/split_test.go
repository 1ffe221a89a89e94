package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestSplitDWARF compares with llvm-profgen-19 and -22 a binary built
// with -gsplit-dwarf (testdata/split-inline.cc): with its .dwo file
// missing (the unit's DW_AT_dwo_name names the directory it was built in,
// which the fixture cache renamed: "DWO debug information was not loaded
// for 1 modules", no functions), and with the .dwo packed by llvm-dwp
// given as --dwp or found as <binary>.dwp: the same profiles as
// llvm-profgen's, non-CS and CS, text and extbinary, warnings included.
func TestSplitDWARF(t *testing.T) {
	progs := tracedPrograms(t, "profgen-split-traces", []tracetest.Source{{File: "testdata/split-inline.cc", CC: "clang++-22"}},
		[]tracetest.Trace{lbrAndHybrid})
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	dwpTool := testenv.Tool(t, "llvm-dwp-22")
	dir := t.TempDir()
	for _, p := range progs {
		dwos, _ := filepath.Glob(p.bin + "-*.dwo")
		if len(dwos) != 1 {
			t.Fatalf("%s: want one .dwo file beside it, found %v", p.bin, dwos)
		}
		dwp := filepath.Join(dir, p.name+".dwp")
		if out, err := exec.Command(dwpTool, dwos[0], "-o", dwp).CombinedOutput(); err != nil {
			t.Fatalf("llvm-dwp: %v\n%s", err, out)
		}
		// The binary beside its package as <binary>.dwp.
		withDWP := filepath.Join(dir, p.name, filepath.Base(p.bin))
		os.MkdirAll(filepath.Dir(withDWP), 0o755)
		if err := copyFile(p.bin, withDWP); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(dwp, withDWP+".dwp"); err != nil {
			t.Fatal(err)
		}
		type variant struct {
			name, bin, trace string
			extra            []string
		}
		variants := []variant{
			{"missing-dwo", p.bin, p.lbr, nil},
			{"missing-dwo-cs", p.bin, p.hyb, nil},
		}
		for _, format := range []string{"text", "extbinary"} {
			variants = append(variants,
				variant{"dwp-" + format, p.bin, p.lbr, []string{"--dwp=" + dwp, "--format=" + format}},
				variant{"dwp-cs-" + format, p.bin, p.hyb, []string{"--dwp=" + dwp, "--format=" + format}},
				variant{"dwp-cs-flat-" + format, p.bin, p.hyb, append([]string{"--dwp=" + dwp, "--format=" + format}, csOff...)},
				variant{"beside-" + format, withDWP, p.lbr, []string{"--format=" + format}},
			)
		}
		for _, v := range variants {
			for _, rel := range []int{19, 22} {
				t.Run(fmt.Sprintf("%s/%s/%d", p.name, v.name, rel), func(t *testing.T) {
					args := append([]string{"--perfscript=" + v.trace, "--binary=" + v.bin}, v.extra...)
					if len(v.extra) == 0 {
						args = append(args, "--format=text")
					}
					runBoth(t, refs[rel], rel, args)
				})
			}
		}
	}
}
