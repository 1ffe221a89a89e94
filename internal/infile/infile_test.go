package infile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, []byte("data"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(reg); err != nil || string(b) != "data" {
		t.Errorf("ReadFile(regular) = %q, %v", b, err)
	}
	for _, c := range []struct {
		path string
		want string
	}{
		{fifo, "not a regular file: a FIFO"}, // no writer: refused, not waited on
		{"/dev/zero", "not a regular file: a character device"},
		{dir, "is a directory"},
		{filepath.Join(dir, "none"), "no such file or directory"},
	} {
		_, err := ReadFile(c.path)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadFile(%s) = %v, want a *fs.PathError about it saying %q", c.path, err, c.want)
		}
		if got := Message(c.path, err); strings.Count(got, c.path) != 1 || !strings.HasPrefix(got, c.path+": ") {
			t.Errorf("Message(%s) = %q, want it named once, first", c.path, got)
		}
	}
	// A pipe with a writer is a stream for OpenStream.
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString("streamed")
			f.Close()
		}
	}()
	f, err := OpenStream(fifo)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(b) != "streamed" {
		t.Errorf("OpenStream(FIFO) read %q, %v", b, err)
	}
	if _, err := OpenStream("/dev/zero"); err == nil {
		t.Errorf("OpenStream(/dev/zero) opened a device")
	}
}

func TestMessage(t *testing.T) {
	de := &decode.Error{Format: "instrprof", File: "a.profraw", Section: "raw header", Offset: 8, Msg: "truncated", Err: decode.ErrTruncated}
	for _, c := range []struct {
		err  error
		want string
	}{
		{de, "a.profraw: instrprof: raw header at offset 0x8: truncated"},
		{&fs.PathError{Op: "open", Path: "a.profraw", Err: syscall.ENOENT}, "a.profraw: no such file or directory"},
		{errors.New("unrecognized"), "a.profraw: unrecognized"},
	} {
		if got := Message("a.profraw", c.err); got != c.want {
			t.Errorf("Message(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
