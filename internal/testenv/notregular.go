package testenv

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// NotRegularFiles makes the inputs that are not regular files a hostile
// user gives: "fifo" a FIFO nobody writes, "chardev" a character device
// reading zeros like /dev/zero (made in a temporary directory when we may
// mknod, else the machine's /dev/zero) and "socket" a listening Unix socket,
// all removed when the test ends.
func NotRegularFiles(t testing.TB) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := syscall.Mknod(zero, syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
		zero = "/dev/zero"
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return map[string]string{"fifo": fifo, "chardev": zero, "socket": sock}
}
