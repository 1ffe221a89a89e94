// Package atomicfile writes files so that readers (and a build system that
// caches outputs) never see a partial file: the data goes to a temporary
// file in the same directory, which is synced and renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to name atomically with permissions perm. On error
// the target is untouched and no temporary file is left behind.
func WriteFile(name string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
