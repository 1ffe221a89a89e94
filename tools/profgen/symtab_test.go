package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// setSymbolSize sets st_size of the symbol name at addr in the ELF file
// (llvm-objcopy --add-symbol adds symbols of size 0).
func setSymbolSize(t *testing.T, path, name string, addr, size uint64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	symtab := f.SectionByType(elf.SHT_SYMTAB)
	strtab := f.Sections[symtab.Link]
	patched := false
	for off := symtab.Offset; off+24 <= symtab.Offset+symtab.Size; off += 24 {
		nameOff := uint64(binary.LittleEndian.Uint32(data[off:]))
		s := data[strtab.Offset+nameOff:]
		if n := bytes.IndexByte(s, 0); n >= 0 && string(s[:n]) == name && binary.LittleEndian.Uint64(data[off+8:]) == addr {
			binary.LittleEndian.PutUint64(data[off+16:], size)
			patched = true
		}
	}
	if !patched {
		t.Fatalf("%s: no symbol %s at %#x", path, name, addr)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestSymbolTableNames compares with llvm-profgen-22 (and -19, which
// reads no symbol table) a probe binary whose symbol table disagrees with
// its DWARF: llvm-profgen-22 marks a DWARF function with a sized symbol of
// another name in its range as mismatched (its ranges count as recovered
// from the symbol table; DwarfNameStatus::Mismatch), and warns about a
// symbol of its own name (up to .llvm., .part., .cold) that starts inside
// it ("Conflicting range"). Symbols added with llvm-objcopy, sized here;
// LBR and hybrid traces, profiles and warnings.
func TestSymbolTableNames(t *testing.T) {
	var p program
	for _, q := range buildProbePrograms(t) {
		if q.name == "probe-calls-clang-22-nopie" {
			p = q
		}
	}
	objcopy := testenv.Tool(t, "llvm-objcopy-22")
	f, err := elf.Open(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text").Addr
	syms, _ := f.Symbols()
	f.Close()
	var fib elf.Symbol
	for _, s := range syms {
		if s.Name == "fib" {
			fib = s
		}
	}
	if fib.Size < 0x20 {
		t.Fatalf("fib: %+v, want a function of at least 32 bytes", fib)
	}
	type sym struct {
		name       string
		addr, size uint64
	}
	cases := []struct {
		name  string
		add   []sym
		extra []string // more llvm-objcopy arguments
	}{
		{"alias", []sym{{"fib_alias", fib.Value, fib.Size}}, nil},
		{"renamed", nil, []string{"--redefine-sym", "fib=fib_renamed"}},
		{"other-function-inside", []sym{{"collatz", fib.Value + 0x10, 0x10}}, nil},
		{"uniq-inside", []sym{{"fib.__uniq.1", fib.Value + 0x10, 0x10}}, nil},
		{"other-suffix-inside", []sym{{"fib.foo", fib.Value + 0x10, 0x10}}, nil},
		{"own-name-inside", []sym{{"fib", fib.Value + 0x10, 0x10}}, nil},
		{"cold-inside", []sym{{"fib.cold", fib.Value + 0x10, 0x10}}, nil},
		{"llvm-inside", []sym{{"fib.llvm.123", fib.Value + 0x10, 0x10}}, nil},
		{"part-inside", []sym{{"fib.part.0", fib.Value + 0x10, 0x10}}, nil},
		{"own-name-shorter", []sym{{"fib.cold", fib.Value, 0x8}}, nil},
		{"unsized", []sym{{"fib_alias", fib.Value + 0x10, 0}}, nil},
	}
	dir := t.TempDir()
	for _, c := range cases {
		bin := filepath.Join(dir, c.name, filepath.Base(p.bin))
		os.MkdirAll(filepath.Dir(bin), 0o755)
		args := append([]string{}, c.extra...)
		for _, s := range c.add {
			args = append(args, "--add-symbol", fmt.Sprintf("%s=.text:%#x,function,local", s.name, s.addr-text))
		}
		if out, err := exec.Command(objcopy, append(args, p.bin, bin)...).CombinedOutput(); err != nil {
			t.Fatalf("llvm-objcopy: %v\n%s", err, out)
		}
		for _, s := range c.add {
			if s.size > 0 {
				setSymbolSize(t, bin, s.name, s.addr, s.size)
			}
		}
		for _, trace := range []string{p.lbr, p.hyb} {
			for _, rel := range []int{19, 22} {
				t.Run(fmt.Sprintf("%s/%s/%d", c.name, filepath.Base(trace), rel), func(t *testing.T) {
					runBoth(t, testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel)), rel, []string{"--perfscript=" + trace, "--binary=" + bin, "--format=text"})
				})
			}
		}
	}
}
