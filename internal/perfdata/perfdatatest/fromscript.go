package perfdatatest

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/perfdata"
)

// FromScript turns a perf script trace of LBR samples (`perf script -F
// ip,brstack --show-mmap-events`, as lbr-trace prints it) into the
// perf.data perf would have printed it from: one cycles event sampling
// branch stacks (PERF_SAMPLE_BRANCH_ANY, with hw_idx), and call stacks too
// when the trace is hybrid (its samples start with "\t"-indented frames),
// a PERF_RECORD_MMAP2 per mmap line, and a PERF_RECORD_SAMPLE per sample
// of the process of the mmap line before it, in user mode, one
// microsecond apart, a PERF_RECORD_FINISHED_ROUND after every thousand.
func FromScript(r io.Reader) (*File, error) { return fromScript(r, true) }

// FromScriptNoHWIndex is FromScript without hw_idx in the branch stacks
// (PERF_SAMPLE_BRANCH_HW_INDEX unset), as perf wrote them before Linux 5.7
// and as create_llvm_prof 0.19 (Debian's autofdo) reads them.
func FromScriptNoHWIndex(r io.Reader) (*File, error) { return fromScript(r, false) }

func fromScript(r io.Reader, hwIndex bool) (*File, error) {
	const (
		callchain = 1
		lbr       = 2
	)
	type sample struct {
		pid       uint32
		ip        uint64
		callchain []uint64
		branches  []perfdata.BranchEntry
	}
	var (
		samples []sample
		mmaps   [][2]int // (sample index before which it comes, mmap index)
		maps    []perfdata.Mmap
		pid     uint32
		stack   []uint64
		kinds   int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<26)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if strings.TrimSpace(s) == "" {
			continue
		}
		if strings.HasPrefix(s, "PERF_RECORD_MMAP2 ") {
			m, err := parseMmap2(s)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			pid = m.PID
			mmaps = append(mmaps, [2]int{len(samples), len(maps)})
			maps = append(maps, m)
			continue
		}
		if strings.HasPrefix(s, "\t") {
			v, err := strconv.ParseUint(strings.TrimSpace(s), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: frame %q", line, s)
			}
			stack = append(stack, v)
			continue
		}
		f := strings.Fields(s)
		smp := sample{pid: pid}
		if len(stack) > 0 {
			kinds |= callchain
			smp.ip = stack[0]
			smp.callchain = append([]uint64{perfdata.ContextUser}, stack...)
			stack = stack[:0]
		} else {
			if len(f) == 0 || strings.Contains(f[0], "/") {
				return nil, fmt.Errorf("line %d: a sample with neither ip nor frames", line)
			}
			v, err := strconv.ParseUint(f[0], 16, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: ip %q", line, f[0])
			}
			smp.ip = v
			f = f[1:]
		}
		kinds |= lbr
		for _, e := range f {
			b, err := parseBranch(e)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			smp.branches = append(smp.branches, b)
		}
		samples = append(samples, smp)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	st := perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime | perfdata.SampleCPU | perfdata.SamplePeriod | perfdata.SampleBranchStack
	if kinds&callchain != 0 {
		st |= perfdata.SampleCallchain
	}
	a := &perfdata.Attr{
		Type: 0, Config: 0, SamplePeriod: 100003, SampleType: st,
		// disabled, inherit, mmap, comm, sample_id_all, mmap2, comm_exec
		Flags:            1 | 2 | 1<<8 | 1<<9 | perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagMmap2 | 1<<24,
		BranchSampleType: 1 << 3, // PERF_SAMPLE_BRANCH_ANY
	}
	if hwIndex {
		a.BranchSampleType |= perfdata.BranchHWIndex
	}
	f := &File{Attrs: []*perfdata.Attr{a}}
	mi := 0
	for i := 0; i <= len(samples); i++ {
		for mi < len(mmaps) && mmaps[mi][0] == i {
			m := maps[mmaps[mi][1]]
			f.Records = append(f.Records, Mmap2(a, perfdata.MiscUser, m, perfdata.SampleIDTrailer{PID: m.PID, TID: m.TID, Time: uint64(1000 * i)}))
			mi++
		}
		if i == len(samples) {
			break
		}
		s := samples[i]
		ps := &perfdata.Sample{IP: s.ip, PID: s.pid, TID: s.pid, Time: uint64(1000*i + 500), Period: a.SamplePeriod,
			Callchain: s.callchain, Branches: s.branches, HasHWIndex: hwIndex}
		f.Records = append(f.Records, Sample(a, perfdata.MiscUser, ps))
		if i%1000 == 999 {
			// perf record ends a round each time it drains the ring
			// buffers: readers (perf's and perfdata.Ordered) hold no
			// more than two rounds.
			f.Records = append(f.Records, FinishedRound())
		}
	}
	return f, nil
}

// parseMmap2 reads "PERF_RECORD_MMAP2 pid/tid: [0xaddr(0xlen) @ 0xpgoff
// maj:min ino gen]: prot file".
func parseMmap2(s string) (perfdata.Mmap, error) {
	var m perfdata.Mmap
	var prot, file string
	rest := strings.TrimPrefix(s, "PERF_RECORD_MMAP2 ")
	n, err := fmt.Sscanf(rest, "%d/%d: [%v(%v) @ %v %x:%x %d %d]: %s", &m.PID, &m.TID, &m.Addr, &m.Len, &m.PgOff, &m.Maj, &m.Min, &m.Ino, &m.InoGeneration, &prot)
	if err != nil || n != 10 {
		return m, fmt.Errorf("mmap event %q: %v", s, err)
	}
	_, file, ok := strings.Cut(rest, "]: "+prot+" ")
	if !ok {
		return m, fmt.Errorf("mmap event %q: no file name", s)
	}
	m.Filename = file
	for i, c := range []byte{'r', 'w', 'x'} {
		if len(prot) == 4 && prot[i] == c {
			m.Prot |= 1 << i
		}
	}
	if len(prot) == 4 && prot[3] == 's' {
		m.Flags = 1 // MAP_SHARED
	} else {
		m.Flags = 2 // MAP_PRIVATE
	}
	return m, nil
}

// parseBranch reads "0xfrom/0xto/M|P|-/X|-/A|-/cycles[/type[/spec]]".
func parseBranch(e string) (perfdata.BranchEntry, error) {
	p := strings.Split(e, "/")
	if len(p) < 6 {
		return perfdata.BranchEntry{}, fmt.Errorf("branch %q", e)
	}
	from, err1 := strconv.ParseUint(strings.TrimPrefix(p[0], "0x"), 16, 64)
	to, err2 := strconv.ParseUint(strings.TrimPrefix(p[1], "0x"), 16, 64)
	cycles, err3 := strconv.ParseUint(p[5], 10, 16)
	if err1 != nil || err2 != nil || err3 != nil {
		return perfdata.BranchEntry{}, fmt.Errorf("branch %q", e)
	}
	var flags uint64
	switch p[2] {
	case "M":
		flags |= 1
	case "P":
		flags |= 2
	}
	if p[3] == "X" {
		flags |= 4
	}
	if p[4] == "A" {
		flags |= 8
	}
	flags |= cycles << 4
	return perfdata.BranchEntry{From: from, To: to, Flags: flags}, nil
}
