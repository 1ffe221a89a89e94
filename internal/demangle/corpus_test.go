package demangle

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// corpus is one set of mangled names with llvm-cxxfilt-19's rendering.
type corpus struct {
	name    string
	mangled []string
	want    []string
}

func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func needTool(t testing.TB, name string) string {
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found on PATH (required under CI=true)", name)
		}
		t.Skipf("SKIPPING: %s not found on PATH; install llvm-19 to run this test", name)
	}
	return path
}

// loadCorpus returns the cached corpus for src, building it with
// llvm-nm-19 (or the .debug_str section for binaries with DWARF) and
// llvm-cxxfilt-19 when the cache is missing or older than src.
func loadCorpus(t *testing.T, name, src string, fromDebugStr bool) *corpus {
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	cacheDir := filepath.Join(repoRoot(t), "out", "demangle-corpus")
	cache := filepath.Join(cacheDir, fmt.Sprintf("%s-%d-%d.tsv", name, fi.Size(), fi.ModTime().Unix()))
	if data, err := os.ReadFile(cache); err == nil {
		return parseCorpus(name, data)
	}
	nm := needTool(t, "llvm-nm-19")
	cxxfilt := needTool(t, "llvm-cxxfilt-19")
	var names []string
	if fromDebugStr {
		objcopy := needTool(t, "llvm-objcopy-19")
		tmp := filepath.Join(t.TempDir(), "debug_str")
		if out, err := exec.Command(objcopy, "--dump-section=.debug_str="+tmp, src, filepath.Join(t.TempDir(), "junk")).CombinedOutput(); err != nil {
			t.Fatalf("%s: dumping .debug_str: %v\n%s", src, err, out)
		}
		data, err := os.ReadFile(tmp)
		if err != nil {
			t.Fatal(err)
		}
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
			t.Fatalf("llvm-nm-19 %s: %v", src, err)
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
		t.Fatalf("llvm-cxxfilt-19: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(dem), "\n"), "\n")
	if len(lines) != len(names) {
		t.Fatalf("llvm-cxxfilt-19 returned %d lines for %d names", len(lines), len(names))
	}
	var b strings.Builder
	for i := range names {
		b.WriteString(names[i])
		b.WriteByte('\t')
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(cacheDir, 0o755); err == nil {
		_ = os.WriteFile(cache, []byte(b.String()), 0o644)
	}
	return parseCorpus(name, []byte(b.String()))
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
	root := repoRoot(t)
	sources := []struct {
		name, path string
		debugStr   bool
		minCover   float64
	}{
		{"libLLVM", "/usr/lib/llvm-19/lib/libLLVM.so.1", false, 0.98},
		{"libstdc++", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", false, 0},
		{"bigcxx", filepath.Join(root, "out", "bench-symbolize", "bigcxx", "bigcxx"), true, 0},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			c := loadCorpus(t, src.name, src.path, src.debugStr)
			if c == nil {
				if src.name == "bigcxx" {
					t.Skipf("SKIPPING: %s not built (run bench/symbolize/run.sh)", src.path)
				}
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s missing", src.path)
				}
				t.Skipf("SKIPPING: %s missing", src.path)
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
