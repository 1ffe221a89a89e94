package demangle

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// corpus is one set of mangled names with llvm-cxxfilt-19's rendering.
type corpus struct {
	name    string
	mangled []string
	want    []string
}

// loadCorpus returns the corpus for src: its mangled names (from llvm-nm-19,
// or the .debug_str section for binaries with DWARF) with llvm-cxxfilt-19's
// rendering, built once and cached by testenv.Cached (keyed by the file's
// path, size and time and the tools' version).
func loadCorpus(t *testing.T, name, src string, fromDebugStr bool) *corpus {
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	nm := testenv.Tool(t, "llvm-nm-19")
	cxxfilt := testenv.Tool(t, "llvm-cxxfilt-19")
	objcopy := testenv.Tool(t, "llvm-objcopy-19")
	inputs := []string{src, fmt.Sprint(fi.Size(), fi.ModTime().UnixNano(), fromDebugStr), testenv.Version(t, "llvm-cxxfilt-19")}
	dir := testenv.Cached(t, "demangle-corpus-"+name, inputs, func(dir string) error {
		tsv, err := buildCorpus(nm, cxxfilt, objcopy, src, fromDebugStr, dir)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "corpus.tsv"), tsv, 0o644)
	})
	data, err := os.ReadFile(filepath.Join(dir, "corpus.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return parseCorpus(name, data)
}

// buildCorpus lists src's mangled names and demangles them with
// llvm-cxxfilt-19, returning "mangled\tdemangled" lines.
func buildCorpus(nm, cxxfilt, objcopy, src string, fromDebugStr bool, tmpDir string) ([]byte, error) {
	var names []string
	if fromDebugStr {
		tmp := filepath.Join(tmpDir, "debug_str")
		if out, err := exec.Command(objcopy, "--dump-section=.debug_str="+tmp, src, filepath.Join(tmpDir, "junk")).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: dumping .debug_str: %v\n%s", src, err, out)
		}
		data, err := os.ReadFile(tmp)
		if err != nil {
			return nil, err
		}
		os.Remove(tmp)
		os.Remove(filepath.Join(tmpDir, "junk"))
		for _, s := range bytes.Split(data, []byte{0}) {
			if bytes.HasPrefix(s, []byte("_Z")) {
				names = append(names, string(s))
			}
		}
	}
	out, err := exec.Command(nm, "-D", "--defined-only", "--format=just-symbols", src).Output()
	if err != nil || fromDebugStr {
		if out2, err2 := exec.Command(nm, "--defined-only", "--format=just-symbols", src).Output(); err2 == nil {
			out = append(out, out2...)
		} else if err != nil {
			return nil, fmt.Errorf("llvm-nm-19 %s: %v", src, err)
		}
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "_Z") {
			l, _, _ = strings.Cut(l, "@") // symbol version
			names = append(names, l)
		}
	}
	sort.Strings(names)
	names = dedupe(names)
	cmd := exec.Command(cxxfilt)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	dem, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("llvm-cxxfilt-19: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(dem), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, fmt.Errorf("llvm-cxxfilt-19 returned %d lines for %d names", len(lines), len(names))
	}
	var b bytes.Buffer
	for i := range names {
		b.WriteString(names[i])
		b.WriteByte('\t')
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func parseCorpus(name string, data []byte) *corpus {
	c := &corpus{name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		m, d, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		c.mangled = append(c.mangled, m)
		c.want = append(c.want, d)
	}
	return c
}

// TestCorpus is the differential test: for every mangled symbol of
// libLLVM, libstdc++ and (when built) the bigcxx benchmark binary,
// Demangle must return exactly llvm-cxxfilt-19's text or report ok=false.
func TestCorpus(t *testing.T) {
	sources := []struct {
		name     string
		path     func(t *testing.T) string
		debugStr bool
		minCover float64
	}{
		{"libLLVM", libLLVM19, false, 0.98},
		{"libstdc++", libstdcxx, false, 0},
		{"bigcxx", bigcxx, true, 0},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			path := src.path(t)
			c := loadCorpus(t, src.name, path, src.debugStr)
			if c == nil {
				testenv.Missing(t, "%s: %s missing", src.name, path)
			}
			okN, wrong := 0, 0
			for i, m := range c.mangled {
				got, ok := Demangle(m)
				if !ok {
					continue
				}
				okN++
				if got != c.want[i] {
					wrong++
					if wrong <= 20 {
						t.Errorf("Demangle(%q)\n got %q\nwant %q", m, got, c.want[i])
					}
				}
			}
			cover := float64(okN) / float64(len(c.mangled))
			t.Logf("%s: %d names, %d demangled (coverage %.2f%%), %d wrong", c.name, len(c.mangled), okN, 100*cover, wrong)
			if wrong > 0 {
				t.Errorf("%s: %d names demangled differently from llvm-cxxfilt-19", c.name, wrong)
			}
			if cover < src.minCover {
				t.Errorf("%s: coverage %.2f%% < %.0f%%", c.name, 100*cover, 100*src.minCover)
			}
		})
	}
}

// libLLVM19 returns the shared libLLVM that llvm-nm-19 runs with, as the
// dynamic loader resolves it (ldd), so the test finds it wherever the
// distribution puts it (Debian 12: /usr/lib/x86_64-linux-gnu/libLLVM.so.19.1).
func libLLVM19(t *testing.T) string {
	nm, err := filepath.EvalSymlinks(testenv.Tool(t, "llvm-nm-19"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(testenv.ToolOutput(t, "ldd", nm), "\n") {
		lib, path, ok := strings.Cut(strings.TrimSpace(l), " => ")
		if ok && strings.HasPrefix(lib, "libLLVM") {
			path, _, _ = strings.Cut(path, " (")
			return path
		}
	}
	testenv.Missing(t, "%s does not link a shared libLLVM (ldd)", nm)
	return ""
}

// libstdcxx returns the libstdc++ clang++-19 links against.
func libstdcxx(t *testing.T) string {
	p := testenv.ToolOutput(t, "clang++-19", "-print-file-name=libstdc++.so")
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		testenv.Missing(t, "libstdc++ for clang++-19 (%s): %v", p, err)
	}
	return real
}

// bigcxx returns the large benchmark binary: $ELFSYM_LARGE (set by .ci/test,
// which builds it with testdata/bigcxx/build.sh).
func bigcxx(t *testing.T) string {
	p := os.Getenv("ELFSYM_LARGE")
	if p == "" {
		testenv.Missing(t, "ELFSYM_LARGE is not set: build the binary with testdata/bigcxx/build.sh OUTDIR and set ELFSYM_LARGE=OUTDIR/bigcxx")
	}
	return p
}
