//go:build !unix

package atomicfile

import "os"

func lock(f *os.File) {}

// unlocked reports false: without locks, a temporary file's writer cannot
// be told alive or dead, so none is removed.
func unlocked(path string) bool { return false }
