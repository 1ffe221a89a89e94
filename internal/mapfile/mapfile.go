// Package mapfile reads a whole input file without copying it into the
// heap: a large regular file is mapped read-only (its pages come from the
// page cache, count against the process only while touched, and can be
// given back as a reader moves on), a smaller one is read. Like every
// input of the tools it is opened through infile: a FIFO, a device or a
// socket is refused, never waited on or read without end.
//
// A mapped file that another process truncates while it is mapped makes
// the next read of a page past the new end fault (SIGBUS), as it does for
// llvm-profdata, which maps its inputs too; inputs are not expected to
// change under a merge.
package mapfile

import (
	"os"
	"syscall"

	"github.com/rules-pgo/rules_pgo/internal/infile"
)

// MinMapped is the size from which Open maps a regular file: below it a
// plain read costs less than the mapping and leaves no fault to fear.
const MinMapped = 64 << 20

// dropChunk is how far a reader moves on before Done gives pages back.
const dropChunk = 16 << 20

// File is a whole file's contents: Data is valid until Close.
type File struct {
	Data    []byte
	mapped  bool
	dropped int // Data[:dropped] has been given back
}

// Open returns the contents of the file at path: mapped when it is a
// regular file of at least MinMapped bytes (and the mapping works),
// otherwise read with read(path) (nil: read from the file already open).
// What is not a regular file is refused (infile.Open).
func Open(path string, read func(path string) ([]byte, error)) (*File, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if read == nil {
		return FromFile(f)
	}
	return fromFile(f, func() ([]byte, error) { return read(path) })
}

// FromFile is Open for a file already open (the caller's: it stays open),
// read from its start when it is not mapped.
func FromFile(f *os.File) (*File, error) {
	return fromFile(f, func() ([]byte, error) {
		return infile.ReadWhole(f, nil)
	})
}

func fromFile(f *os.File, read func() ([]byte, error)) (*File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if st.Mode().IsRegular() && size >= MinMapped && size == int64(int(size)) {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
		if err == nil {
			return &File{Data: data, mapped: true}, nil
		}
	}
	data, err := read()
	if err != nil {
		return nil, err
	}
	return &File{Data: data}, nil
}

// Mapped reports whether the contents are mapped.
func (f *File) Mapped() bool { return f.mapped }

// Done says that Data[:off] will not be read again: a mapped file gives
// the pages wholly before off back to the page cache (they leave the
// process's resident set; a later read would fault them in again). It
// does nothing for a file that was read. An off below an earlier one
// starts a new pass.
func (f *File) Done(off int) {
	if off < f.dropped { // a new pass over the data
		f.dropped = 0
	}
	if !f.mapped || off-f.dropped < dropChunk {
		return
	}
	end := off &^ (os.Getpagesize() - 1)
	if end > f.dropped && syscall.Madvise(f.Data[f.dropped:end], syscall.MADV_DONTNEED) == nil {
		f.dropped = end
	}
}

// Close unmaps a mapped file; Data must not be used after it.
func (f *File) Close() error {
	if !f.mapped {
		f.Data = nil
		return nil
	}
	data := f.Data
	f.Data, f.mapped = nil, false
	return syscall.Munmap(data)
}
