package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// outputKinds are the kinds of output path every output flag is tried
// with (internal/atomicfile decides what each gets). Each returns the path
// to give and a check of what arrived there, given the bytes a regular
// file gets; fails are the ones that must fail, naming the path, with the
// error text they must hold.
type outputKind struct {
	name string
	make func(t *testing.T, dir string) (path string, check func(t *testing.T, want []byte))
	fail string
}

var outputKinds = []outputKind{
	{name: "dev-null", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		p := charDevice(t, dir, "null", 3)
		return p, func(t *testing.T, _ []byte) { stillType(t, p, fs.ModeDevice|fs.ModeCharDevice) }
	}},
	{name: "dev-full", fail: "no space left on device", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		p := charDevice(t, dir, "full", 7)
		return p, func(t *testing.T, _ []byte) { stillType(t, p, fs.ModeDevice|fs.ModeCharDevice) }
	}},
	{name: "fifo", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		p := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			var b []byte
			if f, err := os.Open(p); err == nil {
				b, _ = io.ReadAll(f)
				f.Close()
			}
			got <- b
		}()
		return p, func(t *testing.T, want []byte) {
			if !stillType(t, p, fs.ModeNamedPipe) {
				return // its reader waits for ever
			}
			if b := <-got; !bytes.Equal(b, want) {
				t.Errorf("the FIFO's reader got %d bytes, want the %d of a regular file", len(b), len(want))
			}
		}
	}},
	{name: "symlink", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		p, target := filepath.Join(dir, "link"), filepath.Join(dir, "target")
		if err := os.Symlink("target", p); err != nil {
			t.Fatal(err)
		}
		return p, func(t *testing.T, want []byte) {
			stillType(t, p, fs.ModeSymlink)
			if b, _ := os.ReadFile(target); !bytes.Equal(b, want) {
				t.Errorf("the link's target holds %d bytes, want %d", len(b), len(want))
			}
		}
	}},
	{name: "full-tmpfs", fail: "no space left on device", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
			t.Skipf("cannot mount a tmpfs here (%v); dev-full stands in", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, 0) })
		p := filepath.Join(dir, "out")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 1<<20), 0o644); err == nil {
			t.Fatal("a 1 MB file fits in a 64 KB tmpfs")
		}
		return p, func(t *testing.T, _ []byte) {
			if b, _ := os.ReadFile(p); string(b) != "old" {
				t.Errorf("the old output holds %q, want it untouched", b)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 2 {
				t.Errorf("the file system holds %d files, want 2 (no temporary file)", len(ents))
			}
		}
	}},
	{name: "missing-dir", fail: "does not exist", make: func(t *testing.T, dir string) (string, func(*testing.T, []byte)) {
		return filepath.Join(dir, "no", "out"), func(*testing.T, []byte) {}
	}},
}

// charDevice makes a character device node (major 1) like /dev/<name> in
// dir, so a bug could never replace the machine's own; as another user
// than root, who could not replace it, it is /dev/<name> itself.
func charDevice(t *testing.T, dir, name string, minor int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return "/dev/" + name
	}
	p := filepath.Join(dir, name)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
		t.Fatal(err)
	}
	return p
}

func stillType(t *testing.T, p string, want fs.FileMode) bool {
	t.Helper()
	if st, err := os.Lstat(p); err != nil || st.Mode().Type() != want {
		t.Errorf("%s is no longer what it was (type %v): %v", p, want, err)
		return false
	}
	return true
}

// testOutputFlag runs the tool with args plus flag set to each kind of
// output path, and compares with what a regular file gets.
func testOutputFlag(t *testing.T, flag string, args ...string) {
	ref := filepath.Join(t.TempDir(), "ref")
	if _, stderr, code := runTool(t, append(args, flag, ref)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := readFile(t, ref)
	for _, k := range outputKinds {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			p, check := k.make(t, dir)
			_, stderr, code := runTool(t, append(args, flag, p)...)
			switch {
			case k.fail == "" && code != 0:
				t.Errorf("exit %d: %s", code, stderr)
			case k.fail != "" && (code != 1 || !strings.Contains(stderr, p) || !strings.Contains(stderr, k.fail)):
				t.Errorf("exit %d, stderr %q; want 1 naming %s with %q", code, stderr, p, k.fail)
			}
			check(t, want)
		})
	}
}

// TestOutputPaths: -o, --build-id-output and show -o write devices, FIFOs
// and symbolic links as what they are, and fail clearly on a full device
// and a missing directory; -o - writes standard output (a pipe or a file).
func TestOutputPaths(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm22-nopie")
	raw := bin + "-a.memprofraw"
	merge := []string{"--llvm-version", "22", "--profiled-binary", bin, raw}
	t.Run("merge-o", func(t *testing.T) { testOutputFlag(t, "-o", merge...) })
	t.Run("build-id-output", func(t *testing.T) {
		testOutputFlag(t, "--build-id-output", append(merge, "-o", filepath.Join(t.TempDir(), "p.profdata"))...)
	})
	t.Run("show-o", func(t *testing.T) {
		testOutputFlag(t, "-o", "show", "--memory", "--llvm-version", "22", "--profiled-binary", bin, raw)
	})
	t.Run("merge-o-stdout", func(t *testing.T) {
		tmp := t.TempDir()
		ref := filepath.Join(tmp, "ref")
		if _, stderr, code := runTool(t, append(merge, "-o", ref)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := readFile(t, ref)
		if stdout, stderr, code := runTool(t, append(merge, "-o", "-")...); code != 0 || stdout != string(want) {
			t.Errorf("into a pipe: exit %d, %d bytes, want %d; stderr: %s", code, len(stdout), len(want), stderr)
		}
		p := filepath.Join(tmp, "stdout")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], append(merge, "-o", "-")...)
		cmd.Env = append(os.Environ(), "MERGE_TEST_AS_TOOL=1")
		cmd.Stdout = f
		err = cmd.Run()
		f.Close()
		if b := readFile(t, p); err != nil || !bytes.Equal(b, want) {
			t.Errorf("into a file: %v, %d bytes, want %d", err, len(b), len(want))
		}
		if _, err := os.Lstat("-"); err == nil {
			t.Error("a file named - was written")
		}
	})
}
