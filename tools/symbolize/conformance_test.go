package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// flagSets are the option combinations compared against llvm-symbolizer:
// the three output styles with and without inlining and demangling, plus
// the other flags that change the output.
var coreFlagSets = func() [][]string {
	var sets [][]string
	for _, style := range []string{"LLVM", "GNU", "JSON"} {
		for _, inl := range []string{"--inlines", "--no-inlines"} {
			for _, dem := range []string{"--demangle", "--no-demangle"} {
				sets = append(sets, []string{"--output-style=" + style, inl, dem})
			}
		}
	}
	return sets
}()

// extraFlagSets cover the remaining output-changing options; they run on
// half of the fixtures (-O2 PIE and -O0 non-PIE), to keep the test short.
var extraFlagSets = [][]string{
	[]string{"--functions=short"},
	[]string{"--functions=none", "--output-style=GNU"},
	[]string{"--functions=short", "--no-inlines", "--output-style=JSON"},
	[]string{"-Cfp", "-a"},
	[]string{"--pretty-print", "--output-style=JSON"},
	[]string{"--pretty-print", "--output-style=GNU", "--addresses"},
	[]string{"--basenames", "--output-style=JSON"},
	[]string{"-s", "--verbose"},
	[]string{"--verbose", "--output-style=GNU", "--no-inlines"},
	[]string{"--adjust-vma=0x10", "--output-style=JSON"},
	[]string{"--relative-address"},
	[]string{"--print-source-context-lines=3"},
	[]string{"--print-source-context-lines=5", "--output-style=JSON", "--no-inlines"},
}

// TestConformance compares our output with llvm-symbolizer-19 and -22,
// byte for byte, on C and C++ programs built by clang-19 and clang-22 at
// -O0 and -O2, PIE and non-PIE, for every flag set above.
func TestConformance(t *testing.T) {
	llvm := map[string]string{
		"19": testenv.Tool(t, "llvm-symbolizer-19"),
		"22": testenv.Tool(t, "llvm-symbolizer-22"),
	}
	for _, fx := range buildFixtures(t) {
		addrs := probeAddresses(t, fx.path)
		t.Run(fx.name, func(t *testing.T) {
			sets := coreFlagSets
			if strings.Contains(fx.name, "-O2-pie") || strings.Contains(fx.name, "-O0-nopie") {
				sets = append(sets[:len(sets):len(sets)], extraFlagSets...)
			}
			for _, flags := range sets {
				args := append([]string{"--obj=" + fx.path}, flags...)
				args = append(args, addrs...)
				got, stderr, err := runInProcess("", args...)
				if err != nil {
					t.Errorf("symbolize %s: %v\n%s", strings.Join(flags, " "), err, stderr)
					continue
				}
				for _, ver := range []string{"19", "22"} {
					want := runLLVM(t, llvm[ver], "", args...)
					if got != want {
						t.Errorf("llvm-symbolizer-%s %s: output differs\n%s", ver, strings.Join(flags, " "), diffLines(want, got))
					}
				}
			}
		})
	}
}

// TestConformanceStdin feeds the same requests on stdin, where JSON is one
// object per line and the input protocol (module names, CODE/DATA
// prefixes, symbol names, junk) matters.
func TestConformanceStdin(t *testing.T) {
	llvm := map[string]string{
		"19": testenv.Tool(t, "llvm-symbolizer-19"),
		"22": testenv.Tool(t, "llvm-symbolizer-22"),
	}
	fxs := buildFixtures(t)
	fx := fxs[len(fxs)-1] // inline.cc, clang++-22 -O2 non-PIE
	addrs := probeAddresses(t, fx.path)
	if len(addrs) > 300 {
		addrs = addrs[len(addrs)-300:]
	}
	base := fx.path
	var in strings.Builder
	for i, a := range addrs {
		switch i % 7 {
		case 0:
			in.WriteString("CODE " + a + "\n")
		case 1:
			in.WriteString(a + " trailing words\n")
		default:
			in.WriteString(a + "\n")
		}
	}
	in.WriteString("\n" + "main\n" + "main+4\n" + "no_such_symbol\n" + "12zz\n" + "0x\n" + "  0x10\r\n")
	t.Run("obj", func(t *testing.T) {
		for _, style := range []string{"LLVM", "GNU", "JSON"} {
			args := []string{"--obj=" + fx.path, "--output-style=" + style}
			got, _, err := runInProcess(in.String(), args...)
			if err != nil {
				t.Fatalf("symbolize: %v", err)
			}
			for _, ver := range []string{"19", "22"} {
				want := runLLVM(t, llvm[ver], in.String(), args...)
				if got != want {
					t.Errorf("llvm-symbolizer-%s %s (stdin): output differs\n%s", ver, style, diffLines(want, got))
				}
			}
		}
	})
	t.Run("module-per-line", func(t *testing.T) {
		var in2 strings.Builder
		for i, a := range addrs[:50] {
			if i%2 == 0 {
				in2.WriteString(base + " " + a + "\n")
			} else {
				in2.WriteString(`"` + base + `" ` + a + "\n")
			}
		}
		in2.WriteString("FILE:" + base + " 0x0\n")
		for _, style := range []string{"LLVM", "JSON"} {
			args := []string{"--output-style=" + style}
			got, _, err := runInProcess(in2.String(), args...)
			if err != nil {
				t.Fatalf("symbolize: %v", err)
			}
			for _, ver := range []string{"19", "22"} {
				want := runLLVM(t, llvm[ver], in2.String(), args...)
				if got != want {
					t.Errorf("llvm-symbolizer-%s %s (module per line): output differs\n%s", ver, style, diffLines(want, got))
				}
			}
		}
	})
}

// runLLVM runs an LLVM tool, or returns its answer from an earlier run:
// answers are cached beside testenv.Cached's fixtures under a hash of the
// tool, the arguments (which name the fixture by its content-keyed
// directory) and stdin.
func runLLVM(t *testing.T, tool, stdin string, args ...string) string {
	t.Helper()
	id := tool
	if st, err := os.Stat(tool); err == nil { // a reinstalled tool invalidates its answers
		id += st.ModTime().String() + strconv.FormatInt(st.Size(), 10)
	}
	key := sha256.Sum256([]byte(id + "\x00" + strings.Join(args, "\x00") + "\x00" + stdin))
	var cache string
	if root, err := testenv.CacheRoot(); err == nil {
		cache = filepath.Join(root, "symbolize-llvm-answers", hex.EncodeToString(key[:12]))
		if b, err := os.ReadFile(cache); err == nil {
			return string(b)
		}
	}
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args[:min(len(args), 6)], " "), err, errb.String())
	}
	if cache != "" && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		os.WriteFile(cache+".tmp", out.Bytes(), 0o644)
		os.Rename(cache+".tmp", cache)
	}
	return out.String()
}

// TestDisassembleMatchesProfgen compares --disassemble with
// llvm-profgen-19 --show-disassembly-only --show-source-locations. Only
// the addresses, the section and symbol headers and the inline-context
// annotations are compared: our instruction text is Go's GNU-syntax
// rendering (golang.org/x/arch), not LLVM's AT&T printer, so it differs.
func TestDisassembleMatchesProfgen(t *testing.T) {
	profgen := testenv.Tool(t, "llvm-profgen-19")
	for _, fx := range buildFixtures(t) {
		if !strings.Contains(fx.name, "-19-") {
			continue // profgen-19 reads clang-19's DWARF; keep the run short
		}
		t.Run(fx.name, func(t *testing.T) {
			cmd := exec.Command(profgen, "--show-disassembly-only", "--show-source-locations",
				"--binary="+fx.path, "--output=/dev/null")
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("llvm-profgen-19: %v", err)
			}
			got, stderr, rerr := runInProcess("", "--obj="+fx.path, "--disassemble")
			if rerr != nil {
				t.Fatalf("symbolize --disassemble: %v\n%s", rerr, stderr)
			}
			w, g := disasmSkeleton(string(want)), disasmSkeleton(got)
			if w != g {
				t.Errorf("disassembly annotations differ from llvm-profgen-19\n%s", diffLines(w, g))
			}
		})
	}
}

var disasmLine = regexp.MustCompile(`^ *([0-9a-f]+):(.*)$`)

// annotation matches profgen's inline context at the end of a line:
// linkage names joined by " @ ", each with ":offset[.discriminator]".
var annotation = regexp.MustCompile(`([A-Za-z_.$][A-Za-z0-9_.$]*:\d+(?:\.\d+)?(?: @ [A-Za-z_.$][A-Za-z0-9_.$]*:\d+(?:\.\d+)?)*)$`)

// disasmSkeleton keeps, per instruction line, the address and the inline
// context. Both tools pad the instruction text to 40 columns, so for short
// instructions the annotation is what follows the padding; after a longer
// one profgen glues it to the text, so it is found by its pattern (an
// AT&T operand never looks like "name:123" at the end of a line).
func disasmSkeleton(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		m := disasmLine.FindStringSubmatch(l)
		if m == nil {
			b.WriteString(l)
			b.WriteByte('\n')
			continue
		}
		rest := m[2]
		ann := ""
		if i := strings.Index(rest, "  "); i >= 0 && i < 40 {
			ann = strings.TrimSpace(rest[i:])
		} else if am := annotation.FindStringSubmatch(rest); am != nil && len(rest) >= 40 {
			ann = am[1]
		}
		b.WriteString(m[1] + " " + ann + "\n")
	}
	return b.String()
}
