package sampleprof

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// metadataOrderMatters reports whether LLVM writes a FuncMetadata section
// for p, whose record order follows libstdc++'s unordered_map iteration
// (spec §3.9), which this package does not emulate.
func metadataOrderMatters(p *Profile) bool { return p.ProbeBased || p.CS || p.PreInlined }

type binCase struct {
	name  string
	args  []string
	opts  BinaryOptions
	since int
}

var extCases = []binCase{
	{"default", []string{"--extbinary"}, BinaryOptions{}, 16},
	{"md5", []string{"--extbinary", "--use-md5"}, BinaryOptions{UseMD5: true}, 16},
	{"partial", []string{"--extbinary", "--gen-partial-profile"}, BinaryOptions{Partial: true}, 16},
	{"split", []string{"--extbinary", "--split-layout"}, BinaryOptions{SplitLayout: true}, 22},
	{"vtables", []string{"--extbinary", "--extbinary-write-vtable-type-prof"}, BinaryOptions{VTables: true}, 22},
}

func TestExtBinaryConformance(t *testing.T) {
	var exact, semantic, total int
	for _, file := range textCorpus(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range releases {
			p, err := ReadText(file, data, TextOptions{LLVM: rel})
			if err != nil {
				continue
			}
			for _, bc := range extCases {
				if rel < bc.since {
					continue
				}
				if rel == 16 && filepath.Base(file) == "empty_name.txt" {
					// LLVM 16 keys its function offset table by a
					// DenseMap whose empty key is the empty name.
					continue
				}
				want, ok := llvmMerge(t, rel, file, bc.args...)
				o := bc.opts
				o.LLVM = rel
				got, err := p.AppendExtBinary(nil, o)
				if !ok {
					continue
				}
				if err != nil {
					t.Errorf("%s %s LLVM %d: %v", filepath.Base(file), bc.name, rel, err)
					continue
				}
				total++
				if bytes.Equal(got, want) {
					exact++
				} else if !metadataOrderMatters(p) {
					t.Errorf("%s %s LLVM %d: extbinary differs\nours %x\nllvm %x", filepath.Base(file), bc.name, rel, got, want)
					continue
				}
				// Both read back to the same profile.
				theirs, err := ReadExtBinary("llvm", want)
				if err != nil {
					// LLVM writes some files it cannot read back (line
					// offsets over 0xffff, CS profiles in the split
					// layout): then its reader must fail too.
					tmp := filepath.Join(t.TempDir(), "llvm.prof")
					os.WriteFile(tmp, want, 0o644)
					if _, ok := llvmMerge(t, rel, tmp, "--text"); !ok {
						continue
					}
					t.Errorf("%s %s LLVM %d: reading llvm's: %v", filepath.Base(file), bc.name, rel, err)
					continue
				}
				ours, err := ReadExtBinary("ours", got)
				if err != nil {
					t.Errorf("%s %s LLVM %d: reading ours: %v", filepath.Base(file), bc.name, rel, err)
					continue
				}
				a := theirs.AppendText(nil, TextWriteOptions{LLVM: rel})
				b := ours.AppendText(nil, TextWriteOptions{LLVM: rel})
				if !bytes.Equal(a, b) {
					t.Errorf("%s %s LLVM %d: read back differs:\n--- ours\n%s--- llvm\n%s", filepath.Base(file), bc.name, rel, b, a)
					continue
				}
				if !bytes.Equal(got, want) {
					semantic++
				}
			}
		}
	}
	t.Logf("extbinary: %d of %d outputs byte-identical, %d equal after reading (FuncMetadata order)", exact, total, semantic)
}
