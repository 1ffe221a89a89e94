package demangle

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestNameCxx20 compares Name with llvm-cxxfilt-22 on every mangled name
// of testdata/cxx20.cc as clang++-22 -std=c++20 compiles it: what C++20
// code adds to the names of the corpus libraries (type constraints,
// requires clauses and expressions, hidden friends, fold and new
// expressions, floating-point template arguments, ranges, lambdas with
// template parameters), and of testdata/module.cppm (module names).
func TestNameCxx20(t *testing.T) {
	tool := testenv.Tool(t, "llvm-cxxfilt-22")
	names := cxx20Names(t)
	want := cxxfilt(t, tool, names)
	mangled := 0
	for i, n := range names {
		if want[i] == n {
			mangled++
		}
		if got := Name(n); got != want[i] {
			t.Errorf("Name(%q)\n got %q\nwant %q (llvm-cxxfilt-22)", n, got, want[i])
		}
	}
	t.Logf("%d C++20 names compared with llvm-cxxfilt-22 (%d left mangled by LLVM)", len(names), mangled)
	if len(names) < 300 {
		t.Errorf("only %d mangled names in cxx20.o", len(names))
	}
}

// cxx20Names returns the sorted distinct mangled names of cxx20.o and
// module.o.
func cxx20Names(t *testing.T) []string {
	testenv.Tool(t, "clang++-22")
	dir := testenv.Script{
		Key:     "demangle-cxx20",
		Dir:     "testdata",
		Sources: []string{"cxx20.sh", "cxx20.cc", "module.cppm"},
		Tools:   []string{"clang++-22"},
	}.Build(t)
	var names []string
	for _, obj := range []string{"cxx20.o", "module.o"} {
		all, _, err := symbolNames(filepath.Join(dir, obj), false)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range all {
			if strings.HasPrefix(n, "_Z") {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
