package profmerge

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var le, be = binary.LittleEndian, binary.BigEndian

func TestReadInputFiles(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte("# comment\n\n3,a.raw\nb,with,commas.raw\n  c.raw  \n"), 0o644)
	got, err := ReadInputFiles(list)
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{{Path: "a.raw", Weight: 3}, {Path: "b,with,commas.raw", Weight: 1}, {Path: "c.raw", Weight: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadInputFiles = %v, want %v", got, want)
	}
	os.WriteFile(list, []byte("0,a.raw\n"), 0o644)
	if _, err := ReadInputFiles(list); err == nil {
		t.Error("weight 0 accepted")
	}
}

func TestExpandCanonicalOrder(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"d/z.raw", "d/sub/a.raw", "b.raw"} {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	got, err := Expand([]Input{{Path: filepath.Join(dir, "d"), Weight: 2}, {Path: filepath.Join(dir, "b.raw"), Weight: 1}, {Path: filepath.Join(dir, "missing"), Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range got {
		rel, _ := filepath.Rel(dir, in.Path)
		names = append(names, rel)
	}
	want := []string{"b.raw", "d/sub/a.raw", "d/z.raw", "missing"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Expand order = %v, want %v", names, want)
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want Kind
	}{
		{le.AppendUint64(nil, memprof.RawMagic), KindMemProfRaw},
		{le.AppendUint64(nil, instrprof.Magic), KindIndexed},
		{le.AppendUint64(nil, instrprof.RawMagic), KindInstrRaw},
		{be.AppendUint64(nil, instrprof.RawMagic), KindInstrRaw},
		{le.AppendUint64(nil, memprof.RawMagic)[:7], KindUnknown},
		{[]byte("\n---\nHeapProfileRecords:\n"), KindMemProfYAML},
		{[]byte("garbage"), KindUnknown},
		{nil, KindUnknown},
	} {
		if got := Detect(c.data); got != c.want {
			t.Errorf("Detect(%q) = %v, want %v", c.data, got, c.want)
		}
	}
}

func TestParseFailureMode(t *testing.T) {
	for s, want := range map[string]FailureMode{"any": FailAny, "all": FailAll, "warn": FailWarn} {
		if got, err := ParseFailureMode(s); err != nil || got != want {
			t.Errorf("ParseFailureMode(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseFailureMode("none"); err == nil {
		t.Error("ParseFailureMode(none) succeeded")
	}
}

// TestExpandNotRegular: in a directory, llvm-profdata takes the regular
// files and the links to regular files (its is_regular_file follows
// links), not FIFOs or links to them; given by name, a FIFO, device or
// socket is dropped with a warning, a missing file kept (for the failure
// policy to report), an empty file dropped outside sample merges.
func TestExpandNotRegular(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	os.Mkdir(d, 0o755)
	os.WriteFile(filepath.Join(dir, "real.raw"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(d, "a.raw"), []byte("x"), 0o644)
	os.Symlink("../real.raw", filepath.Join(d, "b.raw"))
	syscall.Mkfifo(filepath.Join(d, "c.raw"), 0o644)
	os.Symlink("c.raw", filepath.Join(d, "e.raw"))
	got, err := Expand([]Input{{Path: d, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{{Path: filepath.Join(d, "a.raw"), Weight: 1}, {Path: filepath.Join(d, "b.raw"), Weight: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand(dir) = %v, want %v", got, want)
	}
	odd := testenv.NotRegularFiles(t)
	empty := filepath.Join(dir, "empty.raw")
	os.WriteFile(empty, nil, 0o644)
	in := []Input{{Path: odd["fifo"]}, {Path: odd["chardev"]}, {Path: odd["socket"]}, {Path: filepath.Join(dir, "missing")}, {Path: empty}, {Path: filepath.Join(dir, "real.raw")}}
	var warned []string
	kept := regularInputs(in, func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) })
	if len(kept) != 3 || len(warned) != 3 {
		t.Errorf("regularInputs kept %v, warned %q; want the missing, empty and real files kept, 3 warnings", kept, warned)
	}
	srcs := classify(kept)
	defer closeSources(srcs)
	left, n := dropEmpty(srcs)
	if len(left) != 2 || n != 1 || left[0].Path != in[3].Path || left[1].Path != in[5].Path {
		t.Errorf("dropEmpty kept %v (%d dropped), want the missing and real files", left, n)
	}
}
