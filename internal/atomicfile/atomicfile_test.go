package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("ReadFile = %q, %v; want two", b, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the output (no temporary files)", len(ents))
	}
}

// fillByPosition writes data backwards, a chunk at a time, by position, as
// instrprof's workers do.
func fillByPosition(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		for off := len(data); off > 0; {
			n := min(off, 7)
			off -= n
			if _, err := f.WriteAt(data[off:off+n], int64(off)); err != nil {
				return err
			}
		}
		return nil
	}
}

func payload() []byte {
	return bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB: more than a pipe holds
}

// mustBe checks that p is still of the kind (fs.ModeType bits) want.
func mustBe(t *testing.T, p string, want fs.FileMode) {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Type() != want {
		t.Fatalf("%s is now %v, want type %v", p, st.Mode(), want)
	}
}

// device returns a character device node like /dev/<name> (major 1,
// minor) in a temporary directory if we may make one (root), so that a bug
// could never replace the machine's own; else the machine's, which only
// root could replace.
func device(t *testing.T, name string, minor int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err == nil {
		return p
	}
	if os.Geteuid() == 0 {
		t.Fatalf("mknod %s failed as root", p)
	}
	return "/dev/" + name
}

func TestDevNull(t *testing.T) {
	p := device(t, "null", 3)
	data := payload()
	if err := Create(p, 0o644, fillByPosition(data)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustBe(t, p, fs.ModeDevice|fs.ModeCharDevice)
	if err := Remove(p); err != nil {
		t.Fatal(err)
	}
	mustBe(t, p, fs.ModeDevice|fs.ModeCharDevice)
	if ents, _ := os.ReadDir(filepath.Dir(p)); p != "/dev/null" && len(ents) != 1 {
		t.Errorf("the device's directory holds %d entries, want 1", len(ents))
	}
}

// TestDevFull: a device that is full (ENOSPC) gives an error naming the
// output, and stays a device.
func TestDevFull(t *testing.T) {
	p := device(t, "full", 7)
	err := Create(p, 0o644, fillByPosition(payload()))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != p || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC naming %s", err, p)
	}
	mustBe(t, p, fs.ModeDevice|fs.ModeCharDevice)
}

// TestFullFilesystem: a regular file on a full file system (a small tmpfs,
// if we may mount one) gives ENOSPC naming the output, leaves the old file
// as it was and no temporary file.
func TestFullFilesystem(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): TestDevFull covers ENOSPC", err)
	}
	defer syscall.Unmount(dir, 0)
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, fill := range map[string]func(*os.File) error{
		"sequential":  func(f *os.File) error { _, err := f.Write(payload()); return err },
		"by position": fillByPosition(payload()),
	} {
		err := Create(p, 0o644, fill)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s: err = %v, want ENOSPC naming %s (not the temporary file)", name, err, p)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the old file holds %q, want it untouched", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the old file", len(ents))
	}
}

// readAll opens a reader on a goroutine and sends all it reads.
func readAll(open func() (io.ReadCloser, error)) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		var b []byte
		if r, err := open(); err == nil {
			b, _ = io.ReadAll(r)
			r.Close()
		}
		got <- b
	}()
	return got
}

// TestFIFO: a FIFO with a reader gets the bytes (written by position into a
// temporary file first) and stays a FIFO; nothing else is left beside it.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	got := readAll(func() (io.ReadCloser, error) { return os.Open(p) })
	data := payload()
	if err := Create(p, 0o644, fillByPosition(data)); err != nil {
		t.Fatal(err)
	}
	mustBe(t, p, fs.ModeNamedPipe)
	if b := <-got; !bytes.Equal(b, data) {
		t.Errorf("the reader got %d bytes, want the %d written", len(b), len(data))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the FIFO", len(ents))
	}
}

// TestFIFOReaderGone: a FIFO whose reader leaves gives EPIPE naming it.
func TestFIFOReaderGone(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.Open(p); err == nil {
			f.Read(make([]byte, 10))
			f.Close()
		}
	}()
	err := Create(p, 0o644, fillByPosition(payload()))
	if !errors.Is(err, syscall.EPIPE) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v, want EPIPE naming %s", err, p)
	}
	mustBe(t, p, fs.ModeNamedPipe)
}

// TestSocket: a listening Unix socket is connected to and gets the bytes.
func TestSocket(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := readAll(func() (io.ReadCloser, error) { return l.Accept() })
	data := payload()
	if err := Create(p, 0o644, fillByPosition(data)); err != nil {
		t.Fatal(err)
	}
	mustBe(t, p, fs.ModeSocket)
	if b := <-got; !bytes.Equal(b, data) {
		t.Errorf("the listener got %d bytes, want %d", len(b), len(data))
	}
}

// TestSymlink: a link is written through (the link stays); a dangling link
// gets its target created; Remove removes the target, not the link.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct{ link, dest, target string }{
		{"link", "sub/real", filepath.Join(sub, "real")},
		{"dangling", "sub/new", filepath.Join(sub, "new")},
		{"chain", "link", filepath.Join(sub, "real")},
	} {
		link := filepath.Join(dir, c.link)
		if err := os.Symlink(c.dest, link); err != nil {
			t.Fatal(err)
		}
		if c.link == "link" {
			os.WriteFile(c.target, []byte("old"), 0o644)
		}
		if err := WriteFile(link, []byte(c.link), 0o644); err != nil {
			t.Fatal(err)
		}
		mustBe(t, link, fs.ModeSymlink)
		if b, _ := os.ReadFile(c.target); string(b) != c.link {
			t.Errorf("%s: target holds %q, want %q", c.link, b, c.link)
		}
	}
	if err := Remove(filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	mustBe(t, filepath.Join(dir, "dangling"), fs.ModeSymlink)
	if _, err := os.Stat(filepath.Join(sub, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove left the link's target: %v", err)
	}
	if ents, _ := os.ReadDir(sub); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want 1 (no temporary files)", sub, len(ents))
	}
}

func TestMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such")
	p := filepath.Join(dir, "out")
	err := WriteFile(p, []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "directory "+dir+" does not exist") {
		t.Fatalf("err = %v, want one naming %s and its missing directory", err, p)
	}
	if err := WriteFile(t.TempDir(), nil, 0o644); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("writing over a directory: err = %v, want EISDIR", err)
	}
}

// TestFillError: fill's own error comes back as it is; nothing is left.
func TestFillError(t *testing.T) {
	dir := t.TempDir()
	bad := errors.New("bad data")
	if err := Create(filepath.Join(dir, "out"), 0o644, func(*os.File) error { return bad }); err != bad {
		t.Errorf("err = %v, want fill's", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("directory holds %d entries, want none", len(ents))
	}
}

// TestStdout runs this test binary as a child whose standard output is a
// pipe, then a file opened for appending, and writes "-".
func TestStdout(t *testing.T) {
	if os.Getenv("ATOMICFILE_STDOUT_CHILD") == "1" {
		if err := Create(Stdout, 0o644, fillByPosition(payload())); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStdout$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_STDOUT_CHILD=1")
		return cmd
	}
	data := payload()
	cmd := child()
	out, err := cmd.Output()
	if err != nil || !bytes.Equal(out, data) {
		t.Errorf("into a pipe: %d bytes, %v; want %d bytes", len(out), err, len(data))
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("head\n"), 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd = child()
	cmd.Stdout = f
	err = cmd.Run()
	f.Close()
	if b, _ := os.ReadFile(p); err != nil || !bytes.Equal(b, append([]byte("head\n"), data...)) {
		t.Errorf("into a file opened for appending: %d bytes, %v; want %d", len(b), err, 5+len(data))
	}
	if _, err := os.Lstat("-"); err == nil { // the child ran here
		t.Error("a file named - was written")
	}
}

// TestKilled runs this test binary as a child that writes an output over
// an old one and is killed (SIGKILL) in the middle of the write, with
// unnamed temporary files (O_TMPFILE) and with named ones: the old output
// is untouched, and nothing is left that the next write does not remove.
func TestKilled(t *testing.T) {
	if out := os.Getenv("ATOMICFILE_KILLED_CHILD"); out != "" {
		useUnnamed = os.Getenv("ATOMICFILE_NAMED") == ""
		Create(out, 0o644, func(f *os.File) error {
			f.Write(payload())
			os.Stdout.WriteString("writing\n")
			select {} // until killed
		})
		os.Exit(3)
	}
	for _, named := range []bool{false, true} {
		t.Run(map[bool]string{false: "unnamed", true: "named"}[named], func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.profdata")
			os.WriteFile(p, []byte("old"), 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilled$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_KILLED_CHILD="+p)
			if named {
				cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line := make([]byte, 8)
			if _, err := io.ReadFull(stdout, line); err != nil || string(line) != "writing\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q, %v", line, err)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if b, _ := os.ReadFile(p); string(b) != "old" {
				t.Errorf("after the kill the output holds %d bytes, want the old file", len(b))
			}
			ents, _ := os.ReadDir(dir)
			if want := map[bool]int{false: 1, true: 2}[named]; len(ents) != want {
				t.Errorf("after the kill the directory holds %d entries, want %d", len(ents), want)
			}
			if err := WriteFile(p, []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("after the next write the directory holds %d entries, want only the output", len(ents))
			}
		})
	}
}

// TestStaleLocked: a temporary file whose writer is alive (locked) is not
// removed by another write of the same output.
func TestStaleLocked(t *testing.T) {
	useUnnamed = false
	defer func() { useUnnamed = true }()
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	first, err := Begin(p, 0o644, func(f *os.File) error { _, err := f.Write([]byte("first")); return err })
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(); err != nil {
		t.Fatalf("the first writer's temporary file was removed under it: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("output holds %q, want first", b)
	}
}

// TestDiscard: an output begun and discarded is left as it was, and so
// is its directory; Bytes reads what was written.
func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"out", "new"} {
		p := filepath.Join(dir, name)
		if name == "out" {
			os.WriteFile(p, []byte("old"), 0o644)
		}
		pend, err := Begin(p, 0o644, fillByPosition(payload()))
		if err != nil {
			t.Fatal(err)
		}
		r, err := pend.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(r); !bytes.Equal(b, payload()) {
			t.Errorf("Bytes gave %d bytes, want the %d written", len(b), len(payload()))
		}
		pend.Discard()
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "old" {
		t.Errorf("output holds %q, want old", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the old output", len(ents))
	}
}
