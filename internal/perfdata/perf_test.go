package perfdata

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// recordings returns the directory testdata/gen.sh filled: perf.data files
// this machine's perf recorded (file mode, -z, pipe mode) and what `perf
// script` prints of them.
func recordings(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "clang-22")
	testenv.Tool(t, "perf")
	if os.Geteuid() != 0 {
		// Unprivileged perf record of one's own processes needs
		// perf_event_paranoid ≤ 2 (Debian's default, 3, refuses it).
		b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		if err == nil {
			if v, _ := strconv.Atoi(strings.TrimSpace(string(b))); v > 2 {
				testenv.Missing(t, "perf record is not permitted: kernel.perf_event_paranoid is %d; as root: sysctl kernel.perf_event_paranoid=2 (or -1)", v)
			}
		}
	}
	return testenv.Script{
		Key:     "perfdata-record",
		Dir:     "testdata",
		Sources: []string{"gen.sh", "prog.c"},
		Tools:   []string{"clang-22", "perf"},
	}.Build(t)
}

type scriptSample struct {
	pid, tid   uint32
	time       uint64
	period, ip uint64
	chain      []uint64
}

func (s scriptSample) String() string {
	return fmt.Sprintf("%d/%d %d period %d ip %#x chain %x", s.pid, s.tid, s.time, s.period, s.ip, s.chain)
}

// parseHead parses "pid/tid secs.nsecs:" and returns the rest.
func parseHead(t *testing.T, line string) (scriptSample, string) {
	t.Helper()
	var s scriptSample
	f := strings.Fields(line)
	if len(f) < 2 {
		t.Fatalf("perf script line %q", line)
	}
	p, q, ok := strings.Cut(f[0], "/")
	secs, ns, ok2 := strings.Cut(strings.TrimSuffix(f[1], ":"), ".")
	if !ok || !ok2 || len(ns) != 9 {
		t.Fatalf("perf script line %q", line)
	}
	pid, _ := strconv.ParseUint(p, 10, 32)
	tid, _ := strconv.ParseUint(q, 10, 32)
	sv, _ := strconv.ParseUint(secs, 10, 64)
	nv, _ := strconv.ParseUint(ns, 10, 64)
	s.pid, s.tid, s.time = uint32(pid), uint32(tid), sv*1e9+nv
	return s, strings.Join(f[2:], " ")
}

// scriptSamples reads the two perf script outputs of one recording.
func scriptSamples(t *testing.T, samples, chains string) []scriptSample {
	t.Helper()
	var out []scriptSample
	b, err := os.ReadFile(samples)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		s, rest := parseHead(t, line)
		f := strings.Fields(rest)
		if len(f) != 2 {
			t.Fatalf("%s: line %q: want period and ip", samples, line)
		}
		s.period, _ = strconv.ParseUint(f[0], 10, 64)
		s.ip, _ = strconv.ParseUint(f[1], 16, 64)
		out = append(out, s)
	}
	b, err = os.ReadFile(chains)
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "\t"):
			// Pipe mode's script prints symbol names after the address.
			v, err := strconv.ParseUint(strings.Fields(line)[0], 16, 64)
			if err != nil || i < 0 {
				t.Fatalf("%s: callchain line %q", chains, line)
			}
			out[i].chain = append(out[i].chain, v)
		default:
			i++
			s, _ := parseHead(t, line)
			if i >= len(out) || s.time != out[i].time || s.tid != out[i].tid {
				t.Fatalf("%s: sample %d (%q) is not the one %s printed", chains, i, line, samples)
			}
		}
	}
	return out
}

// readSamples reads every sample of a perf.data file with this package,
// the callchain without its context markers, as perf script prints it.
func readSamples(t *testing.T, name string) ([]scriptSample, map[RecordType]int) {
	t.Helper()
	r, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	counts := map[RecordType]int{}
	var out []scriptSample
	var rec Record
	// perf script prints a user-space callchain entry as an offset in the
	// mapped file (start - addr + pgoff) when a mapping of the process
	// holds it: the test keeps the mappings to do the same.
	type mapping struct{ start, end, pgoff uint64 }
	maps := map[uint32][]mapping{}
	parent := map[uint32]uint32{}
	var raw []struct {
		pid   uint32
		chain []uint64
		o     scriptSample
	}
	for {
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		counts[rec.Type]++
		switch rec.Type {
		case RecordMmap, RecordMmap2:
			m := rec.Mmap
			maps[m.PID] = append(maps[m.PID], mapping{m.Addr, m.Addr + m.Len, m.PgOff})
		case RecordFork:
			if rec.Fork.PID != rec.Fork.PPID {
				parent[rec.Fork.PID] = rec.Fork.PPID
			}
		}
		if rec.InCompressed {
			counts[RecordCompressed]++
		}
		if rec.Type != RecordSample {
			continue
		}
		s := &rec.Sample
		o := scriptSample{pid: s.PID, tid: s.TID, time: s.Time, period: s.Period, ip: s.IP}
		raw = append(raw, struct {
			pid   uint32
			chain []uint64
			o     scriptSample
		}{s.PID, slices.Clone(s.Callchain), o})
	}
	// The mappings come in the order the ring buffers were written, not
	// in time: look them up once all are read, in the process and then
	// the processes it was forked from.
	lookup := func(pid uint32, a uint64) uint64 {
		for seen := 0; seen < 100; seen++ {
			ms := maps[pid]
			for i := len(ms) - 1; i >= 0; i-- {
				if ms[i].start <= a && a < ms[i].end {
					return a - ms[i].start + ms[i].pgoff
				}
			}
			p, ok := parent[pid]
			if !ok {
				break
			}
			pid = p
		}
		return a
	}
	for _, rs := range raw {
		o := rs.o
		user := false
		for _, a := range rs.chain {
			if a >= ContextMax {
				user = a == ContextUser
				continue
			}
			if user {
				a = lookup(rs.pid, a)
			}
			o.chain = append(o.chain, a)
		}
		out = append(out, o)
	}
	return out, counts
}

func sortSamples(s []scriptSample) {
	slices.SortStableFunc(s, func(a, b scriptSample) int {
		if a.time != b.time {
			return cmpU(a.time, b.time)
		}
		if a.tid != b.tid {
			return cmpU(uint64(a.tid), uint64(b.tid))
		}
		return cmpU(a.ip, b.ip)
	})
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestPerfScript compares every sample of real recordings with what perf
// script prints: pid, tid, time, period, ip and callchain.
func TestPerfScript(t *testing.T) {
	dir := recordings(t)
	for _, mode := range []string{"file", "zstd", "pipe"} {
		t.Run(mode, func(t *testing.T) {
			want := scriptSamples(t, filepath.Join(dir, mode+".samples.txt"), filepath.Join(dir, mode+".chains.txt"))
			got, counts := readSamples(t, filepath.Join(dir, mode+".data"))
			t.Logf("%s: %d samples, records %v", mode, len(got), counts)
			if mode == "zstd" && counts[RecordCompressed] == 0 {
				t.Errorf("no record came from a PERF_RECORD_COMPRESSED")
			}
			for _, typ := range []RecordType{RecordComm, RecordMmap2, RecordFork, RecordExit} {
				if counts[typ] == 0 {
					t.Errorf("no %s record", typ)
				}
			}
			sortSamples(got)
			sortSamples(want)
			if len(got) != len(want) {
				t.Errorf("%d samples, perf script prints %d", len(got), len(want))
			}
			bad := 0
			for i := 0; i < min(len(got), len(want)); i++ {
				g, w := got[i], want[i]
				if g.pid != w.pid || g.tid != w.tid || g.time != w.time || g.period != w.period || g.ip != w.ip || !slices.Equal(g.chain, w.chain) {
					if bad++; bad <= 5 {
						t.Errorf("sample %d:\n got %v\nwant %v", i, g, w)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d samples differ", bad, len(want))
			}
		})
	}
}

// TestMmapAndBuildIDs checks the non-sample records against perf script
// --show-mmap-events and the build-id table against perf buildid-list.
func TestMmapAndBuildIDs(t *testing.T) {
	dir := recordings(t)
	perf := testenv.Tool(t, "perf")
	name := filepath.Join(dir, "file.data")
	out, err := exec.Command(perf, "buildid-list", "-i", name).Output()
	if err != nil {
		t.Fatalf("perf buildid-list: %v", err)
	}
	r, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for _, b := range r.BuildIDs {
		got = append(got, fmt.Sprintf("%x %s", b.BuildID, b.Filename))
	}
	var want []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("build ids:\n got %q\nwant %q", got, want)
	}
	// The kernel names prog by the temporary directory it was built in.
	const prog = "/prog"
	found := false
	for _, b := range r.BuildIDs {
		found = found || strings.HasSuffix(b.Filename, prog)
	}
	if !found {
		t.Errorf("no build id for %s", prog)
	}
	// The MMAP2 events of prog, as perf script prints them.
	script, err := exec.Command(perf, "script", "-i", name, "--show-mmap-events", "--show-task-events", "-F", "pid,tid").Output()
	if err != nil {
		t.Fatal(err)
	}
	var wantM []string
	for _, line := range strings.Split(string(script), "\n") {
		if i := strings.Index(line, "PERF_RECORD_MMAP2 "); i >= 0 && strings.HasSuffix(line, prog) {
			wantM = append(wantM, line[i:])
		}
	}
	var gotM []string
	var rec Record
	for {
		err := r.Next(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == RecordMmap2 && strings.HasSuffix(rec.Mmap.Filename, prog) {
			m := rec.Mmap
			// perf script: "PERF_RECORD_MMAP2 pid/tid: [addr(len) @ pgoff maj:min ino gen]: prot file"
			gotM = append(gotM, fmt.Sprintf("PERF_RECORD_MMAP2 %d/%d: [%#x(%#x) @ %#x %02x:%02x %d %d]: %s %s",
				m.PID, m.TID, m.Addr, m.Len, m.PgOff, m.Maj, m.Min, m.Ino, m.InoGeneration, protString(m.Prot, m.Flags), m.Filename))
		}
	}
	if len(wantM) == 0 || !slices.Equal(gotM, wantM) {
		t.Errorf("MMAP2 events of prog:\n got %q\nwant %q", gotM, wantM)
	}
}

func protString(prot, flags uint32) string {
	b := []byte("---p")
	if prot&1 != 0 {
		b[0] = 'r'
	}
	if prot&2 != 0 {
		b[1] = 'w'
	}
	if prot&4 != 0 {
		b[2] = 'x'
	}
	if flags&1 != 0 { // MAP_SHARED
		b[3] = 's'
	}
	return string(b)
}

// TestOrdered checks that Ordered delivers samples in perf script's order,
// and the mmap events among them where perf script prints them.
func TestOrdered(t *testing.T) {
	dir := recordings(t)
	perf := testenv.Tool(t, "perf")
	for _, mode := range []string{"file", "zstd", "pipe"} {
		t.Run(mode, func(t *testing.T) {
			name := filepath.Join(dir, mode+".data")
			out, err := exec.Command(perf, "script", "-i", name, "--show-mmap-events", "-F", "pid,tid,time", "--ns").Output()
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
				if line == "" || strings.HasPrefix(line, "\t") {
					continue // pipe mode's script prints the call stacks whatever -F says
				}
				if strings.Contains(line, "PERF_RECORD_MMAP") {
					// "pid/tid time: PERF_RECORD_MMAP2 pid/tid: [...]: ... file"
					f := strings.Fields(line)
					want = append(want, "mmap "+f[len(f)-1])
					continue
				}
				s, _ := parseHead(t, line)
				want = append(want, fmt.Sprintf("%d/%d %d", s.pid, s.tid, s.time))
			}
			r, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			o := NewOrdered(r)
			var got []string
			var rec Record
			for {
				err := o.Next(&rec)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch rec.Type {
				case RecordSample:
					got = append(got, fmt.Sprintf("%d/%d %d", rec.Sample.PID, rec.Sample.TID, rec.Sample.Time))
				case RecordMmap, RecordMmap2:
					got = append(got, "mmap "+rec.Mmap.Filename)
				}
			}
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("record %d: got %q, perf script %q (%d vs %d records)", i, got[i], want[i], len(got), len(want))
					}
				}
				t.Fatalf("%d records, perf script %d", len(got), len(want))
			}
		})
	}
}
