//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

var errNoUnnamed = errors.New("no unnamed temporary files on this system")

func openUnnamed(dir string) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(f *os.File, path string) error { return errNoUnnamed }
