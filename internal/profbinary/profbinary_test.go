package profbinary

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// source is a small C++ program: free functions, a class with methods
// (a declaration and an out-of-line definition), a template and a static
// function.
const source = `
#include <cstdio>
struct Shape {
  virtual ~Shape() {}
  virtual int area() const;
  int w = 3, h = 4;
};
int Shape::area() const { return w * h; }
template <typename T> T twice(T x) { return x + x; }
static int helper(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }
int main(int argc, char **argv) {
  Shape s;
  std::printf("%d %d %f\n", helper(argc * 10), s.area(), twice(1.5));
  return 0;
}
`

// build compiles source with clang++-22 at -O0 (every function out of
// line, a symbol at each start) with the debug flags given.
func build(t *testing.T, flags ...string) string {
	t.Helper()
	cc := testenv.Tool(t, "clang++-22")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.cc")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	cmd := exec.Command(cc, append([]string{"-O0", "-o", bin, src}, flags...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang++-22: %v\n%s", err, out)
	}
	return bin
}

// TestFunctions: the functions profbinary reads from the DWARF (the
// binary's own units, or the split units of a -gsplit-dwarf build) are
// those llvm-symbolizer-22 names at the text symbols llvm-nm-22 lists,
// start address and linkage name alike; LocationAt and FunctionByGUID
// answer as llvm-symbolizer does.
func TestFunctions(t *testing.T) {
	nm, sym := testenv.Tool(t, "llvm-nm-22"), testenv.Tool(t, "llvm-symbolizer-22")
	for _, v := range []struct {
		name  string
		flags []string
	}{
		{"dwarf5", []string{"-g"}},
		{"dwarf4", []string{"-gdwarf-4"}},
		{"split", []string{"-g", "-gsplit-dwarf"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			bin := build(t, v.flags...)
			b, err := Open(bin, Options{DWARFOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			subs, missing := b.Functions()
			if missing != 0 {
				t.Errorf("%d split units missing", missing)
			}
			got := map[uint64]string{}
			for _, s := range subs {
				if _, dup := got[s.Ranges[0][0]]; !dup {
					got[s.Ranges[0][0]] = s.Name
				}
			}
			// The text symbols, and what llvm-symbolizer names there.
			out, err := exec.Command(nm, "--defined-only", "--format=posix", bin).Output()
			if err != nil {
				t.Fatalf("llvm-nm-22: %v", err)
			}
			var addrs []uint64
			var req bytes.Buffer
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) < 3 || (f[1] != "T" && f[1] != "t" && f[1] != "W") {
					continue
				}
				a, err := strconv.ParseUint(f[2], 16, 64)
				if err != nil {
					t.Fatal(err)
				}
				addrs = append(addrs, a)
				fmt.Fprintf(&req, "0x%x\n", a)
			}
			cmd := exec.Command(sym, "--obj="+bin, "--functions=linkage", "--no-demangle", "--no-inlines", "--output-style=GNU")
			cmd.Stdin = &req
			res, err := cmd.Output()
			if err != nil {
				t.Fatalf("llvm-symbolizer-22: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(string(res)), "\n")
			if len(lines) != 2*len(addrs) {
				t.Fatalf("llvm-symbolizer-22 gave %d lines for %d addresses", len(lines), len(addrs))
			}
			named := 0
			for i, a := range addrs {
				want := lines[2*i]
				if want == "??" || strings.HasSuffix(lines[2*i+1], ":0") {
					continue // crt code: no DWARF function (the name is the symbol table's)
				}
				named++
				if got[a] != want {
					t.Errorf("function at %#x: got %q, llvm-symbolizer-22 %q", a, got[a], want)
				}
				loc, ok := b.LocationAt(a)
				file, line, _ := strings.Cut(lines[2*i+1], ":")
				if !ok || loc.Name != want || loc.File != file || strconv.Itoa(int(loc.Line)) != line {
					t.Errorf("LocationAt(%#x) = %+v, %v; llvm-symbolizer-22: %s %s", a, loc, ok, want, lines[2*i+1])
				}
				if f, ok := b.FunctionByGUID(llvmname.GUID(want)); !ok || f.Name != want {
					t.Errorf("FunctionByGUID(GUID(%s)) = %+v, %v", want, f, ok)
				}
			}
			if named < 6 || len(got) != named {
				t.Errorf("%d functions read, %d named by llvm-symbolizer-22 (want the same, at least 6)", len(got), named)
			}
		})
	}
}

// TestCheckAndMissing: the caller's words for a file that does not exist
// or is not an object file, before anything is parsed.
func TestCheckAndMissing(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello"), 0o644)
	opts := Options{
		Check: func(p string, head []byte) error {
			if !bytes.HasPrefix(head, []byte("\x7fELF")) {
				return fmt.Errorf("%s: not ELF (%q)", p, head)
			}
			return nil
		},
		NotExist: func(p, flag string) error { return fmt.Errorf("%s%s is missing", flag, p) },
	}
	if _, err := Open(text, opts); err == nil || err.Error() != text+`: not ELF ("hello")` {
		t.Errorf("text file: %v", err)
	}
	missing := filepath.Join(dir, "nope")
	if _, err := Open(missing, opts); err == nil || err.Error() != missing+" is missing" {
		t.Errorf("missing file: %v", err)
	}
	bin := build(t, "-g")
	opts.DebugBinary = missing
	if _, err := Open(bin, opts); err == nil || err.Error() != "--debug-binary"+missing+" is missing" {
		t.Errorf("missing debug binary: %v", err)
	}
}
