package perfscript

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// FuzzDataAccess feeds ParseDataAccess `perf report -D` lines around the
// vtables of a real C++ binary (shapes, non-PIE and PIE): every outcome is
// a count of _ZTV symbols or a *decode.Error with a line, never a panic.
// (tools/profgen's TestDataAccess compares the counts with llvm-profgen-22
// on traces of real runs.)
func FuzzDataAccess(f *testing.F) {
	var bin *Binary
	var syms *DataAccessSymbols
	for _, p := range buildPrograms(f) {
		if p.name != "shapes-clang++-22-pie" {
			continue
		}
		var err error
		if bin, err = OpenBinary(p.bin); err != nil {
			f.Fatal(err)
		}
		if syms, err = bin.DataAccessSymbols(); err != nil {
			f.Fatal(err)
		}
	}
	if bin == nil {
		f.Fatal("no shapes binary")
	}
	var vt uint64
	for _, s := range syms.syms.Symbols() {
		if strings.HasPrefix(s.Name, "_ZTV") {
			vt = s.Addr
			break
		}
	}
	if vt == 0 {
		f.Fatal("shapes has no vtable symbol")
	}
	const base = 0x555500000000
	mmap := func(addr, size, off uint64, prot string) string {
		return fmt.Sprintf("0 0x1b0 [0xb0]: PERF_RECORD_MMAP2 7/7: [%#x(%#x) @ %#x fd:01 1 0]: %s /x/%s\n", addr, size, off, prot, bin.Name)
	}
	sample := func(pid int, ip, addr uint64) string {
		return fmt.Sprintf("1 0x420 [0x60]: PERF_RECORD_SAMPLE(IP, 0x4002): %d/%d: %#x period: 7 addr: %#x\n", pid, pid, ip, addr)
	}
	text := bin.PreferredBase() + 0x40
	f.Add([]byte(sample(7, text, vt+16) + sample(8, text+4, vt+8)))
	f.Add([]byte(mmap(base+vt&^0xfff, 0x2000, vt&^0xfff, "r--p") + sample(7, base+text, base+vt+16) + "\r\n" + sample(7, 1, 2)))
	f.Add([]byte(mmap(base, 0x1000, 0, "r--p") + mmap(base, 0x1000, 0, "r--p")))
	f.Add([]byte("PERF_RECORD_MMAP2 nonsense\n" + sample(99999999999, 1, 2)))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {PID: 7, HasPID: true, Warn: func(string) {}}} {
			counts, err := ParseDataAccess("fuzz", bytes.NewReader(data), bin, syms, bin.PreferredBase(), opts)
			if err != nil {
				var de *decode.Error
				if !errors.As(err, &de) || !strings.HasPrefix(de.Msg, "line ") {
					t.Fatalf("error %v (%T) is not a *decode.Error with a line", err, err)
				}
				continue
			}
			for k, n := range counts {
				if !strings.HasPrefix(k.VTable, "_ZTV") || n == 0 {
					t.Fatalf("count %v = %d", k, n)
				}
			}
		}
	})
}
