package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Script is a fixture directory that a bash script of testdata/ fills
// (`bash SCRIPT OUTDIR ARGS...`), built once through Cached.
type Script struct {
	Key string // the Cached key
	Dir string // the directory holding the script and its sources
	// Sources are the files the fixtures depend on, the script first; they
	// are copied into OUTDIR/src and the script runs from there, so the
	// outputs name no checkout.
	Sources []string
	Args    []string // after OUTDIR
	// Tools are the programs whose `--version` (or "missing") keys the
	// cache, besides the sources and the arguments.
	Tools []string
	// AtFinalPath runs the copied script through the path the directory
	// will have once built (a symbolic link while it builds), for outputs
	// that record their sources' path (PGO names of static functions).
	AtFinalPath bool
}

// Build returns the fixture directory, building it on first use.
func (s Script) Build(t testing.TB) string {
	t.Helper()
	Tool(t, "bash")
	inputs := []string{"bash " + s.Sources[0] + " OUTDIR " + strings.Join(s.Args, " ")}
	for _, name := range s.Sources {
		data, err := os.ReadFile(filepath.Join(s.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, name, string(data))
	}
	for _, tool := range s.Tools {
		v := "missing"
		if _, err := exec.LookPath(tool); err == nil {
			v = Version(t, tool)
		}
		inputs = append(inputs, tool, v)
	}
	return Cached(t, s.Key, inputs, func(dir string) error {
		srcDir := filepath.Join(dir, "src")
		if err := os.Mkdir(srcDir, 0o755); err != nil {
			return err
		}
		for i, name := range s.Sources {
			if err := os.WriteFile(filepath.Join(srcDir, name), []byte(inputs[2+2*i]), 0o644); err != nil {
				return err
			}
		}
		script := filepath.Join(srcDir, s.Sources[0])
		if s.AtFinalPath {
			final := FinalDir(dir)
			if err := os.Symlink(filepath.Base(dir), final); err != nil {
				return fmt.Errorf("link %s: %v", final, err)
			}
			defer os.Remove(final)
			script = filepath.Join(final, "src", s.Sources[0])
		}
		out, err := exec.Command("bash", append([]string{script, dir}, s.Args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", s.Sources[0], err, out)
		}
		return nil
	})
}

// FixtureFile returns dir/name, failing under CI=true and skipping
// otherwise when the script did not build it (its compiler is missing).
func FixtureFile(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "fixture %s not built (compiler missing?): %v", name, err)
	}
	return p
}
