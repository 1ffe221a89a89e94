package sampleprof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

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
	var exact, total int
	for _, file := range textCorpus(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range releases {
			p, err := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
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
				o.Release = llvmrelease.Release(rel)
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
				} else {
					t.Errorf("%s %s LLVM %d: extbinary differs\nours %x\nllvm %x", filepath.Base(file), bc.name, rel, got, want)
					continue
				}
				// Both read back to the same profile.
				theirs, err := ReadExtBinary("llvm", want, ReadOptions{Release: llvmrelease.Release(rel)})
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
				ours, err := ReadExtBinary("ours", got, ReadOptions{Release: llvmrelease.Release(rel)})
				if err != nil {
					t.Errorf("%s %s LLVM %d: reading ours: %v", filepath.Base(file), bc.name, rel, err)
					continue
				}
				a := theirs.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)})
				b := ours.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)})
				if !bytes.Equal(a, b) {
					t.Errorf("%s %s LLVM %d: read back differs:\n--- ours\n%s--- llvm\n%s", filepath.Base(file), bc.name, rel, b, a)
					continue
				}
			}
		}
	}
	t.Logf("extbinary: %d of %d outputs byte-identical", exact, total)
}

func TestRawBinaryConformance(t *testing.T) {
	var exact, total int
	for _, file := range textCorpus(t)[:20] {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range []int{16, 22} {
			p, err := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
			if err != nil {
				continue
			}
			want, ok := llvmMerge(t, rel, file, "--binary")
			got, err := p.AppendBinary(nil)
			if !ok {
				if err == nil && !hasVTables(p) {
					t.Errorf("%s LLVM %d: llvm-profdata fails to write raw binary, we do not", filepath.Base(file), rel)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s LLVM %d: %v", filepath.Base(file), rel, err)
				continue
			}
			total++
			if !bytes.Equal(got, want) {
				t.Errorf("%s LLVM %d: raw binary differs\nours %x\nllvm %x", filepath.Base(file), rel, got, want)
				continue
			}
			exact++
			back, err := ReadBinary("llvm", want, ReadOptions{Release: llvmrelease.Release(rel)})
			if err != nil {
				continue // line offsets LLVM cannot read back either
			}
			if a, b := back.AppendText(nil, TextWriteOptions{Release: llvmrelease.Release(rel)}), p.AppendText(nil, TextWriteOptions{Release: 16}); !bytes.Equal(a, b) {
				t.Errorf("%s LLVM %d: raw binary reads back as\n%s\nwant\n%s", filepath.Base(file), rel, a, b)
			}
		}
	}
	t.Logf("raw binary: %d of %d byte-identical", exact, total)
}

func hasVTables(p *Profile) bool {
	return anyFunction(p, func(fs *FunctionSamples) bool { return len(fs.VTables) > 0 })
}

// anyFunction reports whether pred holds for a function or inlinee of p.
func anyFunction(p *Profile, pred func(*FunctionSamples) bool) bool {
	var walk func(fs *FunctionSamples) bool
	walk = func(fs *FunctionSamples) bool {
		if pred(fs) {
			return true
		}
		for _, c := range fs.Callsites {
			if walk(c.Callee) {
				return true
			}
		}
		return false
	}
	for _, fs := range p.Funcs {
		if walk(fs) {
			return true
		}
	}
	return false
}

// TestCompressedAndSymbolList: the symbol list and compressed sections
// byte for byte (zlibcompat writes zlib's own streams), and LLVM reads ours.
func TestCompressedAndSymbolList(t *testing.T) {
	dir := t.TempDir()
	syms := filepath.Join(dir, "syms.txt")
	os.WriteFile(syms, []byte("main\nfoo\nbar\n"), 0o644)
	file := "testdata/text/basic.txt"
	data, _ := os.ReadFile(file)
	for _, rel := range releases {
		p, err := ReadText(file, data, ReadOptions{Release: llvmrelease.Release(rel)})
		if err != nil {
			t.Fatal(err)
		}
		p.SymbolList = []string{"bar", "foo", "main"}
		want, ok := llvmMerge(t, rel, file, "--extbinary", "--prof-sym-list="+syms)
		if !ok {
			t.Fatalf("llvm-profdata-%d --prof-sym-list failed", rel)
		}
		got, _ := p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
		if !bytes.Equal(got, want) {
			t.Errorf("LLVM %d symbol list: differs\nours %x\nllvm %x", rel, got, want)
		}
		for _, args := range [][]string{{"--compress-all-sections"}, {"--compress-all-sections", "--prof-sym-list=" + syms}} {
			want, ok := llvmMerge(t, rel, file, append([]string{"--extbinary"}, args...)...)
			if !ok {
				t.Fatalf("llvm-profdata-%d %v failed", rel, args)
			}
			theirs, err := ReadExtBinary("llvm", want, ReadOptions{Release: llvmrelease.Release(rel)})
			if err != nil {
				t.Fatalf("LLVM %d %v: %v", rel, args, err)
			}
			q := p
			if len(args) == 1 {
				c := *p
				c.SymbolList = nil
				q = &c
			}
			got, _ := q.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel), CompressAll: true})
			if !bytes.Equal(got, want) {
				t.Errorf("LLVM %d %v: differs\nours %x\nllvm %x", rel, args, got, want)
			}
			if len(args) == 2 && !slices.Equal(theirs.SymbolList, p.SymbolList) {
				t.Errorf("LLVM %d: symbol list %q", rel, theirs.SymbolList)
			}
			// LLVM reads ours.
			tmp := filepath.Join(t.TempDir(), "ours.prof")
			os.WriteFile(tmp, got, 0o644)
			if txt, ok := llvmMerge(t, rel, tmp, "--text"); !ok || !bytes.Equal(txt, data) {
				t.Errorf("LLVM %d cannot read our compressed profile: %s", rel, txt)
			}
		}
	}
}

// TestTruncatedLastSection documents where we reject what llvm-profdata
// accepts. The last section LLVM writes is the function offset table.
// llvm-profdata-19 and -22 never read it (without an IR module they load
// every function, SampleProfileReaderExtBinaryBase::readOneSection), and
// no release checks a section's extent against the file size, so a file
// cut into that table merges as if it were whole (LLVM 16 reads the table,
// past the end of the buffer, and does not notice), while
// one cut a few bytes deeper merges, in 19 and 22, into different counts
// read from past the end of the buffer, with no error either. clang, which reads the table, would
// read past the end too. A section that lies outside the file is an error
// here, whichever section it is.
func TestTruncatedLastSection(t *testing.T) {
	data, err := os.ReadFile("testdata/text/basic.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range releases {
		p, err := ReadText("basic.txt", data, ReadOptions{Release: llvmrelease.Release(rel)})
		if err != nil {
			t.Fatal(err)
		}
		full, err := p.AppendExtBinary(nil, BinaryOptions{Release: llvmrelease.Release(rel)})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		whole := filepath.Join(dir, "whole.prof")
		os.WriteFile(whole, full, 0o644)
		wholeText, _ := llvmMerge(t, rel, whole, "--text")
		for _, cut := range []int{3, 10} {
			short := filepath.Join(dir, fmt.Sprintf("cut%d.prof", cut))
			os.WriteFile(short, full[:len(full)-cut], 0o644)
			llvmText, llvmOK := llvmMerge(t, rel, short, "--text")
			_, err := ReadExtBinary(short, full[:len(full)-cut], ReadOptions{Release: llvmrelease.Release(rel)})
			var de *decode.Error
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "outside the file") {
				t.Errorf("LLVM %d cut %d: got %v, want a section outside the file", rel, cut, err)
			}
			// What LLVM does, measured, so that a release that starts
			// checking shows up here.
			switch {
			case cut == 3:
				if !llvmOK || !bytes.Equal(llvmText, wholeText) {
					t.Errorf("llvm-profdata-%d no longer reads a file cut into its function offset table as whole (ok %v)", rel, llvmOK)
				}
			case rel == 16:
				// It reads the table, and the profiles through it.
				if llvmOK {
					t.Errorf("llvm-profdata-16 now accepts a file cut into its profiles")
				}
			default:
				if !llvmOK || bytes.Equal(llvmText, wholeText) {
					t.Errorf("llvm-profdata-%d cut into the profiles: ok %v, same as whole %v; it read past the end before", rel, llvmOK, bytes.Equal(llvmText, wholeText))
				}
			}
		}
	}
}

// TestLBRSplit: a large LBR section, encoded in two halves at once, is
// what one goroutine writes.
func TestLBRSplit(t *testing.T) {
	p := &Profile{}
	for i := range lbrSplit + 77 {
		fs := p.Get(Name(fmt.Sprintf("f%d", i)))
		fs.TotalSamples, fs.HeadSamples = uint64(i%500), uint64(i%7)
		b := fs.BodyAt(LineLocation{Line: uint32(i % 9)})
		b.Samples = uint64(i)
		b.AddCall(Name(fmt.Sprintf("f%d", i/3)), 5)
		b.AddCall(Name("g"), uint64(i%4))
		fs.CalleeAt(LineLocation{Line: 3}, Name("inl")).TotalSamples = 9
	}
	checkLBRSplit(t, p)
	// The second half is encoded into the end of the buffer's room; the
	// first half's names take more than the size hint counts for them,
	// so that the first half outgrows its part of the room (and is
	// reallocated).
	long := &Profile{}
	for i := range lbrSplit + 77 {
		name := fmt.Sprintf("f%d", i)
		if i < lbrSplit/2 {
			name += strings.Repeat("x", 3000)
		}
		fs := long.Get(Name(name))
		fs.TotalSamples = uint64(lbrSplit + 100 - i)
		fs.BodyAt(LineLocation{Line: 1}).Samples = 3
	}
	checkLBRSplit(t, long)
}

// checkLBRSplit checks that AppendExtBinary writes the same bytes on one
// goroutine as on two, after a prefix or not, compressed or not.
func checkLBRSplit(t *testing.T, p *Profile) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, o := range []BinaryOptions{{Release: 22}, {Release: 22, CompressAll: true}, {Release: 22, SplitLayout: true}} {
		for _, prefix := range [][]byte{nil, []byte("prefix")} {
			runtime.GOMAXPROCS(2)
			two, err := p.AppendExtBinary(slices.Clip(prefix), o)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GOMAXPROCS(1)
			one, err := p.AppendExtBinary(slices.Clip(prefix), o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one, two) {
				t.Fatalf("%+v, prefix %q: the LBR section written in two halves differs from one goroutine's (%d vs %d bytes)", o, prefix, len(two), len(one))
			}
		}
	}
}
