// Package internal_test holds the checks of how the project's packages may
// import one another (the layers of DEVELOPERS.md).
package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// graph returns, for each package of the module (by its path inside the
// module, "internal/memprof"), the imports of its non-test Go files:
// project packages by their path inside the module, others as written.
// Every file counts, whatever its build constraints.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	prefix := string(m[1]) + "/"
	g := map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != ".." && (name == "testdata" || name == "out" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "bazel-")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		for _, is := range f.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			g[pkg] = append(g[pkg], strings.TrimPrefix(p, prefix))
		}
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// deps returns every package pkg imports, directly or not.
func deps(g map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, q := range g[p] {
			if !seen[q] {
				seen[q] = true
				walk(q)
			}
		}
	}
	walk(pkg)
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestLayering: the import rules the layers keep.
func TestLayering(t *testing.T) {
	g := graph(t)
	for _, p := range []string{"internal/memprof", "internal/sampleprof", "internal/instrprof", "internal/instrprof/memprofidx", "internal/instrprof/container", "internal/perfscript", "internal/perfdata", "internal/pseudoprobe", "internal/llvmname", "internal/stdunordered"} {
		if _, ok := g[p]; !ok {
			t.Fatalf("package %s not found: the rules below need updating", p)
		}
	}
	formats := []string{"internal/memprof", "internal/sampleprof", "internal/instrprof", "internal/instrprof/memprofidx"}
	forbid := func(pkg string, banned []string, why string) {
		t.Helper()
		for _, d := range deps(g, pkg) {
			if slices.Contains(banned, d) {
				t.Errorf("%s imports %s (directly or not): %s", pkg, d, why)
			}
		}
	}
	// Trace readers read traces and binaries; the profile formats are
	// written from what they read, never the other way round.
	for _, p := range []string{"internal/perfscript", "internal/pseudoprobe", "internal/perfdata"} {
		forbid(p, formats, "a trace reader imports no profile format")
	}
	// perfdatatest writes perf.data for tests only: the product reads
	// perf.data, it never writes one.
	for _, p := range slices.Sorted(maps.Keys(g)) {
		if slices.Contains(g[p], "internal/perfdata/perfdatatest") {
			t.Errorf("%s imports internal/perfdata/perfdatatest, the tests' perf.data writer", p)
		}
	}
	forbid("internal/sampleprof", []string{"internal/memprof", "internal/instrprof", "internal/instrprof/memprofidx"}, "sample profiles share nothing with MemProf or instrumented profiles but internal/llvmname")
	// container is the IndexedInstrProf container (the writer's output,
	// OnDiskChainedHashTable sections written and read back, section
	// offsets): it knows no section's contents, neither MemProf nor
	// function records.
	forbid("internal/instrprof/container", []string{"internal/memprof", "internal/instrprof", "internal/instrprof/memprofidx", "internal/instrprof/instrproftest", "internal/profmerge"}, "container is the layer under instrprof's function records and memprofidx's MemProf section")
	// memprofidx is MemProf's indexed form (ids, dense index, radix tree,
	// MIBs) and its section of the indexed file, laid out and read back in
	// the container's terms: instrprof places the section in the file. It
	// sits below instrprof and knows neither its header nor its function
	// records.
	forbid("internal/instrprof/memprofidx", []string{"internal/instrprof", "internal/instrprof/instrproftest", "internal/profmerge"}, "memprofidx is the MemProf layer under instrprof's header and function records")
	// llvmname (names and their hashes) and stdunordered (libstdc++'s
	// unordered_map) are LLVM facts every layer may use: they import no
	// project package but internal/llvmrelease (which imports none).
	for _, p := range []string{"internal/llvmname", "internal/stdunordered", "internal/llvmrelease"} {
		for _, d := range g[p] {
			if (strings.HasPrefix(d, "internal/") || strings.HasPrefix(d, "tools/")) && d != "internal/llvmrelease" {
				t.Errorf("%s imports %s: it must import no project package but internal/llvmrelease", p, d)
			}
		}
	}
	// One reader of the profiled binary: internal/elfsym opens and parses
	// ELF files and reads DWARF; internal/profbinary builds a run's
	// profiled binary from one elfsym open. No package reads DWARF with
	// the standard library, and only those two import debug/elf: the
	// others see sections, symbols and segments in profbinary's (and
	// elfsym's) terms (TestOneELFReader checks the files as well).
	for _, p := range slices.Sorted(maps.Keys(g)) {
		if slices.Contains(g[p], "debug/dwarf") {
			t.Errorf("%s imports debug/dwarf: DWARF is read by internal/elfsym (through internal/profbinary)", p)
		}
		if slices.Contains(g[p], "debug/elf") && p != "internal/elfsym" && p != "internal/profbinary" {
			t.Errorf("%s imports debug/elf: ELF files are read by internal/elfsym, a profiled binary through internal/profbinary", p)
		}
	}
	// profbinary sits between elfsym and its users: it imports no
	// profile format and none of its users.
	forbid("internal/profbinary", append(formats, "internal/perfscript", "internal/profgen", "internal/symbolizer", "internal/profmerge"), "profbinary is the layer under the trace reader, the generator, the symbolizer and merge")
	// merge (its views and --profiled-binary) reaches the binary through
	// profbinary only, never elfsym itself.
	for _, p := range []string{"internal/profmerge", "tools/merge"} {
		if slices.Contains(g[p], "internal/elfsym") {
			t.Errorf("%s imports internal/elfsym: merge opens the profiled binary through internal/profbinary", p)
		}
	}

	// One MD5-GUID implementation: llvmname.GUID. No other non-test file
	// hashes with MD5.
	for _, p := range slices.Sorted(maps.Keys(g)) {
		if p != "internal/llvmname" && slices.Contains(g[p], "crypto/md5") {
			t.Errorf("%s imports crypto/md5: LLVM's MD5 GUID is llvmname.GUID", p)
		}
	}
}

// TestOneELFReader: no non-test file outside internal/elfsym opens or
// parses an ELF file with debug/elf (elf.Open, elf.NewFile) or reads
// DWARF through it (.DWARF()).
func TestOneELFReader(t *testing.T) {
	re := regexp.MustCompile(`\belf\.(Open|NewFile)\(|\.DWARF\(\)`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != ".." && (name == "testdata" || name == "out" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "bazel-")) {
				return filepath.SkipDir
			}
			if path == "../internal/elfsym" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if re.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d: %s: ELF files are opened by internal/elfsym (a profiled binary through internal/profbinary)", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
