// Package instrproftest builds the instrumented-profile test programs of
// testdata/instrprof/gen.sh once for every test package that needs them.
package instrproftest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// sources are gen.sh and what it compiles, in testdata/instrprof.
var sources = []string{"gen.sh", "app.c", "lib.c", "shapes.cc"}

// Releases are the LLVM releases whose runtimes the fixtures cover.
var Releases = []int{16, 19, 22}

// Modes returns gen.sh's instrumentation modes for a release.
func Modes(release int) []string {
	m := []string{"ir", "fe", "irnc", "novp", "cov", "entry", "cs"}
	if release >= 19 {
		m = append(m, "mcdc", "temporal", "sbc", "vtable")
	}
	return m
}

// Fixtures returns the directory testdata/instrprof/gen.sh filled for the
// given LLVM releases (default Releases; see gen.sh for its files),
// building it through testenv.Cached, keyed by the script, the sources,
// the releases and the compilers' versions. The sources are compiled from
// a copy inside the fixture directory, so the function names of static
// functions (which embed the source path) name no checkout.
func Fixtures(t testing.TB, releases ...int) string {
	t.Helper()
	if len(releases) == 0 {
		releases = Releases
	}
	testenv.Tool(t, "bash")
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "../../../testdata/instrprof")
	var rel []string
	for _, r := range releases {
		rel = append(rel, strconv.Itoa(r))
	}
	inputs := []string{"bash gen.sh OUTDIR " + strings.Join(rel, " ")}
	for _, name := range sources {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, name, string(data))
	}
	for _, r := range rel {
		// llvm-profdata-N (the cs mode) comes with clang-N: its version is clang's.
		for _, tool := range []string{"clang-" + r, "clang++-" + r} {
			v := "missing"
			if _, err := exec.LookPath(tool); err == nil {
				v = testenv.Version(t, tool)
			}
			inputs = append(inputs, tool, v)
		}
	}
	return testenv.Cached(t, "instrprof-fixtures", inputs, func(dir string) error {
		// Compile from the directory's final name: the static functions'
		// PGO names hold the source path.
		final := testenv.FinalDir(dir)
		srcDir := filepath.Join(dir, "src")
		if err := os.Mkdir(srcDir, 0o755); err != nil {
			return err
		}
		for i, name := range sources {
			if err := os.WriteFile(filepath.Join(srcDir, name), []byte(inputs[2+2*i]), 0o644); err != nil {
				return err
			}
		}
		// gen.sh takes the sources next to itself: link the final
		// directory's name to the temporary one while it runs.
		if err := os.Symlink(filepath.Base(dir), final); err != nil {
			return fmt.Errorf("link %s: %v", final, err)
		}
		defer os.Remove(final)
		cmd := exec.Command("bash", append([]string{filepath.Join(final, "src", "gen.sh"), dir}, rel...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("gen.sh: %v\n%s", err, out)
		}
		return nil
	})
}

// Fixture returns the path of one file of Fixtures(t), failing under
// CI=true and skipping otherwise when gen.sh did not build it.
func Fixture(t testing.TB, name string, releases ...int) string {
	t.Helper()
	p := filepath.Join(Fixtures(t, releases...), name)
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "fixture %s not built (compiler missing?): %v", name, err)
	}
	return p
}
