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
	{name: "O2-dwarf5-split-dwp", cflags: "-O2 -gdwarf-5 -gsplit-dwarf", post: []string{"$DWP -e prog -o prog.dwp", "rm -f *.dwo"}},
	{name: "O2-dwarf5-split-missing-dwo", cflags: "-O2 -gdwarf-5 -gsplit-dwarf", post: []string{"rm -f *.dwo"}},
	{name: "O2-dwarf4-split", cflags: "-O2 -gdwarf-4 -gsplit-dwarf"},
	{name: "O2-dwarf4-split-dwp", cflags: "-O2 -gdwarf-4 -gsplit-dwarf", post: []string{"$DWP -e prog -o prog.dwp", "rm -f *.dwo"}},
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

var (
	buildOnce sync.Once
	fixtures  []fixture
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// requireTool skips (or, under CI=true, fails) when an LLVM tool is missing.
func requireTool(t testing.TB, name string) bool {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("required tool %s not found (CI=true)", name)
		}
		t.Logf("SKIPPING checks that need %s: not on PATH", name)
		return false
	}
	return true
}

// buildMatrix compiles every (compiler, config) once per test run.
func buildMatrix(t *testing.T) []fixture {
	t.Helper()
	buildOnce.Do(func() {
		src, err := filepath.Abs("testdata/src")
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "elfsym-matrix-"); err != nil {
			buildErr = err
			return
		}
		if err := os.Symlink(src, filepath.Join(buildDir, "src")); err != nil {
			buildErr = err
			return
		}
		type job struct {
			dir string
			fx  fixture
			sh  string
		}
		var jobs []job
		for _, c := range compilers {
			if _, err := exec.LookPath(c.cxx); err != nil {
				if os.Getenv("CI") == "true" {
					buildErr = fmt.Errorf("%s not found (CI=true)", c.cxx)
					return
				}
				t.Logf("SKIPPING %s builds: %s not on PATH", c.name, c.cxx)
				continue
			}
			for _, m := range matrix {
				name := c.name + "/" + m.name
				dir := filepath.Join(buildDir, c.name+"-"+m.name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					buildErr = err
					return
				}
				ld := strings.ReplaceAll(m.ldflags, "-fuse-ld=lld", "-fuse-ld="+lookPath(c.lld))
				sh := fmt.Sprintf("set -e\n%[1]s %[3]s -c ../src/main.cc -o main.o\n%[2]s %[3]s -c ../src/lib.c -o lib.o\n%[1]s %[3]s %[4]s main.o lib.o -o prog\n",
					c.cxx, c.cc, m.cflags, ld)
				for _, p := range m.post {
					sh += strings.ReplaceAll(p, "$DWP", c.dwp) + "\n"
				}
				fx := fixture{name: name, path: filepath.Join(dir, "prog"), llvmObj: filepath.Join(dir, "prog")}
				if m.llvmObj != "" {
					fx.llvmObj = filepath.Join(dir, m.llvmObj)
				}
				if m.debugDir != "" {
					dd := filepath.Join(dir, m.debugDir)
					fx.opts = &Options{DebugFileDirectories: []string{dd}}
					fx.symFlags = []string{"--debug-file-directory=" + dd}
				}
				jobs = append(jobs, job{dir, fx, sh})
			}
		}
		// 32-bit builds of the freestanding tiny.c (no libc needed).
		for _, c := range compilers {
			if _, err := exec.LookPath(c.cc); err != nil {
				continue
			}
			for _, v := range []string{"4", "5"} {
				name := c.name + "/m32-dwarf" + v
				dir := filepath.Join(buildDir, c.name+"-m32-dwarf"+v)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					buildErr = err
					return
				}
				sh := fmt.Sprintf("set -e\n%s -m32 -O2 -gdwarf-%s -nostdlib -static -fno-pie -o prog ../src/../tiny.c\n", c.cc, v)
				p := filepath.Join(dir, "prog")
				jobs = append(jobs, job{dir, fixture{name: name, path: p, llvmObj: p}, sh})
			}
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(1, runtime.NumCPU()))
		for _, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				cmd := exec.Command("sh", "-c", j.sh)
				cmd.Dir = j.dir
				out, err := cmd.CombinedOutput()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("build %s: %v\n%s", j.fx.name, err, out)
					return
				}
				fixtures = append(fixtures, j.fx)
			}()
		}
		wg.Wait()
		// Committed fixtures (see testdata/tiny.c).
		for _, f := range []string{"tiny.elf", "tiny-dwarf4-zlib.elf", "fuzz-seed-dwarf5.elf", "fuzz-seed-dwarf4-zlib.elf"} {
			p := filepath.Join(filepath.Dir(src), f)
			fixtures = append(fixtures, fixture{name: "testdata/" + f, path: p, llvmObj: p})
		}
		sort.Slice(fixtures, func(i, j int) bool { return fixtures[i].name < fixtures[j].name })
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return fixtures
}

func lookPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
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
	var tools []string
	for _, s := range symbolizers {
		if requireTool(t, s) {
			tools = append(tools, s)
		}
	}
	if len(tools) == 0 {
		t.Skip("SKIPPING: no llvm-symbolizer")
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
			for _, tool := range tools {
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
				g2.LinkageName = s.name
				g2.StartAddress = s.addr
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
func cliSymbol(b *Binary, addr uint64, w llvmFrame) (symbol, bool) {
	start, err := strconv.ParseUint(strings.TrimPrefix(w.StartAddress, "0x"), 16, 64)
	if err != nil {
		return symbol{}, false
	}
	all := b.allSymbolsForTest()
	for _, s := range all {
		if s.name == w.FunctionName && s.addr == start && s.addr <= addr && (s.size == 0 || addr < s.addr+s.size) {
			return s, true
		}
	}
	return symbol{}, false
}

var allSyms sync.Map // *Binary -> []symbol

func (b *Binary) allSymbolsForTest() []symbol {
	if v, ok := allSyms.Load(b); ok {
		return v.([]symbol)
	}
	var out []symbol
	syms, _ := b.ef.Symbols()
	for _, s := range syms {
		if s.Name != "" && s.Section != elf.SHN_UNDEF {
			out = append(out, symbol{addr: s.Value, size: s.Size, name: s.Name})
		}
	}
	allSyms.Store(b, out)
	return out
}
