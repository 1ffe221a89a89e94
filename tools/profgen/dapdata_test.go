package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfdata/perfdatatest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

var (
	dapCommRe   = regexp.MustCompile(`^\d+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_COMM: (\S+):(\d+)/(\d+)$`)
	dapMmap2Re  = regexp.MustCompile(`^\d+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_MMAP2 (\d+)/(\d+): \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) [0-9a-f]+:[0-9a-f]+ \d+ \d+\]: ([-rwxps]{4}) (.+)$`)
	dapSampleRe = regexp.MustCompile(`^(\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\(IP, (0x[0-9a-f]+)\): (\d+)/(\d+): (0x[0-9a-f]+) period: (\d+) addr: (0x[0-9a-f]+)$`)
)

// dapPerfData writes the data-access trace dap (buildDAPPrograms' `perf
// report -D`-style dump) as the perf.data it describes: one load-sampling
// event (IP, TID, TIME, ADDR, PERIOD; sample_id_all), the COMM and MMAP2
// records and a PERF_RECORD_SAMPLE per sample line, a
// PERF_RECORD_FINISHED_ROUND after every thousand records.
func dapPerfData(dap string) ([]byte, error) {
	f, err := os.Open(dap)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := &perfdata.Attr{
		Type: 4, Config: 0x1cd, SamplePeriod: dapPeriod, // PERF_TYPE_RAW (a PEBS load event)
		SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime | perfdata.SampleAddr | perfdata.SamplePeriod,
		// disabled, inherit, mmap, comm, sample_id_all, mmap2, comm_exec
		Flags: 1 | 2 | 1<<8 | 1<<9 | perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagMmap2 | 1<<24,
	}
	out := &perfdatatest.File{Attrs: []*perfdata.Attr{a}}
	const user = 2 // PERF_RECORD_MISC_USER
	hex := func(s string) uint64 { v, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64); return v }
	dec := func(s string) uint64 { v, _ := strconv.ParseUint(s, 10, 64); return v }
	sc := bufio.NewScanner(f)
	line, time := 0, uint64(712804701000000)
	for sc.Scan() {
		line++
		s := sc.Text()
		if m := dapSampleRe.FindStringSubmatch(s); m != nil {
			time = dec(m[1])
			out.Records = append(out.Records, perfdatatest.Sample(a, uint16(hex(m[2])), &perfdata.Sample{
				PID: uint32(dec(m[3])), TID: uint32(dec(m[4])), Time: time, IP: hex(m[5]), Period: dec(m[6]), Addr: hex(m[7])}))
		} else if m := dapMmap2Re.FindStringSubmatch(s); m != nil {
			var prot, flags uint32
			for i, c := range "rwx" {
				if strings.ContainsRune(m[6], c) {
					prot |= 1 << i
				}
			}
			if m[6][3] == 's' {
				flags = 1
			} else {
				flags = 2 // MAP_PRIVATE
			}
			pid, tid := uint32(dec(m[1])), uint32(dec(m[2]))
			out.Records = append(out.Records, perfdatatest.Mmap2(a, user, perfdata.Mmap{PID: pid, TID: tid, Addr: hex(m[3]), Len: hex(m[4]), PgOff: hex(m[5]),
				Maj: 1, Ino: 4711, Prot: prot, Flags: flags, Filename: m[7]}, perfdata.SampleIDTrailer{PID: pid, TID: tid, Time: time}))
		} else if m := dapCommRe.FindStringSubmatch(s); m != nil {
			pid, tid := uint32(dec(m[2])), uint32(dec(m[3]))
			out.Records = append(out.Records, perfdatatest.Comm(a, user, perfdata.Comm{PID: pid, TID: tid, Comm: m[1]}, perfdata.SampleIDTrailer{PID: pid, TID: tid, Time: time}))
		} else {
			return nil, fmt.Errorf("%s:%d: not a line of the dump: %q", dap, line, s)
		}
		if len(out.Records)%1001 == 1000 {
			out.Records = append(out.Records, perfdatatest.FinishedRound())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// TestDataAccessPerfData: --data-access-perftrace takes perf.data itself.
// The data-access traces of TestDataAccess are written as perf.data
// (dapPerfData); the real perf prints them back (`perf report -D`, what
// llvm-profgen's data-access path reads), and ours on the perf.data must
// equal llvm-profgen-22 on perf's dump: profile and warnings, with and
// without --pid, and with --show-mmap-events.
func TestDataAccessPerfData(t *testing.T) {
	ref := testenv.Tool(t, "llvm-profgen-22")
	perf := testenv.Tool(t, "perf")
	dir := t.TempDir()
	for _, p := range buildDAPPrograms(t) {
		b, err := dapPerfData(p.dap)
		if err != nil {
			t.Fatal(err)
		}
		data := filepath.Join(dir, p.name+".data")
		if err := os.WriteFile(data, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(perf, "report", "-D", "-i", data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		dump, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf report -D -i %s: %v\n%s", data, err, stderr.String())
		}
		dumpFile := filepath.Join(dir, p.name+".dump")
		if err := os.WriteFile(dumpFile, dump, 0o644); err != nil {
			t.Fatal(err)
		}
		// perf printed every sample and mapping of the file, as the
		// dump it was written from has them.
		want, _ := os.ReadFile(p.dap)
		for _, kind := range []string{"PERF_RECORD_SAMPLE(", "PERF_RECORD_MMAP2 "} {
			if g, w := bytes.Count(dump, []byte(kind)), bytes.Count(want, []byte(kind)); g != w {
				t.Errorf("%s: perf report -D prints %d %s lines, the trace has %d", p.name, g, kind, w)
			}
		}
		for _, extra := range [][]string{nil, {"--pid=4242"}, {"--show-mmap-events"}} {
			t.Run(fmt.Sprintf("%s/%s", p.name, strings.Join(extra, ",")), func(t *testing.T) {
				common := append([]string{"--perfscript=" + p.lbr, "--binary=" + p.bin, "--format=text"}, extra...)
				refOut, ourOut := filepath.Join(t.TempDir(), "ref"), filepath.Join(t.TempDir(), "our")
				cmd := exec.Command(ref, append(common, "--data-access-perftrace="+dumpFile, "--output="+refOut)...)
				var refErr, refStdout bytes.Buffer
				cmd.Stderr, cmd.Stdout = &refErr, &refStdout
				if err := cmd.Run(); err != nil {
					t.Fatalf("llvm-profgen-22: %v\n%s", err, refErr.String())
				}
				var ourStdout, ourErr bytes.Buffer
				if err := run(append(common, "--data-access-perftrace="+data, "-o", ourOut, "--llvm-version", "22"), nil, &ourStdout, &ourErr); err != nil {
					t.Fatalf("profgen: %v\n%s", err, ourErr.String())
				}
				want, _ := os.ReadFile(refOut)
				got, _ := os.ReadFile(ourOut)
				if !bytes.Equal(got, want) {
					t.Errorf("profile differs from llvm-profgen-22 on perf report -D:\n--- llvm-profgen:\n%s\n--- ours:\n%s", want, got)
				}
				if g := strings.ReplaceAll(ourErr.String(), tool+": ", ""); g != refErr.String() {
					t.Errorf("warnings differ:\nllvm-profgen-22:\n%s\nours:\n%s", refErr.String(), g)
				}
				if g, w := ourStdout.String(), refStdout.String(); g != w {
					t.Errorf("stdout differs:\nllvm-profgen-22:\n%s\nours:\n%s", w, g)
				}
				if len(extra) == 0 && !bytes.Contains(got, []byte("_ZTV8Derived1:")) {
					t.Errorf("no vtable counts in\n%s", got)
				}
			})
		}
	}
}
