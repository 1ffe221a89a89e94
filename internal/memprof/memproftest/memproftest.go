// Package memproftest builds the MemProf test programs of
// testdata/memprof/gen.sh once for every test package that needs them.
package memproftest

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

// sources are gen.sh and what it compiles, in testdata/memprof.
var sources = []string{"gen.sh", "app.cc", "many.cc", "hist.cc"}

// Fixtures returns the directory testdata/memprof/gen.sh filled for the
// given LLVM releases (default 16, 19 and 22; see gen.sh for its files),
// building it through testenv.Cached, keyed by the script, the sources,
// the releases and the versions of the compilers and linker. gen.sh skips
// a release whose clang++ is missing; Fixture reports such files missing.
func Fixtures(t testing.TB, releases ...int) string {
	t.Helper()
	if len(releases) == 0 {
		releases = []int{16, 19, 22}
	}
	testenv.Tool(t, "bash")
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "../../../testdata/memprof")
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
	tools := []string{"ld.lld-19"}
	for _, r := range rel {
		tools = append(tools, "clang++-"+r)
	}
	for _, tool := range tools {
		v := "missing"
		if _, err := exec.LookPath(tool); err == nil {
			v = testenv.Version(t, tool)
		}
		inputs = append(inputs, tool, v)
	}
	return testenv.Cached(t, "memprof-fixtures", inputs, func(dir string) error {
		// The sources are copied next to the outputs, so the binaries'
		// debug info names no checkout.
		srcDir := filepath.Join(dir, "src")
		if err := os.Mkdir(srcDir, 0o755); err != nil {
			return err
		}
		for i, name := range sources {
			if err := os.WriteFile(filepath.Join(srcDir, name), []byte(inputs[2+2*i]), 0o644); err != nil {
				return err
			}
		}
		out, err := exec.Command("bash", append([]string{filepath.Join(srcDir, "gen.sh"), dir}, rel...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("gen.sh: %v\n%s", err, out)
		}
		return nil
	})
}

// Fixture returns the path of one file of Fixtures(t), failing under
// CI=true and skipping otherwise when gen.sh did not build it (its
// compiler is missing).
func Fixture(t testing.TB, name string, releases ...int) string {
	t.Helper()
	p := filepath.Join(Fixtures(t, releases...), name)
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "fixture %s not built (compiler missing?): %v", name, err)
	}
	return p
}
