package x86inst

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var corpus = flag.Bool("corpus", false, "compare every executable section of the whole corpus (testdata/x86corpus/run.sh), not CI's sample")

// corpusPackages are Debian packages that .ci/install installs; their ELF
// files, and the shared libraries those load, are the corpus of real
// machine code (compilers, libLLVM, libclang-cpp, chromium, glibc's
// hand-written AVX2/AVX-512 string functions, libstdc++).
var corpusPackages = []string{"clang-19", "clang-22", "llvm-19", "llvm-22", "qemu-user", "chromium", "nginx-light", "valgrind"}

// corpusFiles returns the corpus by rule, largest first: the x86-64 ELF
// executables and shared objects of corpusPackages (dpkg -L) and the
// shared libraries they load (ldd), distinct by inode, ordered by size
// (then path). The whole corpus is the largest nLarge of them plus every
// library that clang-22 loads (libstdc++, libc, libm, ...).
func corpusFiles(t *testing.T, nLarge int) []string {
	t.Helper()
	testenv.Tool(t, "dpkg")
	var cands []string
	for _, p := range corpusPackages {
		out, err := exec.Command("dpkg", "-L", p).Output()
		if err != nil {
			testenv.Missing(t, "dpkg -L %s: %v", p, err)
			continue
		}
		cands = append(cands, strings.Fields(string(out))...)
	}
	type file struct {
		path string
		size int64
	}
	seen := map[uint64]bool{}
	var files []file
	add := func(path string) bool {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() < 64 {
			return false
		}
		ino := inode(fi)
		if seen[ino] {
			return false
		}
		f, err := elf.Open(path)
		if err != nil {
			return false
		}
		ok := f.Machine == elf.EM_X86_64 && (f.Type == elf.ET_EXEC || f.Type == elf.ET_DYN) && f.Section(".text") != nil
		f.Close()
		if ok {
			seen[ino] = true
			files = append(files, file{path, fi.Size()})
		}
		return ok
	}
	var roots []string
	for _, c := range cands {
		if add(c) {
			roots = append(roots, c)
		}
	}
	libs := func(bin string) []string {
		out, _ := exec.Command("ldd", bin).Output()
		var l []string
		for _, line := range strings.Split(string(out), "\n") {
			if _, after, ok := strings.Cut(line, "=> "); ok {
				if p, _, ok := strings.Cut(after, " ("); ok && strings.HasPrefix(p, "/") {
					l = append(l, p)
				}
			}
		}
		return l
	}
	for _, r := range roots {
		for _, l := range libs(r) {
			add(l)
		}
	}
	slices.SortFunc(files, func(a, b file) int {
		if a.size != b.size {
			return int(b.size - a.size)
		}
		return strings.Compare(a.path, b.path)
	})
	var out []string
	for i, f := range files {
		if i < nLarge {
			out = append(out, f.path)
		}
	}
	clang, err := exec.LookPath("clang-22")
	if err == nil {
		for _, l := range libs(clang) {
			if r, err := filepath.EvalSymlinks(l); err == nil && !slices.Contains(out, r) && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// builtCorpus compiles testdata/corpus.cc with clang-19 and -22 at -O2,
// -march=x86-64-v3 (AVX2, BMI), -march=x86-64-v4 and -mavx512f (AVX-512).
func builtCorpus(t *testing.T) []string {
	t.Helper()
	src, err := filepath.Abs("testdata/corpus.cc")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ccs := []string{"clang++-19", "clang++-22"}
	flags := []string{"-O2", "-O2 -march=x86-64-v3", "-O2 -march=x86-64-v4", "-O2 -mavx512f", "-O1 -march=x86-64-v3 -fno-pie -no-pie"}
	inputs := []string{string(text), strings.Join(flags, "|")}
	for _, cc := range ccs {
		inputs = append(inputs, testenv.Version(t, cc))
	}
	dir := testenv.Cached(t, "x86inst-corpus", inputs, func(dir string) error {
		for _, cc := range ccs {
			for i, f := range flags {
				args := append(strings.Fields(f), "-g", src, "-o", filepath.Join(dir, fmt.Sprintf("%s-%d", cc, i)))
				if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
					return fmt.Errorf("%s %v: %v\n%s", cc, args, err, out)
				}
			}
		}
		return nil
	})
	var out []string
	for _, cc := range ccs {
		for i := range flags {
			out = append(out, filepath.Join(dir, fmt.Sprintf("%s-%d", cc, i)))
		}
	}
	return out
}

// counts are the results of comparing one file (or all).
type counts struct {
	insts, blocks, sections, diffs int
	shown                          []string
	diffAddrs                      []uint64 // llvm-objdump's addresses that differ
}

func (c *counts) add(o counts) {
	c.insts += o.insts
	c.blocks += o.blocks
	c.sections += o.sections
	c.diffs += o.diffs
	c.shown = append(c.shown, o.shown...)
}

// compareObjdump disassembles path with `llvm-objdump-22 -d -z` (every
// executable section, zeros too; between start and stop when stop > 0)
// and checks every instruction start it prints against ours. llvm-objdump
// decodes symbol by symbol, each from the symbol's address to the next
// symbol's, with the rest of the section as the bytes (as llvm-profgen's
// dissassembleSymbol): so each block it prints starts our decoding at its
// first address, and every later address of the block must be where our
// previous instruction ends. After a difference our decoding resumes at
// llvm-objdump's address, so that one difference counts once.
func compareObjdump(t *testing.T, objdump, path string, start, stop uint64) counts {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var secs []*elf.Section
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && s.Size > 0 {
			secs = append(secs, s)
		}
	}
	// The bytes of each section llvm-objdump prints from: all of it, or
	// with a window only the window's and the 16 after it (an instruction
	// starting before stop ends at most 15 bytes later). Reading all of a
	// large library's .text for each of its windows was most of this
	// test's time (300 s of CPU under -race, for 28k instructions).
	type span struct {
		base uint64
		b    []byte
	}
	data := map[*elf.Section]span{}
	// No separate debug files: llvm-objdump finds one by build ID under
	// /usr/lib/debug (libc6-dbg's) and then prints nothing of its
	// NOBITS .text.
	args := []string{"-d", "-z", "--no-show-raw-insn", "--no-print-imm-hex", "--debug-file-directory=" + t.TempDir()}
	if stop > 0 {
		args = append(args, fmt.Sprintf("--start-address=0x%x", start), fmt.Sprintf("--stop-address=0x%x", stop))
	}
	cmd := exec.Command(objdump, append(args, path)...)
	cmd.Stderr = io.Discard
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var c counts
	var sec *elf.Section
	var code []byte
	var base uint64 // the address of code[0]
	next := uint64(0)
	newBlock := false
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte("Disassembly of section ")) {
			c.sections++
			continue
		}
		if line[0] != ' ' {
			if i := bytes.Index(line, []byte(" <")); i > 0 && bytes.HasSuffix(line, []byte(">:")) {
				newBlock = true
				c.blocks++
			}
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		addr, err := strconv.ParseUint(string(bytes.TrimSpace(line[:colon])), 16, 64)
		if err != nil {
			continue
		}
		if sec == nil || addr < sec.Addr || addr >= sec.Addr+sec.Size {
			sec = nil
			for _, s := range secs {
				if addr >= s.Addr && addr < s.Addr+s.Size {
					sec = s
				}
			}
			if sec == nil {
				t.Fatalf("%s: llvm-objdump address %#x in no executable section", path, addr)
			}
			sp, ok := data[sec]
			if !ok {
				lo, hi := sec.Addr, sec.Addr+sec.Size
				if stop > 0 {
					lo, hi = max(lo, min(start, hi)), min(hi, stop+16)
				}
				sp = span{lo, make([]byte, hi-lo)}
				if _, err := sec.ReadAt(sp.b, int64(lo-sec.Addr)); err != nil {
					t.Fatalf("%s: reading %s: %v", path, sec.Name, err)
				}
				data[sec] = sp
			}
			code, base = sp.b, sp.base
			newBlock = true
		}
		if addr < base || addr >= base+uint64(len(code)) {
			t.Fatalf("%s: llvm-objdump address %#x outside [%#x, %#x)", path, addr, start, stop)
		}
		c.insts++
		if !newBlock && addr != next {
			c.diffs++
			c.diffAddrs = append(c.diffAddrs, min(addr, next))
			if len(c.shown) < 20 {
				c.shown = append(c.shown, fmt.Sprintf("%s: llvm-objdump has an instruction at %#x, ours at %#x (bytes %x)",
					path, addr, next, code[min(next, addr)-base:min(max(next, addr)-base+8, uint64(len(code)))]))
			}
		}
		newBlock = false
		next = addr + uint64(Decode(code[addr-base:]).Len)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("llvm-objdump-22 %s: %v", path, err)
	}
	return c
}

// sampleWindows returns CI's bounded sample of path: n windows of size
// bytes at evenly spaced places of its executable sections (by total
// size), each as [start, stop).
func sampleWindows(t *testing.T, path string, n int, size uint64) [][2]uint64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var secs []*elf.Section
	total := uint64(0)
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && s.Size > 0 {
			secs = append(secs, s)
			total += s.Size
		}
	}
	var w [][2]uint64
	for i := range n {
		off := total / uint64(n) * uint64(i)
		for _, s := range secs {
			if off < s.Size {
				end := min(s.Addr+off+size, s.Addr+s.Size)
				w = append(w, [2]uint64{s.Addr + off, end})
				break
			}
			off -= s.Size
		}
	}
	return w
}

// TestCorpus compares our instruction boundaries with llvm-objdump-22's on
// real binaries: in CI, the programs built from testdata/corpus.cc whole
// and eight 4 KiB windows of each of the three largest corpus files; with
// -corpus, every executable section of the whole corpus (corpusFiles).
func TestCorpus(t *testing.T) {
	objdump := testenv.Tool(t, "llvm-objdump-22")
	var all counts
	for _, p := range builtCorpus(t) {
		c := compareObjdump(t, objdump, p, 0, 0)
		all.add(c)
	}
	built := all
	var files []string
	if *corpus {
		files = corpusFiles(t, 12)
	} else {
		files = corpusFiles(t, 3)[:3]
	}
	for _, p := range files {
		var c counts
		if *corpus {
			c = compareObjdump(t, objdump, p, 0, 0)
		} else {
			for _, w := range sampleWindows(t, p, 8, 4096) {
				c.add(compareObjdump(t, objdump, p, w[0], w[1]))
			}
		}
		t.Logf("%s: %d instructions in %d blocks, %d differ", p, c.insts, c.blocks, c.diffs)
		all.add(c)
	}
	t.Logf("built programs: %d instructions in %d blocks, %d differ", built.insts, built.blocks, built.diffs)
	t.Logf("total: %d files, %d instructions in %d blocks of %d sections compared, %d differ", len(files)+len(builtCorpus(t)), all.insts, all.blocks, all.sections, all.diffs)
	if *corpus {
		fmt.Printf("x86corpus: %d files, %d instructions, %d blocks, %d sections, %d differ\n", len(files)+len(builtCorpus(t)), all.insts, all.blocks, all.sections, all.diffs)
	}
	for _, s := range all.shown {
		t.Error(s)
	}
	if all.diffs > len(all.shown) {
		t.Errorf("... %d differences in all", all.diffs)
	}
}

// inode identifies a file (hard links and the same file reached twice).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Dev<<40 ^ st.Ino
	}
	return 0
}
