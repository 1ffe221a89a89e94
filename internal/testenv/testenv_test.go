package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// TestCachedWaitsForOtherBuilder: while another process holds a fixture's
// lock (building it), Cached waits and then takes what it built.
func TestCachedWaitsForOtherBuilder(t *testing.T) {
	root := t.TempDir()
	t.Setenv("RULES_PGO_TEST_CACHE", root)
	name := "other-0123456789abcdef"
	if err := os.MkdirAll(filepath.Join(root, ".locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockFile(filepath.Join(root, ".locks", name))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan result)
	built := false
	go func() {
		done <- buildCached(name, func(dir string) error { built = true; return nil })
	}()
	select {
	case r := <-done:
		t.Fatalf("buildCached returned %+v while the lock was held", r)
	case <-time.After(200 * time.Millisecond):
	}
	if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock()
	if r := <-done; r.err != nil || r.dir != filepath.Join(root, name) || built {
		t.Errorf("after the other builder: %+v, built again %v; want its directory", r, built)
	}
}
