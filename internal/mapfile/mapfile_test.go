package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(small, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mapped() || string(f.Data) != "hello" {
		t.Errorf("small file: mapped %v, data %q; want read, \"hello\"", f.Mapped(), f.Data)
	}
	f.Done(len(f.Data))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// A large regular file is mapped; Done gives pages back and the data
	// reads the same after (the pages fault in again).
	big := filepath.Join(dir, "big")
	g, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write([]byte("head")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt([]byte("tail"), MinMapped); err != nil {
		t.Fatal(err)
	}
	g.Close()
	f, err = Open(big, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Mapped() || len(f.Data) != MinMapped+4 {
		t.Fatalf("big file: mapped %v, %d bytes; want mapped, %d", f.Mapped(), len(f.Data), MinMapped+4)
	}
	f.Done(MinMapped)
	f.Done(10) // a new pass
	if !bytes.Equal(f.Data[:4], []byte("head")) || !bytes.Equal(f.Data[MinMapped:], []byte("tail")) {
		t.Errorf("data after Done: %q ... %q", f.Data[:4], f.Data[MinMapped:])
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// A small file: read with the reader given.
	called := false
	f, err = Open(small, func(p string) ([]byte, error) { called = true; return []byte("x"), nil })
	if err != nil || !called || f.Mapped() || string(f.Data) != "x" {
		t.Errorf("%s: called %v, mapped %v, data %q, err %v", small, called, f.Mapped(), f.Data, err)
	}
	// Not a regular file: refused, never read.
	if _, err := Open(os.DevNull, nil); err == nil {
		t.Errorf("%s opened", os.DevNull)
	}
	if _, err := Open(filepath.Join(dir, "missing"), nil); err == nil {
		t.Errorf("a missing file opened")
	}
}
