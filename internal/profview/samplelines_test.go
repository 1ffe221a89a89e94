package profview_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// dwarfTruth is what llvm-symbolizer says of every instruction of a
// binary: per function (linkage name, canonical), its DW_AT_decl_line
// ("Function start line") and file, and the lines of it the line table
// maps some instruction to (inlined frames included).
type dwarfTruth struct {
	start map[string]int64
	file  map[string]string
	lines map[string]map[int64]bool
}

func symbolizeAll(t *testing.T, bin string) dwarfTruth {
	t.Helper()
	objdump := testenv.Tool(t, "llvm-objdump-22")
	symbolizer := testenv.Tool(t, "llvm-symbolizer-22")
	dis, err := exec.Command(objdump, "-d", "--no-show-raw-insn", bin).Output()
	if err != nil {
		t.Fatalf("llvm-objdump-22 -d %s: %v", bin, err)
	}
	var addrs bytes.Buffer
	for _, m := range regexp.MustCompile(`(?m)^\s+([0-9a-f]+):`).FindAllSubmatch(dis, -1) {
		addrs.WriteString("0x" + string(m[1]) + "\n")
	}
	cmd := exec.Command(symbolizer, "--obj="+bin, "--verbose", "--inlining", "--no-demangle")
	cmd.Stdin = &addrs
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-symbolizer-22: %v", err)
	}
	tr := dwarfTruth{start: map[string]int64{}, file: map[string]string{}, lines: map[string]map[int64]bool{}}
	var fn, file string
	var start int64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "  ") {
			fn = llvmname.Canonical(strings.TrimSpace(l))
			continue
		}
		k, v, _ := strings.Cut(strings.TrimSpace(l), ": ")
		switch k {
		case "Filename":
			file = v
		case "Function start line":
			start, _ = strconv.ParseInt(v, 10, 64)
			tr.start[fn], tr.file[fn] = start, file
		case "Line":
			n, _ := strconv.ParseInt(v, 10, 64)
			if tr.lines[fn] == nil {
				tr.lines[fn] = map[int64]bool{}
			}
			tr.lines[fn][n] = true
		}
	}
	return tr
}

// TestSampleViewLinesFromBinary holds the source lines the sample views
// show with --profiled-binary to what llvm-symbolizer-22 reads from the
// binary's DWARF, on profiles llvm-profgen-22 and our profgen made from
// real programs: every function's first line is its DW_AT_decl_line
// (and the source text there names it), and every line with samples is
// a line of that function the line table maps an instruction to. Probe
// ids stay as the profile holds them.
func TestSampleViewLinesFromBinary(t *testing.T) {
	fx := sampleFixtures(t)
	for _, name := range []string{"inline-lbr.txt", "ours-inline-lbr.txt", "calls-lbr.prof", "cycles-cs.txt", "cycles-nested.prof"} {
		t.Run(name, func(t *testing.T) {
			bin := fx["bin:"+name]
			tr := symbolizeAll(t, bin)
			var buf bytes.Buffer
			if err := profmerge.ShowSampleView(&buf, fx[name], profmerge.SampleViewOptions{LLVM: 22, Binary: bin}); err != nil {
				t.Fatal(err)
			}
			p, err := profile.Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			checked, lines := 0, 0
			for _, f := range p.Function {
				want, ok := tr.start[llvmname.Canonical(f.SystemName)]
				if !ok {
					continue
				}
				checked++
				if f.StartLine != want || f.Filename != tr.file[llvmname.Canonical(f.SystemName)] {
					t.Errorf("%s starts at %s:%d, llvm-symbolizer says %s:%d", f.SystemName, f.Filename, f.StartLine, tr.file[llvmname.Canonical(f.SystemName)], want)
				}
				if src, err := os.ReadFile(f.Filename); err == nil {
					text := strings.Split(string(src), "\n")
					short := f.Name
					if i := strings.IndexByte(short, '('); i >= 0 {
						short = short[:i]
					}
					short = short[strings.LastIndex(short, ":")+1:]
					if f.StartLine < 1 || int(f.StartLine) > len(text) || !strings.Contains(text[f.StartLine-1], short) {
						t.Errorf("%s: line %d of %s does not name it", f.Name, f.StartLine, f.Filename)
					}
				}
			}
			for _, s := range p.Sample {
				if s.Value[0] == 0 {
					continue // head samples sit at the function's first line
				}
				for _, ln := range s.Location[0].Line {
					fn := llvmname.Canonical(ln.Function.SystemName)
					if tr.lines[fn] == nil {
						continue
					}
					lines++
					if !tr.lines[fn][ln.Line] {
						t.Errorf("%s: line %d has samples, but no instruction of it maps to that line", ln.Function.Name, ln.Line)
					}
				}
			}
			if checked == 0 || lines == 0 {
				t.Fatalf("no function checked (%d) or no line (%d)", checked, lines)
			}
			t.Logf("%d functions, %d sampled lines checked", checked, lines)
		})
	}
}
