// Package testenv is what the tests of rules_pgo share: finding the LLVM
// tools they compare against, and building fixtures once.
//
// A test that needs a tool calls Tool. Outside CI a missing tool skips the
// test with a loud message; under CI=true (what .ci/test sets) it fails, so
// a machine without the tools can never pass CI by skipping.
//
// Fixtures built with the real compilers go through Cached: a directory
// keyed by a hash of everything that determines its contents, built once
// and shared by every test package of a `go test ./...` run.
package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// InCI reports whether missing tools must fail tests (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Tool returns the path of the named program on PATH. When it is missing
// the test fails under CI=true and is skipped, loudly, otherwise.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not found on PATH (bash .ci/install installs it)", name)
	}
	return p
}

// Missing fails the test under CI=true and skips it otherwise: for a
// prerequisite of the machine (a tool, a system library) that is absent.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s; required under CI=true", msg)
	}
	t.Skipf("SKIP: %s", msg)
}

// ToolOutput runs a tool and returns its standard output, trimmed: for
// questions such as `llvm-config-19 --libdir`.
func ToolOutput(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(Tool(t, name), args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// SharedFile returns the path of rel in the project's shared directory:
// $RULES_PGO_SHARED when set, else ../shared beside the checkout (where
// developers and CI have it), else /work/shared (this workplace's, as
// e2e/lib.sh falls back to it: a clone elsewhere still finds it). A
// missing file fails under CI=true and skips otherwise.
func SharedFile(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv("RULES_PGO_SHARED")
	if dir == "" {
		_, here, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(here), "..", "..", "..", "shared")
		if _, err := os.Stat(dir); err != nil {
			dir = "/work/shared"
		}
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "%s not found (the shared directory belongs beside the checkout, or set RULES_PGO_SHARED)", p)
	}
	return p
}

// CacheRoot is where Cached keeps fixtures: $RULES_PGO_TEST_CACHE when set
// (.ci/test points it at a fresh directory), else the user's cache
// directory.
func CacheRoot() (string, error) {
	if d := os.Getenv("RULES_PGO_TEST_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "rules_pgo-test"), nil
}

var (
	cacheMu   sync.Mutex
	cacheDone = map[string]result{}
)

type result struct {
	dir string
	err error
}

// Cached returns a directory that build filled, building it on first use.
// key names the fixture; inputs are everything its contents depend on
// (sources, commands, tool versions): the directory is named by their
// hash, so a change rebuilds it and an unchanged one is reused, across test
// packages and runs. build gets an empty temporary directory that becomes
// the cached one only when build succeeds, so no half-built fixture is ever
// seen. A failure is reported to every caller in this process.
func Cached(t testing.TB, key string, inputs []string, build func(dir string) error) string {
	t.Helper()
	h := sha256.New()
	for _, in := range append([]string{key}, inputs...) {
		fmt.Fprintf(h, "%d:%s", len(in), in)
	}
	name := key + "-" + hex.EncodeToString(h.Sum(nil))[:16]
	cacheMu.Lock()
	defer cacheMu.Unlock()
	r, ok := cacheDone[name]
	if !ok {
		r = buildCached(name, build)
		cacheDone[name] = r
	}
	if r.err != nil {
		t.Fatalf("building fixture %s: %v", key, r.err)
	}
	return r.dir
}

// FinalDir returns the directory that the temporary directory Cached hands
// to build becomes: for builds whose outputs record where they live (the
// compilation directory of split DWARF, for one).
func FinalDir(tmp string) string {
	name, _, _ := strings.Cut(filepath.Base(tmp), ".tmp-")
	return filepath.Join(filepath.Dir(tmp), name)
}

func buildCached(name string, build func(dir string) error) result {
	root, err := CacheRoot()
	if err != nil {
		return result{err: err}
	}
	dir := filepath.Join(root, name)
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		return result{dir: dir}
	}
	if err := os.MkdirAll(filepath.Join(root, ".locks"), 0o755); err != nil {
		return result{err: err}
	}
	// One builder per fixture across processes: the packages of a `go
	// test ./...` run in parallel and share fixtures (perfscript-traces:
	// internal/perfscript and internal/perfdata/perfdatatest), which an
	// empty cache (CI's fresh clone) would otherwise build in both. The
	// loser of the lock then finds the directory below. Without the lock
	// (an error taking it) both build and the later rename yields.
	if unlock, err := lockFile(filepath.Join(root, ".locks", name)); err == nil {
		defer unlock()
	}
	// A symbolic link there is another test process building it at its
	// final path (Script.AtFinalPath): wait for the real directory rather
	// than take the half-built one; a link left by a killed build is
	// removed after the wait.
	for wait := 0; ; wait++ {
		fi, err := os.Lstat(dir)
		if err != nil {
			break
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return result{dir: dir}
		}
		if wait == 1200 {
			os.Remove(dir)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	tmp, err := os.MkdirTemp(root, name+".tmp-")
	if err != nil {
		return result{err: err}
	}
	if err := build(tmp); err != nil {
		os.RemoveAll(tmp)
		return result{err: err}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another test process built it first: use theirs.
		os.RemoveAll(tmp)
		if _, serr := os.Stat(dir); serr != nil {
			return result{err: err}
		}
	}
	return result{dir: dir}
}

// Version returns the first line of `tool --version`, for Cached inputs.
func Version(t testing.TB, tool string) string {
	t.Helper()
	out, err := exec.Command(Tool(t, tool), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", tool, err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return first
}
