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
	a := Cached(t, "fx", []string{"v1"}, build)
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

func TestScript(t *testing.T) {
	t.Setenv("RULES_PGO_TEST_CACHE", t.TempDir())
	src := t.TempDir()
	script := filepath.Join(src, "gen.sh")
	write := func(body string) {
		if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`echo "$2" > "$1/out"`)
	a := Script(t, "sc", []string{"bash"}, script, "x")
	if b, err := os.ReadFile(filepath.Join(a, "out")); err != nil || string(b) != "x\n" {
		t.Fatalf("out = %q, %v", b, err)
	}
	if b := Script(t, "sc", []string{"bash"}, script, "x"); b != a {
		t.Errorf("same script and args: %s, then %s", a, b)
	}
	write(`echo "$2$2" > "$1/out"`)
	if c := Script(t, "sc", []string{"bash"}, script, "x"); c == a {
		t.Errorf("a changed script reused %s", a)
	}
}
