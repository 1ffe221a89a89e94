package sampleprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

type mergeInput struct {
	file string
	w    uint64
}

// mergeFiles merges files as tools/merge does: read, fold, drop (plain
// text profiles line by line).
func mergeFiles(t *testing.T, rel int, ins []mergeInput) (*Profile, error) {
	m := Merger{Release: llvmrelease.Release(rel)}
	for _, in := range ins {
		data, err := os.ReadFile(in.file)
		if err != nil {
			t.Fatal(err)
		}
		if Detect(data) == FormatText {
			if tl := ParseTextMerge(data, ReadOptions{Release: llvmrelease.Release(rel)}); tl != nil {
				err := m.AddText(in.file, tl, in.w)
				tl.Release()
				if err != nil {
					return nil, err
				}
				continue
			}
		}
		p, err := Read(in.file, data, ReadOptions{Release: llvmrelease.Release(rel)})
		if err != nil {
			return nil, err
		}
		if err := m.Add(in.file, p, in.w); err != nil {
			return nil, err
		}
	}
	return m.Profile(), nil
}

// TestMergeConformance: merging several generated profiles (weights,
// probe checksums that clash, CS contexts, LLVM-written binary inputs)
// gives llvm-profdata merge --sample's text and extbinary.
func TestMergeConformance(t *testing.T) {
	dir := t.TempDir()
	var n int
	for _, kind := range []genKind{genPlain, genProbe, genCS} {
		var files []string
		for i := range 4 {
			name := filepath.Join(dir, fmt.Sprintf("k%d_%d.txt", kind, i))
			os.WriteFile(name, genText(newRand(int64(1000+10*int(kind)+i)), kind), 0o644)
			files = append(files, name)
		}
		for _, rel := range releases {
			// One input as extbinary, one as raw binary where it can be.
			ext, ok := llvmMerge(t, rel, files[1], "--extbinary")
			if !ok {
				t.Fatalf("llvm-profdata-%d cannot convert %s", rel, files[1])
			}
			extFile := filepath.Join(dir, fmt.Sprintf("k%d_%d.extbin", kind, rel))
			os.WriteFile(extFile, ext, 0o644)
			// llvmMerge puts its input (files[0]) after the others.
			ins := []mergeInput{{extFile, 1}, {files[2], 1}, {files[0], 1}, {files[3], 3}, {files[0], 2}}
			args := []string{files[0], extFile, files[2], "--weighted-input=3," + files[3], "--weighted-input=2," + files[0]}
			for _, format := range []string{"--text", "--extbinary", "--binary"} {
				if format == "--binary" && kind != genPlain {
					continue
				}
				want, ok := llvmMerge(t, rel, args[0], append([]string{format}, args[1:]...)...)
				if !ok {
					t.Fatalf("llvm-profdata-%d merge %s %v failed", rel, format, args)
				}
				p, err := mergeFiles(t, rel, ins)
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				switch format {
				case "--text":
					got = p.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)})
				case "--binary":
					got, err = p.AppendBinary(nil)
				default:
					got, err = p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
				if !bytes.Equal(got, want) {
					t.Errorf("kind %d LLVM %d %s: merge differs\nours %.300q\nllvm %.300q", kind, rel, format, got, want)
				}
			}
		}
	}
	t.Logf("%d merged outputs compared", n)
}

func TestMergeMixedKinds(t *testing.T) {
	cs, _ := ReadText("cs", genText(newRand(1), genCS), ReadOptions{})
	plain, _ := ReadText("plain", genText(newRand(2), genPlain), ReadOptions{})
	var m Merger
	if err := m.Add("plain", plain, 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("cs", cs, 1); err == nil {
		t.Error("merging CS into non-CS: no error")
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"":                 FormatUnknown,
		"\n# c\nfoo:1:2\n": FormatText,
		"[a:1 @ b]:3:4\n":  FormatText,
		" 1: 2\n":          FormatUnknown,
		"foo:x:1\n":        FormatUnknown,
		"\xff\x42\x34\x46": FormatUnknown,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", in, got, want)
		}
	}
	b, _ := (&Profile{}).AppendBinary(nil)
	e, _ := (&Profile{}).AppendExtBinary(nil, BinaryOptions{})
	if Detect(b) != FormatBinary || Detect(e) != FormatExtBinary {
		t.Errorf("Detect binary %v, extbinary %v", Detect(b), Detect(e))
	}
}
