// Package memproftest builds the MemProf test programs of
// testdata/memprof/gen.sh once for every test package that needs them.
package memproftest

import (
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Fixtures returns the directory testdata/memprof/gen.sh filled for the
// given LLVM releases (default the supported ones; see gen.sh for its files),
// building it through testenv.Cached, keyed by the script, the sources,
// the releases and the versions of the compilers and linker. gen.sh skips
// a release whose clang++ is missing; Fixture reports such files missing.
func Fixtures(t testing.TB, releases ...int) string {
	t.Helper()
	if len(releases) == 0 {
		releases = llvmrelease.Majors()
	}
	_, here, _, _ := runtime.Caller(0)
	s := testenv.Script{
		Key:     "memprof-fixtures",
		Dir:     filepath.Join(filepath.Dir(here), "../../../testdata/memprof"),
		Sources: []string{"gen.sh", "app.cc", "many.cc", "hist.cc"},
		Tools:   []string{"ld.lld-19"},
	}
	for _, r := range releases {
		s.Args = append(s.Args, strconv.Itoa(r))
		s.Tools = append(s.Tools, "clang++-"+strconv.Itoa(r))
	}
	return s.Build(t)
}

// Fixture returns the path of one file of Fixtures(t), failing under
// CI=true and skipping otherwise when gen.sh did not build it (its
// compiler is missing).
func Fixture(t testing.TB, name string, releases ...int) string {
	t.Helper()
	return testenv.FixtureFile(t, Fixtures(t, releases...), name)
}
