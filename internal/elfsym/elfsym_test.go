package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestOpenErrors(t *testing.T) {
	if _, err := Open("testdata/does-not-exist", nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want ErrNotExist", err)
	}
	_, err := Open("testdata/tiny.c", nil)
	var de *decode.Error
	if !errors.As(err, &de) || !errors.Is(err, decode.ErrBadMagic) || de.File != "testdata/tiny.c" || de.Section != "ELF header" {
		t.Errorf("Open(tiny.c) = %v, want a *decode.Error for the ELF header wrapping ErrBadMagic", err)
	}
	data, err := os.ReadFile("testdata/tiny.elf")
	if err != nil {
		t.Fatal(err)
	}
	// Truncations must fail with a located error or succeed, never panic.
	for n := 0; n < len(data); n += 97 {
		if err := openAndSymbolize(data[:n]); err != nil {
			t.Errorf("tiny.elf truncated to %d bytes: %v", n, err)
		}
	}
	for i, seed := range fuzzSeeds(t) {
		for n := range len(seed) {
			if err := openAndSymbolize(seed[:n]); err != nil {
				t.Errorf("seed %d truncated to %d bytes: %v", i, n, err)
			}
		}
	}
}

func TestTinyFixture(t *testing.T) {
	var warns []string
	b, err := Open("testdata/tiny.elf", &Options{Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.dw == nil || len(warns) != 0 {
		t.Errorf("DWARF found: %v, warnings %q; want DWARF and no warnings", b.dw != nil, warns)
	}
	if got := hex.EncodeToString(b.BuildID()); len(got) != 40 {
		t.Errorf("BuildID() = %q, want 20 bytes", got)
	}
	if err := b.RequireDWARF(); err != nil {
		t.Errorf("RequireDWARF() = %v", err)
	}
	if _, err := b.Symbolize(0x10); !errors.Is(err, ErrUnknownPC) {
		t.Errorf("Symbolize(0x10) = %v, want ErrUnknownPC", err)
	}
	got := dumpAll(t, b, "testdata/tiny.elf")
	golden := "testdata/tiny.elf.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("symbolized tiny.elf differs from %s (run with -update to see):\n%s", golden, firstDiff(string(want), got))
	}
}

// dumpAll symbolizes every instruction and renders a stable text dump.
func dumpAll(t *testing.T, b *Binary, path string) string {
	var sb strings.Builder
	for _, a := range instructionAddrs(t, path) {
		fr, err := b.Symbolize(a)
		fmt.Fprintf(&sb, "%#x", a)
		if err != nil {
			fmt.Fprintf(&sb, " error: %v\n", err)
			continue
		}
		sb.WriteString("\n")
		for _, f := range fr {
			fmt.Fprintf(&sb, "  %s (%s) %s:%d:%d d=%d start=%s:%d@%#x inlined=%v\n",
				f.LinkageName, f.Name, f.File, f.Line, f.Column, f.Discriminator, f.StartFile, f.StartLine, f.StartAddress, f.Inlined)
		}
	}
	return sb.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n-%s\n+%s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths differ: %d vs %d lines", len(al), len(bl))
}

// The zlib DWARF 4 build of the same source must symbolize like the DWARF 5
// one except for what DWARF 4 cannot say.
func TestTinyCompressedDWARF4(t *testing.T) {
	b, err := Open("testdata/tiny-dwarf4-zlib.elf", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fr, err := b.Symbolize(b.ef.Entry)
	if err != nil || len(fr) == 0 || fr[len(fr)-1].LinkageName != "_start" || fr[0].File != "/src/tiny.c" {
		t.Errorf("Symbolize(entry) = %+v, %v; want _start in /src/tiny.c", fr, err)
	}
}

func TestStrippedFallback(t *testing.T) {
	fxs := buildMatrix(t)
	for _, fx := range fxs {
		if !strings.HasSuffix(fx.name, "/O2-stripped") {
			continue
		}
		var warns []string
		b, err := Open(fx.path, &Options{Warn: func(m string) { warns = append(warns, m) }})
		if err != nil {
			t.Fatal(err)
		}
		if b.dw != nil || len(warns) == 0 || !strings.Contains(warns[0], "no DWARF") {
			t.Errorf("%s: DWARF found: %v, warnings %q; want none and a no-DWARF warning", fx.name, b.dw != nil, warns)
		}
		if err := b.RequireDWARF(); !errors.Is(err, ErrNoDWARF) {
			t.Errorf("%s: RequireDWARF() = %v, want ErrNoDWARF", fx.name, err)
		}
		b.Close()
	}
}

// TestDebuglinkMoved: a stripped binary copied away from the file its
// .gnu_debuglink names has no DWARF (and no error).
func TestDebuglinkMoved(t *testing.T) {
	fxs := buildMatrix(t)
	for _, fx := range fxs {
		if !strings.HasSuffix(fx.name, "/O2-debuglink") {
			continue
		}
		// Copy the stripped binary elsewhere so the debuglink search fails.
		dir := t.TempDir()
		data, err := os.ReadFile(fx.path)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "prog")
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.dw != nil {
			t.Errorf("%s moved: DWARF found, want none", fx.name)
		}
		b.Close()
	}
}

// TestConcurrent symbolizes all addresses of every matrix binary from
// several goroutines in random order (run with -race) and checks the
// results equal a sequential run on a fresh Binary.
func TestConcurrent(t *testing.T) {
	fxs := buildMatrix(t)
	for _, fx := range fxs {
		switch fx.name {
		case "clang19/O2-dwarf5-split-dwp", "clang19/O2-dwarf4-split", "clang22/O2-dwarf5-profiling", "clang22/O0-dwarf4-nopie":
		default:
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			addrs := instructionAddrs(t, fx.path)
			seq, err := Open(fx.path, fx.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer seq.Close()
			want := make([]string, len(addrs))
			for i, a := range addrs {
				fr, err := seq.Symbolize(a)
				want[i] = fmt.Sprint(fr, err)
			}
			b, err := Open(fx.path, fx.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.Prefetch(addrs)
			}()
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewSource(int64(g)))
					for _, i := range r.Perm(len(addrs)) {
						fr, err := b.Symbolize(addrs[i])
						if got := fmt.Sprint(fr, err); got != want[i] {
							t.Errorf("%#x: concurrent %s, sequential %s", addrs[i], got, want[i])
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// fuzzOpts keeps fuzzed inputs from finding debug files on this machine
// and lets them reach past a broken program header table (symbolize's
// setting).
var fuzzOpts = Options{DWPFile: "/nonexistent.dwp", DebugFileDirectories: []string{"/nonexistent"}, IgnoreBadProgramHeaders: true}

// checkErr returns nil for a nil err, else a complaint unless err is a
// *decode.Error of this package naming file and a section and wrapping one
// of decode's sentinels.
func checkErr(err error, file string) error {
	if err == nil {
		return nil
	}
	var de *decode.Error
	if !errors.As(err, &de) {
		return fmt.Errorf("error %q (%T) is not a *decode.Error", err, err)
	}
	if de.Format != "elfsym" || de.File != file || de.Section == "" {
		return fmt.Errorf("error %q: format %q, file %q, section %q; want elfsym, %q and a section", err, de.Format, de.File, de.Section, file)
	}
	for _, s := range []error{decode.ErrBadMagic, decode.ErrUnsupportedVersion, decode.ErrTruncated, decode.ErrMalformed} {
		if errors.Is(err, s) {
			return nil
		}
	}
	return fmt.Errorf("error %q wraps no decode sentinel", err)
}

// openAndSymbolize opens data as a binary named "fuzz" and symbolizes what
// it suggests; it returns what was wrong with the errors.
func openAndSymbolize(data []byte) error {
	b, err := newFromBytes("fuzz", data, &fuzzOpts)
	if err != nil {
		return checkErr(err, "fuzz")
	}
	defer b.Close()
	return symbolizeSome(b)
}

// symbolizeSome looks up (a bounded number of) addresses the binary itself
// suggests. Symbolize may only fail with ErrUnknownPC, and otherwise returns
// a well-formed inline chain.
func symbolizeSome(b *Binary) error {
	var pre []uint64
	for _, s := range b.spans {
		pre = append(pre, s.lo, s.hi-1)
	}
	b.Prefetch(pre)
	var addrs []uint64
	for _, s := range b.spans {
		addrs = append(addrs, s.lo, s.lo+(s.hi-s.lo)/2, s.hi-1)
	}
	addrs = addrs[:min(len(addrs), 300)]
	// The walk over every subprogram (internal/profbinary's functions): names without ranges are never returned.
	subs, split := b.Subprograms()
	if split {
		more, _ := b.SplitSubprograms()
		subs = append(subs, more...)
	}
	for _, s := range subs {
		if s.Name == "" || len(s.Ranges) == 0 {
			return fmt.Errorf("Subprograms: %+v has no name or no ranges", s)
		}
	}
	syms := b.symtab().Symbols()
	for _, s := range syms[:min(len(syms), 100)] {
		addrs = append(addrs, s.Addr)
	}
	for _, a := range addrs {
		fr, err := b.Symbolize(a)
		if err != nil {
			if !errors.Is(err, ErrUnknownPC) {
				return fmt.Errorf("Symbolize(%#x): %v, want frames or ErrUnknownPC", a, err)
			}
			continue
		}
		if len(fr) == 0 {
			return fmt.Errorf("Symbolize(%#x): no frames and no error", a)
		}
		for i, f := range fr {
			if f.Inlined != (i < len(fr)-1) {
				return fmt.Errorf("Symbolize(%#x): frame %d of %d has Inlined = %v", a, i, len(fr), f.Inlined)
			}
		}
	}
	return nil
}

// FuzzOpen opens arbitrary bytes as an ELF file and symbolizes the
// addresses its DWARF and symbol table suggest. Seeds are the few-hundred-
// byte images of fuzzSeeds.
//
// The file comes in twelve pieces, concatenated: the fuzzer minimizes every
// input that finds new coverage, one argument at a time and in time
// quadratic in the argument's length, so one 600-byte argument costs some
// 180,000 executions (seconds, during which no progress is reported) where
// twelve 50-byte pieces cost 15,000.
func FuzzOpen(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		var p [12][]byte
		for i := range p {
			p[i] = s[len(s)*i/len(p) : len(s)*(i+1)/len(p)]
		}
		f.Add(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11])
	}
	f.Fuzz(func(t *testing.T, p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11 []byte) {
		if err := openAndSymbolize(slices.Concat(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzOpenPatch applies a small list of byte patches to one of the seed
// ELF files. Inputs stay a few bytes long, so the fuzzer's minimizer keeps
// up and mutations still reach every header, section and DWARF byte of
// the larger, compiled images too.
func FuzzOpenPatch(f *testing.F) {
	bases := fuzzSeeds(f)
	for _, p := range []string{"testdata/fuzz-seed-dwarf5.elf", "testdata/fuzz-seed-dwarf4-zlib.elf", "testdata/tiny.elf"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, data)
	}
	f.Add(uint8(0), []byte{})
	f.Add(uint8(5), []byte{0x40, 0x00, 0xff})
	f.Add(uint8(6), []byte{0x10, 0x20, 0x00, 0x11, 0x20, 0x80})
	f.Fuzz(func(t *testing.T, which uint8, patch []byte) {
		base := bases[int(which)%len(bases)]
		data := append([]byte(nil), base...)
		// Each patch is a 16-bit little-endian offset (scaled to the file)
		// and a byte value.
		for i := 0; i+3 <= len(patch); i += 3 {
			off := int(patch[i]) | int(patch[i+1])<<8
			data[off*len(data)>>16] = patch[i+2]
		}
		if err := openAndSymbolize(data); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDWARF mutates one DWARF section of a consistent set at a time, so
// that the mutations reach the DIE, abbreviation, line-program and
// range-list decoders. which picks the set (the assembled DWARF 4 or 5 of
// fuzzSeeds, beside tiny.elf's string and address sections) and the section
// that data replaces (.debug_info, .debug_abbrev, .debug_line or
// .debug_rnglists). One []byte argument rather than one per section
// concentrates the mutations (the fuzzer spreads them evenly over its
// arguments), and small sets keep the minimizer's stalls short: with
// tiny.elf's own, larger sections in the corpus (FuzzOpenPatch mutates
// those), a planted line-table panic took several times longer to find.
func FuzzDWARF(f *testing.F) {
	data, err := os.ReadFile("testdata/tiny.elf")
	if err != nil {
		f.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		f.Fatal(err)
	}
	l, err := readLayout("tiny.elf", data)
	if err != nil {
		f.Fatal(err)
	}
	tiny := loadSections("tiny.elf", ef, l, data, false, func(msg string) { f.Fatal(msg) })
	var sets []sections
	for _, v := range []uint16{4, 5} {
		s := tiny
		s.info, s.abbrev, s.line, s.rnglists = seedDWARF(v, 8)
		sets = append(sets, s)
	}
	section := func(s *sections, k int) *[]byte {
		return [...]*[]byte{&s.info, &s.abbrev, &s.line, &s.rnglists}[k%4]
	}
	for i := range sets {
		for k := range 4 {
			if d := *section(&sets[i], k); d != nil {
				f.Add(uint8(4*i+k), d)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ss := sets[int(which/4)%len(sets)]
		*section(&ss, int(which)) = data
		df := &dwarfFile{file: "fuzz", order: ef.ByteOrder, sec: ss}
		// The line program is also decoded on its own, so that its
		// mutations count when the DIEs beside it are broken.
		lu := &unit{df: df, version: 5, addrSize: 8, offSize: 4}
		if lt, err := lu.parseLineTable(0); err != nil {
			if err := checkErr(err, "fuzz"); err != nil {
				t.Fatal(err)
			}
		} else {
			var fr Frame
			for _, r := range lt.rows {
				lt.rowFrame(r.addr, &fr)
			}
		}
		if err := df.parseUnits(); err != nil {
			if err := checkErr(err, "fuzz"); err != nil {
				t.Fatal(err)
			}
			return
		}
		b := &Binary{path: "fuzz", dw: df}
		if err := b.buildIndex(); err != nil {
			if err := checkErr(err, "fuzz"); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := symbolizeSome(b); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkSymbolizeTiny opens the committed fixture and symbolizes each
// of its instructions (start-up included).
func BenchmarkSymbolizeTiny(b *testing.B) {
	data, err := os.ReadFile("testdata/tiny.elf")
	if err != nil {
		b.Fatal(err)
	}
	bin, err := Open("testdata/tiny.elf", nil)
	if err != nil {
		b.Fatal(err)
	}
	var addrs []uint64
	for _, s := range bin.spans {
		for a := s.lo; a < s.hi; a++ {
			addrs = append(addrs, a)
		}
	}
	bin.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bin, err := newFromBytes("tiny.elf", data, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range addrs {
			bin.Symbolize(a)
		}
	}
	b.ReportMetric(float64(len(addrs))*float64(b.N)/b.Elapsed().Seconds(), "addrs/s")
}

func TestSymbolizeAfterClose(t *testing.T) {
	b, err := Open("testdata/tiny.elf", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := b.ef.Entry
	if _, err := b.Symbolize(a); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := b.Symbolize(a); !errors.Is(err, ErrUnknownPC) {
		t.Errorf("Symbolize after Close = %v, want ErrUnknownPC", err)
	}
}

// TestSkipFast checks compiled skip programs against truncation and the
// variable-size forms they handle.
func TestSkipFast(t *testing.T) {
	ops := []skipOp{{pre: 2, form: formUdata}, {pre: 0, form: formString}, {pre: 1, form: formExprloc}, {pre: 4}}
	data := []byte{
		0xaa, 0xbb, // two fixed bytes
		0x80, 0x01, // ULEB 128
		'a', 'b', 0, // string
		0xcc,             // one fixed byte
		0x02, 0x01, 0x02, // exprloc of 2 bytes
		1, 2, 3, 4, // four fixed bytes
	}
	end, ok := skipFast(data, 0, ops, binary.LittleEndian)
	if !ok || end != uint64(len(data)) {
		t.Fatalf("skipFast = %d, %v; want %d, true", end, ok, len(data))
	}
	for n := range len(data) {
		if end, ok := skipFast(data[:n], 0, ops, binary.LittleEndian); ok {
			t.Errorf("truncated to %d bytes: skipFast = %d, true; want false", n, end)
		}
	}
	// A block length past the end must not wrap.
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	if _, ok := skipFast(huge, 0, []skipOp{{form: formBlock}}, binary.LittleEndian); ok {
		t.Error("block of 2^64-1 bytes accepted")
	}
}

// TestCompressedSizeLimit: a compressed section whose header claims far
// more than its bytes can inflate to is refused before anything is
// allocated, with a warning naming the section; the binary still opens
// (without DWARF, as LLVM without a usable .debug_info).
func TestCompressedSizeLimit(t *testing.T) {
	data, err := os.ReadFile("testdata/fuzz-seed-dwarf4-zlib.elf")
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 {
		t.Fatal("fixture lost its compressed .debug_info")
	}
	// Elf64_Chdr: ch_type, ch_reserved, ch_size, ch_addralign.
	binary.LittleEndian.PutUint64(data[s.Offset+8:], 1<<40)
	var warnings []string
	b, err := newFromBytes("bomb.elf", data, &Options{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatalf("open: %v, want the section dropped with a warning", err)
	}
	if b.RequireDWARF() == nil {
		t.Error("DWARF still used")
	}
	w := strings.Join(warnings, "\n")
	if !strings.Contains(w, ".debug_info") || !strings.Contains(w, "claims 1099511627776 bytes") {
		t.Fatalf("warnings = %q, want a refusal naming .debug_info and the claimed size", w)
	}
	t.Log(w)
}
