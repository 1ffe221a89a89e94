// Package atomicfile writes the outputs of every tool. What it does
// depends on what the output path is:
//
//   - A regular file, or a path that does not exist, is replaced by rename:
//     the data goes to a temporary file in the same directory, renamed over
//     the target once complete, so readers (and a build system that caches
//     outputs) never see a partial file, and a failed or killed run leaves
//     either the old file or none. The temporary file has no name while it
//     is written (Linux's O_TMPFILE, where the file system has it): a run
//     killed then (even by SIGKILL) leaves nothing behind. It gets a name
//     (".OUT.tmpNNN") only for the rename, or for the whole write where
//     O_TMPFILE is missing; such a file is locked (flock) while its writer
//     lives, and the next run writing OUT removes every unlocked one, the
//     leftovers of runs that were killed.
//   - A symbolic link is written through to its target, which the rules
//     above and below then apply to (the link stays a link, as with
//     llvm-profdata; a dangling link gets its target created).
//   - A character or block device, a FIFO or a Unix socket is opened (a
//     socket connected to) and written directly: /dev/null and pipes work
//     and stay what they are: they get the bytes of a temporary file filled
//     first (in the target's directory if it is writable, else in
//     os.TempDir, unnamed or removed at once), copied once it is complete.
//   - "-" is standard output, written the same way.
//
// Begin and Commit split the write in two: a program with more to check
// once an output is written (warnings treated as errors, a second file
// that must go with it) checks between them, and a failure then leaves
// every output as it was.
//
// Errors name the output path as given (never a temporary file): write
// errors (ENOSPC, EPIPE, EIO) as *os.PathError, and an output whose
// directory is missing says which directory.
//
// llvm-profdata fails on a stream ("Illegal seek", after writing garbage
// into it) because it seeks back to patch the header; we write the right
// bytes instead. Writing to a standard output whose reader went away kills
// the process with SIGPIPE (Go's rule for descriptors 1 and 2), as
// llvm-profdata 22 dies and as Unix filters do.
//
// The file is not fsynced, as compilers, linkers and llvm-profdata do not
// fsync their outputs: the rename makes a failed or killed run leave
// either the old file or none, never a partial one, which is what a build
// needs; durability across a power loss is the build system's concern (a
// cache entry is checked by digest). On this project's machines an fsync
// of a 94 MB profile cost 0.1–0.14 s, a fifth of a whole merge.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Stdout is the output name that means standard output.
const Stdout = "-"

// WriteFile writes data to name with permissions perm (see the package
// documentation for what it does to each kind of path). On error a regular
// file at name is untouched and no temporary file is left behind.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	return Create(name, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// Create calls fill with a new, empty, seekable file and gets its bytes to
// name (see the package documentation); a file it creates gets
// permissions perm. fill may write the file in any way (sequentially or by
// position, from offset 0) but must not close it. On error a regular file
// at name is untouched and no temporary file is left behind.
func Create(name string, perm os.FileMode, fill func(f *os.File) error) error {
	p, err := Begin(name, perm, fill)
	if err != nil {
		return err
	}
	return p.Commit()
}

// Pending is an output whose bytes are written but not yet in place (see
// Begin). Exactly one of Commit and Discard must be called.
type Pending struct {
	name string   // the output as given
	f    *os.File // the filled temporary file
	tmp  string   // its name in dir, if it has one
	dir  string   // the directory it was created in
	// target is the path a regular output is renamed over; open opens
	// any other output (a stream) when the bytes are copied to it.
	target string
	open   func() (io.WriteCloser, error)
	perm   os.FileMode
}

// Begin is the first half of Create: it fills a temporary file for name
// and returns it pending, with name not yet touched. Commit puts it in
// place, Discard drops it.
func Begin(name string, perm os.FileMode, fill func(f *os.File) error) (*Pending, error) {
	p, err := prepare(name, perm)
	if err != nil {
		return nil, err
	}
	if err := fill(p.f); err != nil {
		p.Discard()
		var pe *os.PathError
		if p.open != nil && errors.As(err, &pe) && pe.Path == p.f.Name() {
			return nil, fmt.Errorf("%s: temporary file: %w", name, err)
		}
		return nil, rename(err, p.f.Name(), name)
	}
	return p, nil
}

// Bytes returns a reader of the bytes written (to hash them, say). It must
// not be used after Commit or Discard.
func (p *Pending) Bytes() (io.Reader, error) {
	st, err := p.f.Stat()
	if err != nil {
		return nil, rename(err, p.f.Name(), p.name)
	}
	return io.NewSectionReader(p.f, 0, st.Size()), nil
}

// Commit puts the bytes in place: a regular file is renamed over the
// output, a stream gets them copied.
func (p *Pending) Commit() error {
	defer p.Discard()
	if p.open != nil {
		return p.copyOut()
	}
	if err := p.f.Chmod(p.perm); err != nil {
		return rename(err, p.f.Name(), p.name)
	}
	if p.tmp == "" {
		tmp, err := linkTemp(p.f, p.dir, "."+filepath.Base(p.target)+".tmp")
		if err != nil {
			return rename(err, "", p.name)
		}
		p.tmp = tmp
	}
	if err := p.f.Close(); err != nil {
		return rename(err, p.f.Name(), p.name)
	}
	if err := os.Rename(p.tmp, p.target); err != nil {
		return rename(err, p.tmp, p.name)
	}
	p.tmp = "" // renamed: nothing to remove
	return nil
}

// copyOut copies the bytes to a stream output.
func (p *Pending) copyOut() error {
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: temporary file: %w", p.name, err)
	}
	w, err := p.open()
	if err != nil {
		return rename(err, "", p.name)
	}
	_, err = io.Copy(w, p.f)
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == p.f.Name() {
			return fmt.Errorf("%s: temporary file: %w", p.name, err)
		}
		return rename(err, "", p.name)
	}
	return nil
}

// Discard drops the bytes: the output stays as it was and the temporary
// file goes. It does nothing after Commit.
func (p *Pending) Discard() {
	p.f.Close()
	if p.tmp != "" {
		os.Remove(p.tmp)
		p.tmp = ""
	}
}

// prepare opens the temporary file for the output name.
func prepare(name string, perm os.FileMode) (*Pending, error) {
	if name == Stdout {
		return stream(name, "", func() (io.WriteCloser, error) { return nopCloser{os.Stdout}, nil })
	}
	st, err := os.Stat(name) // through symbolic links
	switch {
	case err == nil && st.Mode().IsRegular():
		if target, err := resolve(name); err == nil {
			if tst, err := os.Stat(target); err == nil && os.SameFile(st, tst) {
				return replace(name, target, perm)
			}
		}
		// A link the kernel follows but a path does not name, like
		// /proc/self/fd/1 on a file: no directory to rename in, so the
		// file is truncated and written as llvm-profdata would.
		return stream(name, "", openDirect(name))
	case err == nil && st.IsDir():
		return nil, &os.PathError{Op: "create", Path: name, Err: syscall.EISDIR}
	case err == nil && st.Mode()&fs.ModeSocket != 0:
		return stream(name, filepath.Dir(name), func() (io.WriteCloser, error) { return net.Dial("unix", name) })
	case err == nil:
		return stream(name, filepath.Dir(name), openDirect(name))
	case errors.Is(err, fs.ErrNotExist):
		target, err := resolve(name)
		if err != nil {
			return nil, rename(err, "", name)
		}
		return replace(name, target, perm)
	default:
		return nil, rename(err, "", name)
	}
}

// openDirect opens an existing file that is not replaced (a device, a
// FIFO, a regular file reached through a link with no path) for writing
// from its start.
func openDirect(name string) func() (io.WriteCloser, error) {
	return func() (io.WriteCloser, error) { return os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0) }
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Remove undoes a written output: it removes the regular file at name
// (through symbolic links, the file written), and leaves anything else
// (a device, a FIFO, standard output) alone.
func Remove(name string) error {
	if name == Stdout {
		return nil
	}
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	target, err := resolve(name)
	if err != nil {
		return nil
	}
	if tst, err := os.Stat(target); err != nil || !os.SameFile(st, tst) {
		return nil
	}
	return os.Remove(target)
}

// resolve follows the symbolic links name ends in (its last component,
// again and again) and returns the path they lead to, which need not
// exist.
func resolve(name string) (string, error) {
	p := name
	for range 40 { // Linux's MAXSYMLINKS
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return "", syscall.ELOOP
}

// replace opens the temporary file of a regular output, beside target,
// and removes the leftovers of killed runs that wrote target.
func replace(name, target string, perm os.FileMode) (*Pending, error) {
	dir := filepath.Dir(target)
	prefix := "." + filepath.Base(target) + ".tmp"
	f, tmp, err := createTemp(dir, prefix)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &os.PathError{Op: "create", Path: name, Err: &missingDirError{dir}}
		}
		return nil, rename(err, "", name)
	}
	removeStale(dir, prefix)
	return &Pending{name: name, f: f, tmp: tmp, dir: dir, target: target, perm: perm}, nil
}

// stream opens the temporary file of an output that is not renamed over
// (in dir if it can, else in os.TempDir), unnamed or removed at once:
// nothing is left if we are killed.
func stream(name, dir string, open func() (io.WriteCloser, error)) (*Pending, error) {
	var f *os.File
	var tmp string
	var err error
	if dir != "" {
		f, tmp, err = createTemp(dir, ".stream.tmp")
	}
	if f == nil {
		f, tmp, err = createTemp(os.TempDir(), "stream.tmp")
		if err != nil {
			return nil, fmt.Errorf("%s: temporary file: %w", name, err)
		}
	}
	if tmp != "" {
		os.Remove(tmp) // the open file lives on
	}
	return &Pending{name: name, f: f, open: open}, nil
}

// createTemp creates an empty file in dir, unnamed if the system can
// (then tmp is ""), else named prefix followed by digits; either way
// locked (flock) for as long as it is open.
func createTemp(dir, prefix string) (f *os.File, tmp string, err error) {
	if useUnnamed {
		if f, err := openUnnamed(dir); err == nil {
			lock(f)
			return f, "", nil
		}
	}
	f, err = os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return nil, "", err
	}
	lock(f)
	return f, f.Name(), nil
}

// useUnnamed is false in tests of the named temporary files.
var useUnnamed = true

// linkTemp gives the unnamed file f a name in dir, prefix followed by
// digits.
func linkTemp(f *os.File, dir, prefix string) (string, error) {
	for range 100 {
		tmp := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := linkUnnamed(f, tmp)
		if !errors.Is(err, fs.ErrExist) {
			return tmp, err
		}
	}
	return "", &os.PathError{Op: "link", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}

// removeStale removes the temporary files of earlier runs in dir (prefix
// followed by digits) that no process holds locked: runs that were killed
// while they wrote.
func removeStale(dir, prefix string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		digits := strings.TrimPrefix(n, prefix)
		if len(digits) == len(n) || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, n)
		if unlocked(p) {
			os.Remove(p)
		}
	}
}

// rename makes err name the output: a *os.PathError about the temporary
// file tmp (or, if tmp is "", about any path) is made about name; other
// errors are wrapped as a *os.PathError about name.
func rename(err error, tmp, name string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if pe.Path == name {
			return err
		}
		if tmp == "" || pe.Path == tmp {
			pe.Path = name
			return err
		}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.PathError{Op: le.Op, Path: name, Err: le.Err}
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return &os.PathError{Op: oe.Op, Path: name, Err: oe.Err}
	}
	if tmp != "" {
		return err // fill's own error, not about a file
	}
	return &os.PathError{Op: "write", Path: name, Err: err}
}

// missingDirError says which directory of an output does not exist.
type missingDirError struct{ dir string }

func (e *missingDirError) Error() string        { return "directory " + e.dir + " does not exist" }
func (e *missingDirError) Is(target error) bool { return target == fs.ErrNotExist }
