package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCached(t *testing.T) {
	t.Setenv("RULES_PGO_TEST_CACHE", t.TempDir())
	builds := 0
	build := func(dir string) error {
		builds++
		return os.WriteFile(filepath.Join(dir, "out"), []byte("x"), 0o644)
	}
	var final string
	a := Cached(t, "fx", []string{"v1"}, func(dir string) error {
		final = FinalDir(dir)
		return build(dir)
	})
	if final != a {
		t.Errorf("FinalDir = %s, want %s", final, a)
	}
	b := Cached(t, "fx", []string{"v1"}, build)
	c := Cached(t, "fx", []string{"v2"}, build)
	if a != b || a == c || builds != 2 {
		t.Errorf("dirs %s %s %s after %d builds; want the first two equal and 2 builds", a, b, c, builds)
	}
	if _, err := os.Stat(filepath.Join(a, "out")); err != nil {
		t.Error(err)
	}
	// A failed build leaves nothing behind.
	r := buildCached("bad", func(string) error { return errors.New("no") })
	if r.err == nil {
		t.Error("a failed build returned no error")
	}
	root, _ := CacheRoot()
	if m, _ := filepath.Glob(filepath.Join(root, "bad*")); len(m) != 0 {
		t.Errorf("a failed build left %v", m)
	}
}
