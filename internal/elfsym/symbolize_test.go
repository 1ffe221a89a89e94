package elfsym

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// fixture is one binary of the build matrix.
type fixture struct {
	name     string // compiler/config
	path     string
	opts     *Options
	symFlags []string // extra llvm-symbolizer flags
	llvmObj  string   // file given to llvm-symbolizer (default path)
}

// matrixConfig is one row of the build matrix. Sources are compiled from
// the config's own directory with relative paths (../src/...), so file
// names exercise comp_dir joining.
type matrixConfig struct {
	name    string
	cflags  string
	ldflags string
	post    []string // shell commands run in the config dir after linking
	// llvmObj, if set, is the file llvm-symbolizer reads instead of prog
	// (LLVM 16+ no longer reads legacy .zdebug_ sections).
	llvmObj string
	// debugDir, if set, is passed as a debug-file directory to both.
	debugDir string
}

var matrix = []matrixConfig{
	{name: "O0-dwarf4-nopie", cflags: "-O0 -gdwarf-4 -fno-pie", ldflags: "-no-pie"},
	{name: "O2-dwarf4-pie", cflags: "-O2 -gdwarf-4 -fPIE", ldflags: "-pie"},
	{name: "O0-dwarf5", cflags: "-O0 -gdwarf-5"},
	{name: "O2-dwarf5-nopie", cflags: "-O2 -gdwarf-5 -fno-pie", ldflags: "-no-pie"},
	{name: "O2-dwarf5-gz-zlib", cflags: "-O2 -gdwarf-5 -gz=zlib", ldflags: "-gz=zlib"},
	{name: "O2-dwarf4-gz-zstd-lld", cflags: "-O2 -gdwarf-4 -gz=zstd", ldflags: "-fuse-ld=lld -gz=zstd"},
	{name: "O2-dwarf5-profiling", cflags: "-O2 -gdwarf-5 -fdebug-info-for-profiling -funique-internal-linkage-names"},
	{name: "O2-line-tables-only", cflags: "-O2 -gline-tables-only -fdebug-info-for-profiling"},
	{name: "O2-dwarf5-split", cflags: "-O2 -gdwarf-5 -gsplit-dwarf"},
	{name: "O2-dwarf5-split-dwp", cflags: "-O2 -gdwarf-5 -gsplit-dwarf", post: []string{"$DWP main.dwo lib.dwo -o prog.dwp", "rm -f *.dwo"}},
	{name: "O2-dwarf5-split-missing-dwo", cflags: "-O2 -gdwarf-5 -gsplit-dwarf", post: []string{"rm -f *.dwo"}},
	{name: "O2-dwarf4-split", cflags: "-O2 -gdwarf-4 -gsplit-dwarf"},
	{name: "O2-dwarf4-split-dwp", cflags: "-O2 -gdwarf-4 -gsplit-dwarf", post: []string{"$DWP main.dwo lib.dwo -o prog.dwp", "rm -f *.dwo"}},
	{name: "O2-dwarf4-zdebug", cflags: "-O2 -gdwarf-4", post: []string{"cp prog prog.orig", "objcopy --compress-debug-sections=zlib-gnu prog"}, llvmObj: "prog.orig"},
	{name: "O2-build-id-dir", cflags: "-O2 -gdwarf-5", ldflags: "-Wl,--build-id", debugDir: "dbg", post: []string{
		`id=$(readelf -n prog | sed -n 's/.*Build ID: *//p'); d=dbg/.build-id/$(echo $id | cut -c1-2); mkdir -p $d; objcopy --only-keep-debug prog $d/$(echo $id | cut -c3-).debug`,
		"strip --strip-debug prog"}},
	{name: "O2-debuglink", cflags: "-O2 -gdwarf-5", post: []string{"objcopy --only-keep-debug prog prog.debug", "strip --strip-debug prog", "objcopy --add-gnu-debuglink=prog.debug prog"}},
	{name: "O2-dwarf5-gc-sections-lld", cflags: "-O2 -gdwarf-5 -ffunction-sections", ldflags: "-fuse-ld=lld -Wl,--gc-sections"},
	{name: "O2-dwarf4-gc-sections", cflags: "-O2 -gdwarf-4 -ffunction-sections", ldflags: "-Wl,--gc-sections"},
	{name: "O2-bb-sections", cflags: "-O2 -gdwarf-5 -fbasic-block-sections=all"},
	{name: "O2-dwarf64", cflags: "-O2 -gdwarf-5 -gdwarf64"},
	{name: "O2-dwarf4-dwarf64", cflags: "-O2 -gdwarf-4 -gdwarf64"},
	{name: "O2-stripped", cflags: "-O2 -gdwarf-5", post: []string{"strip --strip-debug prog"}},
}

var compilers = []struct{ name, cc, cxx, dwp, lld string }{
	{"clang19", "clang-19", "clang++-19", "llvm-dwp-19", "ld.lld-19"},
	{"clang22", "clang-22", "clang++-22", "llvm-dwp-22", "ld.lld-19"},
}

var symbolizers = []string{"llvm-symbolizer-19", "llvm-symbolizer-22"}

// buildMatrix compiles every (compiler, config) of the matrix through
// testenv.Cached: once, and again only when a source, a build command or a
// tool changes. A missing tool skips the tests that need the matrix (fails
// them under CI=true).
func buildMatrix(t *testing.T) []fixture {
	t.Helper()
	var inputs []string
	tool := map[string]string{} // name -> path
	for _, c := range compilers {
		for _, name := range []string{c.cc, c.cxx, c.dwp, c.lld} {
			tool[name] = testenv.Tool(t, name)
			inputs = append(inputs, testenv.Version(t, name))
		}
	}
	for _, name := range []string{"objcopy", "strip", "readelf"} {
		inputs = append(inputs, testenv.Version(t, name))
	}
	// The sources, copied into the fixture directory: src/ for the matrix
	// and tiny.c beside it for the 32-bit builds.
	sources := map[string][]byte{}
	for _, f := range []string{"src/main.cc", "src/lib.c", "src/util.h", "tiny.c"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = data
		inputs = append(inputs, f, string(data))
	}
	type job struct {
		sub string // directory of the build, under the fixture directory
		fx  fixture
		sh  string
	}
	var jobs []job
	// Compiled in $PWD, the build directory; recorded as $FINAL.
	const prefixMap = `-fdebug-prefix-map="$PWD=$FINAL"`
	for _, c := range compilers {
		for _, m := range matrix {
			ld := strings.ReplaceAll(m.ldflags, "-fuse-ld=lld", "-fuse-ld="+tool[c.lld])
			sh := fmt.Sprintf("%[1]s %[3]s %[5]s -c ../src/main.cc -o main.o\n%[2]s %[3]s %[5]s -c ../src/lib.c -o lib.o\n%[1]s %[3]s %[4]s main.o lib.o -o prog\n",
				c.cxx, c.cc, m.cflags, ld, prefixMap)
			for _, p := range m.post {
				sh += strings.ReplaceAll(p, "$DWP", c.dwp) + "\n"
			}
			fx := fixture{name: c.name + "/" + m.name, path: "prog", llvmObj: "prog"}
			if m.llvmObj != "" {
				fx.llvmObj = m.llvmObj
			}
			if m.debugDir != "" {
				fx.opts = &Options{DebugFileDirectories: []string{m.debugDir}}
				fx.symFlags = []string{"--debug-file-directory=" + m.debugDir}
			}
			jobs = append(jobs, job{c.name + "-" + m.name, fx, sh})
		}
		// 32-bit builds of the freestanding tiny.c (no libc needed).
		for _, v := range []string{"4", "5"} {
			sh := fmt.Sprintf("%s -m32 -O2 -gdwarf-%s %s -nostdlib -static -fno-pie -o prog ../src/../tiny.c\n", c.cc, v, prefixMap)
			jobs = append(jobs, job{c.name + "-m32-dwarf" + v, fixture{name: c.name + "/m32-dwarf" + v, path: "prog", llvmObj: "prog"}, sh})
		}
	}
	for _, j := range jobs {
		inputs = append(inputs, j.sub, j.sh)
	}
	dir := testenv.Cached(t, "elfsym-matrix", inputs, func(tmp string) error {
		// Compilation directories (which locate the .dwo files of split
		// units) must name where the fixtures end up.
		final := testenv.FinalDir(tmp)
		for f, data := range sources {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, f)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(tmp, f), data, 0o644); err != nil {
				return err
			}
		}
		errs := make([]error, len(jobs))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(1, runtime.NumCPU()))
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				d := filepath.Join(tmp, j.sub)
				if err := os.MkdirAll(d, 0o755); err != nil {
					errs[i] = err
					return
				}
				cmd := exec.Command("sh", "-ec", j.sh)
				cmd.Dir = d
				cmd.Env = append(os.Environ(), "PWD="+d, "FINAL="+filepath.Join(final, j.sub))
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("build %s: %v\n%s", j.fx.name, err, out)
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "built-for"), []byte(final), 0o644)
	})
	if got, err := os.ReadFile(filepath.Join(dir, "built-for")); err != nil || string(got) != dir {
		t.Fatalf("fixtures in %s were built for %q (%v): testenv.Cached no longer renames <name>.tmp-* to <name>", dir, got, err)
	}
	var fxs []fixture
	for _, j := range jobs {
		fx := j.fx
		d := filepath.Join(dir, j.sub)
		fx.path, fx.llvmObj = filepath.Join(d, fx.path), filepath.Join(d, fx.llvmObj)
		if fx.opts != nil {
			dd := filepath.Join(d, fx.opts.DebugFileDirectories[0])
			fx.opts = &Options{DebugFileDirectories: []string{dd}}
			fx.symFlags = []string{"--debug-file-directory=" + dd}
		}
		fxs = append(fxs, fx)
	}
	// Committed fixtures (see testdata/tiny.c).
	for _, f := range []string{"tiny.elf", "tiny-dwarf4-zlib.elf", "fuzz-seed-dwarf5.elf", "fuzz-seed-dwarf4-zlib.elf"} {
		p := filepath.Join("testdata", f)
		fxs = append(fxs, fixture{name: "testdata/" + f, path: p, llvmObj: p})
	}
	sort.Slice(fxs, func(i, j int) bool { return fxs[i].name < fxs[j].name })
	return fxs
}

// instructionAddrs returns the start address of every instruction in the
// executable sections, decoded with x86asm: a linear sweep from each
// symbol to the next (function symbols, basic-block-section parts, and the
// section start), so padding between functions is included too.
func instructionAddrs(t *testing.T, path string) []uint64 {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, _ := ef.Symbols()
	var out []uint64
	for si, sec := range ef.Sections {
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 || sec.Name == ".plt" || sec.Name == ".plt.got" || sec.Name == ".plt.sec" {
			continue
		}
		code, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		starts := map[uint64]bool{sec.Addr: true}
		for _, s := range syms {
			if int(s.Section) == si && s.Value >= sec.Addr && s.Value < sec.Addr+sec.Size {
				starts[s.Value] = true
			}
		}
		var ss []uint64
		for a := range starts {
			ss = append(ss, a)
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i] < ss[j] })
		for i, a := range ss {
			end := sec.Addr + sec.Size
			if i+1 < len(ss) {
				end = ss[i+1]
			}
			for off := a - sec.Addr; off < end-sec.Addr; {
				out = append(out, sec.Addr+off)
				inst, err := x86asm.Decode(code[off:end-sec.Addr], 64)
				if err != nil || inst.Len == 0 {
					off++
					continue
				}
				off += uint64(inst.Len)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

type llvmFrame struct {
	Column        uint32
	Discriminator uint32
	FileName      string
	FunctionName  string
	Line          uint32
	StartAddress  string
	StartFileName string
	StartLine     uint32
}

// runSymbolizer feeds all addresses to one llvm-symbolizer process.
func runSymbolizer(t *testing.T, tool, path string, addrs []uint64, extra []string) [][]llvmFrame {
	t.Helper()
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	args := append([]string{"--obj=" + path, "--output-style=JSON", "--inlining", "--functions=linkage", "--no-demangle"}, extra...)
	cmd := exec.Command(tool, args...)
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, stderr.String())
	}
	var res [][]llvmFrame
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var rec struct {
			Address string
			Symbol  []llvmFrame
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s output: %v: %s", tool, err, sc.Bytes())
		}
		res = append(res, rec.Symbol)
	}
	if len(res) != len(addrs) {
		t.Fatalf("%s: %d results for %d addresses", tool, len(res), len(addrs))
	}
	return res
}

// frameDiff describes how our frame differs from LLVM's, "" if equal.
func frameDiff(got Frame, want llvmFrame) string {
	var d []string
	if got.LinkageName != want.FunctionName {
		d = append(d, fmt.Sprintf("function %q, want %q", got.LinkageName, want.FunctionName))
	}
	if got.File != want.FileName {
		d = append(d, fmt.Sprintf("file %q, want %q", got.File, want.FileName))
	}
	if got.Line != want.Line {
		d = append(d, fmt.Sprintf("line %d, want %d", got.Line, want.Line))
	}
	if got.Column != want.Column {
		d = append(d, fmt.Sprintf("column %d, want %d", got.Column, want.Column))
	}
	if got.Discriminator != want.Discriminator {
		d = append(d, fmt.Sprintf("discriminator %d, want %d", got.Discriminator, want.Discriminator))
	}
	if got.StartLine != want.StartLine {
		d = append(d, fmt.Sprintf("start line %d, want %d", got.StartLine, want.StartLine))
	}
	if got.StartFile != want.StartFileName {
		d = append(d, fmt.Sprintf("start file %q, want %q", got.StartFile, want.StartFileName))
	}
	wantStart := uint64(0)
	if want.StartAddress != "" {
		wantStart, _ = strconv.ParseUint(strings.TrimPrefix(want.StartAddress, "0x"), 16, 64)
	}
	if got.StartAddress != wantStart {
		d = append(d, fmt.Sprintf("start address %#x, want %s", got.StartAddress, want.StartAddress))
	}
	return strings.Join(d, "; ")
}

// TestDifferential compares every instruction address of every function
// of every matrix binary with llvm-symbolizer-19 and -22.
//
// Known, accepted differences (checked, not just ignored):
//   - llvm-symbolizer's CLI replaces the outermost frame's function name
//     (and StartAddress) with the symbol-table name when one covers the
//     address (SymbolizableObjectFile::shouldOverrideWithSymbolTable with
//     --functions=linkage). The library returns the DWARF name, like the
//     UseSymbolTable=false symbolizer llvm-profgen and the MemProf reader
//     use. Such a frame is accepted when LLVM's name is the symbol's name.
func TestDifferential(t *testing.T) {
	fxs := buildMatrix(t)
	for _, s := range symbolizers {
		testenv.Tool(t, s)
	}
	for _, fx := range fxs {
		t.Run(fx.name, func(t *testing.T) {
			addrs := instructionAddrs(t, fx.path)
			var warns []string
			opts := Options{Warn: func(m string) { warns = append(warns, m) }}
			if fx.opts != nil {
				opts = *fx.opts
				opts.Warn = func(m string) { warns = append(warns, m) }
			}
			b, err := Open(fx.path, &opts)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			got := make([][]Frame, len(addrs))
			for i, a := range addrs {
				fr, err := b.Symbolize(a)
				if err != nil && !errors.Is(err, ErrUnknownPC) {
					t.Fatalf("Symbolize(%#x): %v", a, err)
				}
				got[i] = fr
			}
			for _, tool := range symbolizers {
				want := runSymbolizer(t, tool, fx.llvmObj, addrs, fx.symFlags)
				bad, overrides := 0, 0
				for i, a := range addrs {
					w := want[i]
					d, over := compareFrames(b, a, got[i], w)
					if d != "" {
						if bad++; bad <= 10 {
							t.Errorf("%s %#x: %s", tool, a, d)
						}
					} else if over {
						overrides++
					}
				}
				t.Logf("%s: %d addresses, %d mismatches, %d symbol-table overrides", tool, len(addrs), bad, overrides)
			}
		})
	}
}

// compareFrames compares our frames for addr with llvm-symbolizer's JSON
// frames; "" if they agree. The outermost frame may differ in function name
// and start address when LLVM's CLI took them from the symbol table.
func compareFrames(b *Binary, addr uint64, g []Frame, w []llvmFrame) (diff string, override bool) {
	if len(w) == 1 && w[0].FunctionName == "" && w[0].FileName == "" {
		w = nil
	}
	if len(g) != len(w) {
		return fmt.Sprintf("%d frames, want %d\n got: %+v\nwant: %+v", len(g), len(w), g, w), false
	}
	for k := range g {
		d := frameDiff(g[k], w[k])
		if d == "" {
			continue
		}
		if k == len(g)-1 {
			if s, ok := cliSymbol(b, addr, w[k]); ok {
				g2 := g[k]
				g2.LinkageName = s.Name
				g2.StartAddress = s.Addr
				if g2.File == "" {
					// The CLI also names the STT_FILE symbol's file
					// for a symbol-table-only frame.
					g2.File = w[k].FileName
				}
				if frameDiff(g2, w[k]) == "" {
					override = true
					continue
				}
			}
		}
		return fmt.Sprintf("frame %d: %s", k, d), false
	}
	return "", override
}

// cliSymbol finds the symbol llvm-symbolizer's CLI may have taken the
// outermost frame's name and start address from: one named as the frame,
// starting at its StartAddress, covering addr (size 0 covers what follows).
func cliSymbol(b *Binary, addr uint64, w llvmFrame) (Symbol, bool) {
	start, err := strconv.ParseUint(strings.TrimPrefix(w.StartAddress, "0x"), 16, 64)
	if err != nil {
		return Symbol{}, false
	}
	all := b.allSymbolsForTest()
	for _, s := range all {
		if s.Name == w.FunctionName && s.Addr == start && s.Addr <= addr && (s.Size == 0 || addr < s.Addr+s.Size) {
			return s, true
		}
	}
	return Symbol{}, false
}

var allSyms sync.Map // *Binary -> []Symbol

// allSymbolsForTest returns every defined, named symbol, several per
// address included (unlike SymbolTable, which keeps one).
func (b *Binary) allSymbolsForTest() []Symbol {
	if v, ok := allSyms.Load(b); ok {
		return v.([]Symbol)
	}
	var out []Symbol
	syms, _ := b.ef.Symbols()
	for _, s := range syms {
		if s.Name != "" && s.Section != elf.SHN_UNDEF {
			out = append(out, Symbol{Addr: s.Value, Size: s.Size, Name: s.Name})
		}
	}
	allSyms.Store(b, out)
	return out
}
