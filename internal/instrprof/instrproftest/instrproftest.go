// Package instrproftest builds the instrumented-profile test programs of
// testdata/instrprof/gen.sh once for every test package that needs them.
package instrproftest

import (
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Releases are the LLVM releases whose runtimes the fixtures cover: the
// supported ones.
var Releases = llvmrelease.Majors()

// Modes returns gen.sh's instrumentation modes for a release.
func Modes(release llvmrelease.Release) []string {
	m := []string{"ir", "fe", "irnc", "novp", "cov", "entry", "cs"}
	if release.ClangHasMCDC() {
		m = append(m, "mcdc", "temporal", "sbc", "vtable")
	}
	return m
}

// Fixtures returns the directory testdata/instrprof/gen.sh filled for the
// given LLVM releases (default Releases; see gen.sh for its files), built
// through testenv.Cached, keyed by the script, the sources, the releases
// and the compilers' and linker's versions (llvm-profdata-N, which the cs
// mode uses, comes with clang-N). The sources are compiled at the fixture
// directory's final path: static functions' PGO names hold the source
// path, so they name no checkout and stay the same once built.
func Fixtures(t testing.TB, releases ...int) string {
	t.Helper()
	return build(t, "instrprof-fixtures", []string{"gen.sh", "app.c", "lib.c", "shapes.cc"}, []string{"ld.lld-19"}, true, releases)
}

// build runs testdata/instrprof/SOURCES[0] through testenv.Cached for the
// releases (default Releases), keyed as Fixtures says; withCXX adds
// clang++-N to the tools.
func build(t testing.TB, key string, sources, tools []string, withCXX bool, releases []int) string {
	t.Helper()
	if len(releases) == 0 {
		releases = Releases
	}
	_, here, _, _ := runtime.Caller(0)
	s := testenv.Script{
		Key:         key,
		Dir:         filepath.Join(filepath.Dir(here), "../../../testdata/instrprof"),
		Sources:     sources,
		Tools:       tools,
		AtFinalPath: true,
	}
	for _, r := range releases {
		v := strconv.Itoa(r)
		s.Args = append(s.Args, v)
		s.Tools = append(s.Tools, "clang-"+v)
		if withCXX {
			s.Tools = append(s.Tools, "clang++-"+v)
		}
	}
	return s.Build(t)
}

// Fixture returns the path of one file of Fixtures(t), failing under
// CI=true and skipping otherwise when gen.sh did not build it.
func Fixture(t testing.TB, name string, releases ...int) string {
	t.Helper()
	return testenv.FixtureFile(t, Fixtures(t, releases...), name)
}

// Extra returns the directory testdata/instrprof/gen-extra.sh filled for
// the given LLVM releases (default Releases): the shared-library programs
// appso (C) and appsoxx (C++) and the temporal program order (see gen-extra.sh for its files),
// built through testenv.Cached as Fixtures are.
func Extra(t testing.TB, releases ...int) string {
	t.Helper()
	return build(t, "instrprof-extra", []string{"gen-extra.sh", "appso.c", "so.c", "appsoxx.cc", "soxx.cc", "order.c"}, nil, true, releases)
}
