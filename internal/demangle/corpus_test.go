package demangle

import (
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// The name corpus: every symbol name of real C++ code that .ci/install puts
// on the machine, demangled by Name and by llvm-cxxfilt-22, compared name by
// name — including the names LLVM leaves mangled, which Name must leave
// mangled too. CI compares a bounded deterministic sample;
// testdata/corpus.sh runs the whole corpus (-demangle.corpus=full) and
// prints the counts.
var corpusMode = flag.String("demangle.corpus", "sample", "names of the corpus test: sample (CI) or full")

// corpusReleases are the clang releases whose files make up the corpus.
var corpusReleases = []string{"16", "19", "22"}

// corpusFiles lists the corpus's ELF files by a rule, not by hand: for
// each clang release, the clang binary, the shared libraries the dynamic
// loader resolves for it (ldd: libLLVM, libclang-cpp, libstdc++, libz3,
// libicuuc, …), and every ELF file of that release's `llvm-config --bindir`
// and `--libdir` and of clang's runtime directory (lib/linux, the
// compiler-rt shared libraries, which keep their .symtab). Largest first.
func corpusFiles(t *testing.T) []string {
	seen := map[string]bool{}
	var files []string
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] || !isELF(real) {
			return
		}
		seen[real] = true
		files = append(files, real)
	}
	for _, v := range corpusReleases {
		clang := testenv.Tool(t, "clang-"+v)
		add(clang)
		for _, l := range strings.Split(testenv.ToolOutput(t, "ldd", clang), "\n") {
			if _, path, ok := strings.Cut(strings.TrimSpace(l), " => "); ok {
				path, _, _ = strings.Cut(path, " (")
				add(path)
			}
		}
		cfg := "llvm-config-" + v
		dirs := []string{
			strings.TrimSpace(testenv.ToolOutput(t, cfg, "--bindir")),
			strings.TrimSpace(testenv.ToolOutput(t, cfg, "--libdir")),
			filepath.Join(strings.TrimSpace(testenv.ToolOutput(t, "clang-"+v, "-print-resource-dir")), "lib", "linux"),
		}
		for _, d := range dirs {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				add(filepath.Join(d, e.Name()))
			}
		}
	}
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	slices.SortStableFunc(files, func(a, b string) int {
		if sa, sb := size(a), size(b); sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return files
}

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == elf.ELFMAG
}

// symbolNames returns the names of path's .symtab and .dynsym (and, with
// debugStr, the "_Z" strings of .debug_str: linkage names of a binary with
// DWARF) and how many symbols they came from.
func symbolNames(path string, debugStr bool) (names []string, symbols int, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	for _, read := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, err := read()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			return nil, 0, fmt.Errorf("%s: %v", path, err)
		}
		for _, s := range syms {
			if s.Name != "" {
				names = append(names, s.Name)
				symbols++
			}
		}
	}
	if s := f.Section(".debug_str"); debugStr && s != nil {
		data, err := s.Data()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: .debug_str: %v", path, err)
		}
		for _, b := range bytes.Split(data, []byte{0}) {
			if bytes.HasPrefix(b, []byte("_Z")) {
				names = append(names, string(b))
			}
		}
	}
	return names, symbols, nil
}

// cxxfiltWord reports whether llvm-cxxfilt reads name as one word (it
// splits its input on every character that cannot occur in a mangled
// name) and treats it as llvm-symbolizer does: llvm-cxxfilt alone
// demangles "__imp_" import thunks.
func cxxfiltWord(name string) bool {
	if strings.HasPrefix(name, "__imp_") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$') {
			return false
		}
	}
	return name != ""
}

// cxxfilt demangles names with one llvm-cxxfilt process, in batches.
func cxxfilt(t *testing.T, tool string, names []string) []string {
	const batch = 50000
	var out []string
	for i := 0; i < len(names); i += batch {
		chunk := names[i:min(i+batch, len(names))]
		cmd := exec.Command(tool)
		cmd.Stdin = strings.NewReader(strings.Join(chunk, "\n") + "\n")
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != len(chunk) {
			t.Fatalf("%s returned %d lines for %d names", tool, len(lines), len(chunk))
		}
		out = append(out, lines...)
	}
	return out
}

// inSample is the CI sample: every mangled name Name leaves as it is (the
// names LLVM must leave mangled too, rare and the point of the test) and
// one name in eight of the others, chosen by a hash of the name.
func inSample(name, got string) bool {
	if got == name && itaniumEncoding(name) {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()%8 == 0
}

// TestNameCorpus compares Name with llvm-cxxfilt-22 on the corpus.
func TestNameCorpus(t *testing.T) {
	full := *corpusMode == "full"
	if !full && *corpusMode != "sample" {
		t.Fatalf("-demangle.corpus=%q: want sample or full", *corpusMode)
	}
	tool := testenv.Tool(t, "llvm-cxxfilt-22")
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	if p := os.Getenv("ELFSYM_LARGE"); p != "" { // testdata/bigcxx, built by .ci/test
		files = append(files, p)
	}
	seen := map[string]bool{}
	var names []string
	symbols := 0
	for _, f := range files {
		ns, n, err := symbolNames(f, f == os.Getenv("ELFSYM_LARGE"))
		if err != nil {
			t.Fatal(err)
		}
		symbols += n
		for _, s := range ns {
			if !seen[s] {
				seen[s] = true
				names = append(names, s)
			}
		}
	}
	slices.Sort(names)
	skipped := 0
	var cmp, got []string
	for _, n := range names {
		if !cxxfiltWord(n) {
			skipped++
			continue
		}
		g := Name(n)
		if full || inSample(n, g) {
			cmp = append(cmp, n)
			got = append(got, g)
		}
	}
	want := cxxfilt(t, tool, cmp)
	differ, mangled := 0, 0
	for i, n := range cmp {
		if want[i] == n && itaniumEncoding(n) {
			mangled++
		}
		if got[i] != want[i] {
			differ++
			if differ <= 20 {
				t.Errorf("Name(%q)\n got %q\nwant %q (llvm-cxxfilt-22)", n, got[i], want[i])
			}
		}
	}
	fmt.Printf("demangle corpus (%s): %d files, %d symbols, %d distinct names, %d compared with llvm-cxxfilt-22 (%d of them mangled names LLVM leaves as they are), %d differ; %d names skipped (not one llvm-cxxfilt word)\n",
		*corpusMode, len(files), symbols, len(names), len(cmp), mangled, differ, skipped)
	if differ > 0 {
		t.Errorf("%d of %d names differ from llvm-cxxfilt-22", differ, len(cmp))
	}
}

// TestNameSymbolizer checks that the comparison above is what
// llvm-symbolizer prints too: for function symbols of libstdc++ and
// libLLVM (22) at addresses no other function symbol shares, the function
// line llvm-symbolizer-22 prints from the symbol table is Name(symbol) —
// for every symbol Name leaves mangled and one in sixteen of the others
// (all of them with -demangle.corpus=full).
func TestNameSymbolizer(t *testing.T) {
	sym := testenv.Tool(t, "llvm-symbolizer-22")
	full := *corpusMode == "full"
	var libs []string
	for _, l := range strings.Split(testenv.ToolOutput(t, "ldd", testenv.Tool(t, "clang-22")), "\n") {
		lib, path, ok := strings.Cut(strings.TrimSpace(l), " => ")
		if ok && (strings.HasPrefix(lib, "libstdc++") || strings.HasPrefix(lib, "libLLVM")) {
			path, _, _ = strings.Cut(path, " (")
			libs = append(libs, path)
		}
	}
	if len(libs) != 2 {
		testenv.Missing(t, "clang-22 does not link libstdc++ and a shared libLLVM (ldd): %q", libs)
	}
	compared, mangled := 0, 0
	for _, lib := range libs {
		addrs, names := functionSymbols(t, lib)
		var in strings.Builder
		var want []string
		for i, a := range addrs {
			n := Name(names[i])
			h := fnv.New32a()
			h.Write([]byte(names[i]))
			if !full && n != names[i] && h.Sum32()%16 != 0 || !cxxfiltWord(names[i]) {
				continue
			}
			if n == names[i] && itaniumEncoding(n) {
				mangled++
			}
			fmt.Fprintf(&in, "0x%x\n", a)
			want = append(want, n)
		}
		cmd := exec.Command(sym, "--obj="+lib, "--functions=linkage", "--no-inlines")
		cmd.Stdin = strings.NewReader(in.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("llvm-symbolizer-22 --obj=%s: %v", lib, err)
		}
		// Each answer is "function\nfile:line:col\n\n".
		recs := strings.Split(strings.TrimSuffix(string(out), "\n\n"), "\n\n")
		if len(recs) != len(want) {
			t.Fatalf("llvm-symbolizer-22: %d answers for %d addresses", len(recs), len(want))
		}
		for i, r := range recs {
			fn, _, _ := strings.Cut(r, "\n")
			compared++
			if fn != want[i] {
				t.Errorf("%s: llvm-symbolizer-22 prints %q, Name gives %q", lib, fn, want[i])
			}
		}
	}
	fmt.Printf("demangle symbolizer (%s): %d function names compared with llvm-symbolizer-22 (%d of them left mangled)\n", *corpusMode, compared, mangled)
}

// functionSymbols returns the defined function symbols of path whose
// address no other function symbol has, sorted by address.
func functionSymbols(t *testing.T, path string) ([]uint64, []string) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var syms []elf.Symbol
	for _, read := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		s, err := read()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			t.Fatal(err)
		}
		syms = append(syms, s...)
	}
	byAddr := map[uint64][]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Value != 0 && s.Size != 0 {
			if !slices.Contains(byAddr[s.Value], s.Name) {
				byAddr[s.Value] = append(byAddr[s.Value], s.Name)
			}
		}
	}
	var addrs []uint64
	for a, ns := range byAddr {
		if len(ns) == 1 {
			addrs = append(addrs, a)
		}
	}
	slices.Sort(addrs)
	names := make([]string, len(addrs))
	for i, a := range addrs {
		names[i] = byAddr[a][0]
	}
	return addrs, names
}
