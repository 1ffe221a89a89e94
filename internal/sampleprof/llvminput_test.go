package sampleprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// TestLLVMWrittenInputs: profiles llvm-profdata wrote (extbinary, MD5
// extbinary, raw binary) read to the model of the text they came from, and
// merging them again gives LLVM's bytes.
func TestLLVMWrittenInputs(t *testing.T) {
	files := []string{"testdata/text/basic.txt", "testdata/text/cs.txt", "testdata/text/probe.txt",
		"testdata/text/colons.txt", "testdata/text/vtables.txt"}
	dir := t.TempDir()
	for i := range 4 {
		name := filepath.Join(dir, fmt.Sprintf("gen%d.txt", i))
		os.WriteFile(name, genText(newRand(int64(100+i)), genKind(i)), 0o644)
		files = append(files, name)
	}
	var n int
	for _, file := range files {
		src, _ := os.ReadFile(file)
		for _, rel := range releases {
			textProf, err := ReadText(file, src, ReadOptions{Release: llvmrelease.Release(rel)})
			if err != nil {
				continue
			}
			for _, in := range [][]string{{"--extbinary"}, {"--extbinary", "--use-md5"}, {"--binary"}} {
				data, ok := llvmMerge(t, rel, file, in...)
				if !ok {
					continue
				}
				llvmFile := filepath.Join(t.TempDir(), "in.prof")
				os.WriteFile(llvmFile, data, 0o644)
				p, err := Read(llvmFile, data, ReadOptions{Release: llvmrelease.Release(rel)})
				if err != nil {
					t.Errorf("%s %v LLVM %d: %v", filepath.Base(file), in, rel, err)
					continue
				}
				if len(in) == 1 && !hasVTables(textProf) {
					// The same model as the text (attributes travel only
					// in FuncMetadata).
					if !p.CS && !p.PreInlined {
						for _, fs := range textProf.Funcs {
							clearAttributes(fs)
						}
					}
					if a, b := p.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)}), textProf.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)}); !bytes.Equal(a, b) {
						t.Errorf("%s %v LLVM %d: reads as\n%s\nwant\n%s", filepath.Base(file), in, rel, a, b)
					}
				}
				if want, ok := llvmMerge(t, rel, llvmFile, "--text"); ok {
					n++
					if got := p.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)}); !bytes.Equal(got, want) {
						t.Errorf("%s %v LLVM %d → text:\n%s\nwant\n%s", filepath.Base(file), in, rel, got, want)
					}
				}
				if want, ok := llvmMerge(t, rel, llvmFile, "--extbinary"); ok {
					n++
					got, _ := p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
					if !bytes.Equal(got, want) {
						t.Errorf("%s %v LLVM %d → extbinary differs\nours %x\nllvm %x", filepath.Base(file), in, rel, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d outputs from LLVM-written inputs compared", n)
}
