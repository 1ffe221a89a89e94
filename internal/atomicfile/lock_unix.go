//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// lock locks f (flock, exclusive) for as long as it is open: a temporary
// file's writer is alive while the lock is held, even after SIGKILL the
// kernel drops it.
func lock(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unlocked reports whether no process holds the file at path locked (and
// leaves it locked by nobody). A file that cannot be opened is not.
func unlocked(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
