package profmerge

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

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
		{[]byte{0x81, 0x72, 0x66, 0x6f, 0x72, 0x70, 0x6d, 0xff, 4}, KindMemProfRaw},
		{[]byte{0xff, 0x6c, 0x70, 0x72, 0x6f, 0x66, 0x69, 0x81}, KindIndexed},
		{[]byte{0x81, 0x72, 0x66, 0x6f, 0x72, 0x70, 0x6c, 0xff}, KindInstrRaw},
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
