package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new, unnamed regular file in dir (O_TMPFILE): if we
// are killed before it is linked, the file system frees it. It fails where
// the file system has no O_TMPFILE, or where /proc/self/fd, which
// linkUnnamed needs, is not mounted.
func openUnnamed(dir string) (*os.File, error) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed temporary file)")), nil
}

// linkUnnamed gives the file openUnnamed opened the name path.
func linkUnnamed(f *os.File, path string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: proc, New: path, Err: err}
	}
	return nil
}
