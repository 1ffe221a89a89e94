// Package infile opens the input files of the tools. A path that names
// something other than a regular file is refused at once: a FIFO is
// opened without waiting for a writer (O_NONBLOCK) and refused, so that a
// FIFO nobody writes never hangs a tool, and a character device like
// /dev/zero is never read without end. Where a stream is wanted (a perf
// script from `<(perf script ...)`, as llvm-profgen reads one), OpenStream
// also takes a pipe, read as it comes.
//
// Errors are *fs.PathError naming the path as given; with Names, callers
// that add a file's name to an error say it once.
package infile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// NotRegularError is the error of a path that is not a regular file.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string { return "not a regular file: " + Kind(e.Mode) }

// Kind says in words what a file of mode m is: "a FIFO", "a character
// device", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// Open opens the regular file name for reading. Anything else is refused
// without being read or waited on: a directory with syscall.EISDIR, a
// FIFO, a device or a socket with a *NotRegularError, each as a
// *fs.PathError about name.
func Open(name string) (*os.File, error) {
	return open(name, false)
}

// OpenStream is Open, but it also opens a FIFO (a pipe), to be read as a
// stream: as any reader of a pipe, it waits for the pipe's writer.
func OpenStream(name string) (*os.File, error) {
	return open(name, true)
}

func open(name string, pipes bool) (*os.File, error) {
	if pipes {
		if st, err := os.Stat(name); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
			return os.Open(name)
		}
	}
	// O_NONBLOCK: opening a FIFO for reading does not wait for a writer
	// (on a regular file the flag does nothing).
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == name {
			return nil, err
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case st.Mode().IsRegular():
		return f, nil
	case st.IsDir():
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	f.Close()
	return nil, &fs.PathError{Op: "open", Path: name, Err: &NotRegularError{st.Mode()}}
}

// ReadFile reads the regular file name (see Open) whole.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadWhole(f, nil)
}

// ReadWhole reads all of f, an open regular file, from its start, into
// buf (grown when too small; nil is fine), sized by its length up front.
// It reads with pread: f's offset does not move, so a file classified by
// its head can be read whole afterwards, as often as needed, without being
// opened again.
//
// A buffer that must grow gets an eighth more room than this file needs:
// a caller recycling one buffer over inputs of similar sizes then
// allocates it about once.
func ReadWhole(f *os.File, buf []byte) ([]byte, error) {
	var size int
	if st, err := f.Stat(); err == nil && st.Size() < 1<<40 {
		size = int(st.Size())
	}
	// One byte more than the size tells a file that grew.
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+1+size/8)
	}
	data := buf[:0]
	for {
		n, err := f.ReadAt(data[len(data):cap(data)], int64(len(data)))
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// ReadStream reads a regular file or a pipe (see OpenStream) whole.
func ReadStream(name string) ([]byte, error) {
	f, err := OpenStream(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Names reports whether err names file already: a *decode.Error of file,
// or a *fs.PathError about it. A caller about to put the file's name in
// front of err leaves it out then, so that the name is said once.
func Names(err error, file string) bool {
	var de *decode.Error
	if errors.As(err, &de) && de.File == file {
		return true
	}
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Path == file
}

// Message is err as said about file, the file named once, first: a
// *fs.PathError about file as "file: what" (no operation: "nonexist: no
// such file or directory", as LLVM's tools say it), an error that names
// file already as it is, anything else as "file: err".
func Message(file string, err error) string {
	if pe, ok := err.(*fs.PathError); ok && pe.Path == file {
		return file + ": " + pe.Err.Error()
	}
	if Names(err, file) {
		return err.Error()
	}
	return file + ": " + err.Error()
}
