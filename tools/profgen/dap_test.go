package main

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// dapProgram is a program with virtual calls, an LBR trace of one run and
// a data-access trace (loads with their data addresses) of another.
type dapProgram struct {
	name, bin, lbr, dap string
}

// dapPeriod samples every dapPeriod-th load, as a load-sampling event
// (MEM_INST_RETIRED.ALL_LOADS with a period) would.
const dapPeriod = 23

// buildDAPPrograms compiles testdata/vcalls.cc PIE and non-PIE with
// clang++-22 and records, for each, two real runs:
//
//   - the branches: lbr-trace under qemu.
//   - the loads: valgrind's lackey tool (--trace-mem=yes) logs every
//     instruction and every data access of a real execution; every
//     dapPeriod-th load (or modify) becomes a PERF_RECORD_SAMPLE line of
//     `perf report -D` with the address of the instruction that made it and
//     the data address it read, as a PEBS load-sampling event records them.
//     The program prints where valgrind loaded it (its ELF header's
//     address). llvm-profgen canonicalizes the data-access IPs with the base
//     the LBR trace set (one perf session records both in practice), so the
//     addresses inside the binary are moved from valgrind's load bias to
//     the one of the qemu run (a constant per binary; heap, stack and
//     library addresses stay as recorded), and the PERF_RECORD_MMAP2 lines
//     are the kernel's mappings of the PT_LOAD segments at that bias. What
//     is not real: the period is counted in loads rather than by a PMU, and
//     the timestamps and record offsets are made up (llvm-profgen reads
//     neither).
//
// A tenth of the samples is repeated as process 4343, for --pid.
func buildDAPPrograms(t *testing.T) []dapProgram {
	t.Helper()
	valgrind := testenv.Tool(t, "valgrind")
	tracer := tracetest.Tracer(t)
	src := "testdata/vcalls.cc"
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tracerData, err := os.ReadFile(tracer)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(tracerData)
	inputs := []string{string(text), testenv.Version(t, "clang++-22"), testenv.ToolOutput(t, "valgrind", "--version"),
		testenv.ToolOutput(t, "qemu-x86_64", "--version"), hex.EncodeToString(sum[:]), fmt.Sprint("dap v2 period ", dapPeriod)}
	first, _, _ := strings.Cut(string(text), "\n")
	tmpl := strings.TrimPrefix(first, "// build: ")
	kinds := map[string]string{"pie": "-fPIE -pie", "nopie": "-fno-pie -no-pie"}
	dir := testenv.Cached(t, "profgen-dap", inputs, func(out string) error {
		for kind, flags := range kinds {
			bin := filepath.Join(out, "vcalls-"+kind)
			argv := strings.Fields(strings.NewReplacer("$CXX", "clang++-22", "$PIE", flags, "$OUT", bin).Replace(tmpl))
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = filepath.Dir(src)
			if o, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v: %v\n%s", argv, err, o)
			}
			args := []string{"--period", "97", "--jitter", "20", "--pid", "4242", "-q", "-o", bin + ".lbr.script", "--", bin, "40"}
			if o, err := exec.Command(tracer, args...).CombinedOutput(); err != nil {
				return fmt.Errorf("lbr-trace %v: %v\n%s", args, err, o)
			}
			script, err := os.ReadFile(bin + ".lbr.script")
			if err != nil {
				return err
			}
			m := lbrTextRe.FindSubmatch(script)
			if m == nil {
				return fmt.Errorf("%s.lbr.script: no mmap event of the binary's text", bin)
			}
			textAddr, _ := strconv.ParseUint(string(m[1]), 0, 64)
			if err := recordLoads(valgrind, bin, bin+".dap.txt", textAddr); err != nil {
				return err
			}
		}
		return nil
	})
	var progs []dapProgram
	for _, kind := range []string{"nopie", "pie"} {
		bin := filepath.Join(dir, "vcalls-"+kind)
		progs = append(progs, dapProgram{"vcalls-" + kind, bin, bin + ".lbr.script", bin + ".dap.txt"})
	}
	return progs
}

var (
	baseRe    = regexp.MustCompile(`base 0x([0-9a-f]+)`)
	lbrTextRe = regexp.MustCompile(`PERF_RECORD_MMAP2 \d+/\d+: \[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ [^\]]*\]: r-xp `)
)

// recordLoads runs bin under valgrind's lackey and writes the data-access
// dump to out, the binary's addresses moved to where its first executable
// segment is mapped at textAddr.
func recordLoads(valgrind, bin, out string, textAddr uint64) error {
	log := out + ".lackey"
	defer os.Remove(log)
	cmd := exec.Command(valgrind, "--tool=lackey", "--trace-mem=yes", "--log-file="+log, bin, "40")
	cmd.Env = append(os.Environ(), "PRINT_BASE=1")
	stderr, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("valgrind %s: %v\n%s", bin, err, stderr)
	}
	m := baseRe.FindSubmatch(stderr)
	if m == nil {
		return fmt.Errorf("%s printed no base under valgrind:\n%s", bin, stderr)
	}
	ehdr, _ := strconv.ParseUint(string(m[1]), 16, 64)
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	first, lo, hi, text := uint64(0), ^uint64(0), uint64(0), uint64(0)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if lo == ^uint64(0) {
			first = p.Vaddr &^ 0xfff
		}
		lo, hi = min(lo, p.Vaddr&^0xfff), max(hi, p.Vaddr+p.Memsz)
		if p.Flags&elf.PF_X != 0 && text == 0 {
			text = p.Vaddr &^ 0xfff
		}
	}
	vgBias, bias := ehdr-first, textAddr-text
	move := func(a uint64) uint64 {
		if vgBias+lo <= a && a < vgBias+hi {
			return a - vgBias + bias
		}
		return a
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	defer w.Close()
	bw := bufio.NewWriter(w)
	off := 0x100
	fmt.Fprintf(bw, "0 0x%x [0x28]: PERF_RECORD_COMM: vcalls:4242/4242\n", off)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		start := (p.Vaddr + bias) &^ 0xfff
		end := (p.Vaddr + bias + p.Filesz + 0xfff) &^ 0xfff
		prot := []byte("---p")
		if p.Flags&elf.PF_R != 0 {
			prot[0] = 'r'
		}
		if p.Flags&elf.PF_W != 0 {
			prot[1] = 'w'
		}
		if p.Flags&elf.PF_X != 0 {
			prot[2] = 'x'
		}
		pgoff := "0"
		if o := p.Off &^ 0xfff; o != 0 {
			pgoff = fmt.Sprintf("%#x", o)
		}
		off += 0xb0
		fmt.Fprintf(bw, "0 0x%x [0xb0]: PERF_RECORD_MMAP2 4242/4242: [%#x(%#x) @ %s fd:01 4711 0]: %s %s\n", off, start, end-start, pgoff, prot, bin)
	}
	lf, err := os.Open(log)
	if err != nil {
		return err
	}
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	var ip uint64
	loads, samples := 0, 0
	ts := uint64(712804701634173)
	for sc.Scan() {
		l := sc.Text()
		if len(l) < 3 || l[0] == '=' {
			continue
		}
		kind := strings.TrimSpace(l[:2])
		addr, _, _ := strings.Cut(strings.TrimSpace(l[2:]), ",")
		a, err := strconv.ParseUint(addr, 16, 64)
		if err != nil {
			continue
		}
		switch kind {
		case "I":
			ip = move(a)
			continue
		case "L", "M":
		default:
			continue
		}
		loads++
		if loads%dapPeriod != 0 {
			continue
		}
		a = move(a)
		samples++
		ts += 1000003
		off += 0x60
		fmt.Fprintf(bw, "%d 0x%x [0x60]: PERF_RECORD_SAMPLE(IP, 0x4002): 4242/4242: %#x period: %d addr: %#x\n", ts, off, ip, dapPeriod, a)
		if samples%10 == 0 {
			off += 0x60
			fmt.Fprintf(bw, "%d 0x%x [0x60]: PERF_RECORD_SAMPLE(IP, 0x4002): 4343/4343: %#x period: %d addr: %#x\n", ts+1, off, ip, dapPeriod, a)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if samples == 0 {
		return fmt.Errorf("lackey logged no loads of %s", bin)
	}
	return bw.Flush()
}

// TestDataAccess compares vtable type profiles with llvm-profgen-22 on
// data-access traces of real runs of vcalls (PIE and non-PIE): text, and
// extbinary with and without -extbinary-write-vtable-type-prof, with and
// without --pid; the vtable counts must be there, for every class.
func TestDataAccess(t *testing.T) {
	ref := testenv.Tool(t, "llvm-profgen-22")
	for _, p := range buildDAPPrograms(t) {
		for _, v := range []struct {
			format string
			extra  []string
		}{
			{"text", nil}, {"text", []string{"--pid=4242", "--update-total-samples"}},
			{"extbinary", []string{"--extbinary-write-vtable-type-prof"}}, {"extbinary", nil},
		} {
			if v.format == "extbinary" && len(v.extra) == 0 && p.name != "vcalls-nopie" {
				continue // vtables dropped, as llvm-profgen drops them: once is enough
			}
			t.Run(fmt.Sprintf("%s/%s/%s", p.name, v.format, strings.Join(v.extra, ",")), func(t *testing.T) {
				args := append([]string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--data-access-perftrace=" + p.dap,
					"--format=" + v.format}, v.extra...)
				runBoth(t, ref, 22, args)
				if v.format != "text" || len(v.extra) != 0 {
					return
				}
				out := filepath.Join(t.TempDir(), "out.txt")
				if msg, err := runOurs(t, append(args, "-o", out, "--llvm-version", "22")); err != nil {
					t.Fatalf("%v\n%s", err, msg)
				}
				text, _ := os.ReadFile(out)
				for _, vt := range []string{"_ZTV8Derived1:", "_ZTV8Derived3:", "_ZTVN12_GLOBAL__N_18Derived2E:"} {
					if !strings.Contains(string(text), vt) {
						t.Errorf("no counts of %s in\n%s", vt, text)
					}
				}
			})
		}
	}
}

// TestDataAccessBroken damages the data-access trace and misuses the flag:
// the same profile and warnings as llvm-profgen-22, or both fail.
func TestDataAccessBroken(t *testing.T) {
	ref := testenv.Tool(t, "llvm-profgen-22")
	p := buildDAPPrograms(t)[1] // PIE: the mmap events matter
	data, err := os.ReadFile(p.dap)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	dir := t.TempDir()
	for _, m := range []struct{ name, trace string }{
		{"same-mapping-twice", lines[0] + lines[1] + lines[1] + strings.Join(lines[2:], "")},
		{"overlapping-mapping", lines[0] + lines[1] + strings.Replace(lines[1], "000(0x", "800(0x", 1) + strings.Join(lines[2:], "")},
		{"no-mmap-events", lines[0] + strings.Join(lines[5:3000], "")},
		{"garbage", strings.Join(lines[:20], "") + "PERF_RECORD_MMAP2 1/1: garbage\n\x00\xff\n. 0000: 09 00 00 00\r\n" +
			"1 0x1 [0x60]: PERF_RECORD_SAMPLE(IP, 0x4002): 4242/4242: 0xzz period: 1 addr: 0x10\n" + strings.Join(lines[20:], "")},
		{"cut", string(data[:len(data)/8+37])},
		{"pid-overflow", strings.Join(lines[:30], "") + strings.Replace(lines[30], "4242/", "99999999999/", 1)},
		{"address-overflow", strings.Join(lines[:30], "") + strings.Replace(lines[30], "addr: 0x", "addr: 0xfffffffffffffffff", 1)},
	} {
		trace := filepath.Join(dir, m.name+".txt")
		if err := os.WriteFile(trace, []byte(m.trace), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(m.name, func(t *testing.T) {
			runBoth(t, ref, 22, []string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--data-access-perftrace=" + trace, "--format=text"})
		})
	}
	t.Run("missing-file", func(t *testing.T) {
		runBoth(t, ref, 22, []string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--data-access-perftrace=" + filepath.Join(dir, "none"), "--format=text"})
	})
	t.Run("hybrid", func(t *testing.T) {
		// Context-sensitive input: llvm-profgen refuses vtables.
		progs := buildPrograms(t)
		runBoth(t, ref, 22, []string{"--perfscript=" + progs[2].hyb, "--binary=" + progs[2].bin, "--data-access-perftrace=" + p.dap, "--format=text"})
	})
}
