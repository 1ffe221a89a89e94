package perfscript

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mutation damages a real trace the way broken perf output does.
type mutation struct {
	name string
	// modes the mutation applies to: "lbr", "hybrid" or both.
	hybrid, lbr bool
	fn          func(lines []string, bin string) []string
}

func splitLines(data []byte) []string {
	return strings.SplitAfter(string(data), "\n")
}

// sampleLines returns the indexes of the lines that hold LBR entries.
func sampleLines(lines []string) []int {
	var idx []int
	for i, l := range lines {
		if strings.Contains(l, "/P/") {
			idx = append(idx, i)
		}
	}
	return idx
}

func insertAt(lines []string, i int, add ...string) []string {
	out := append([]string{}, lines[:i]...)
	out = append(out, add...)
	return append(out, lines[i:]...)
}

func mmapLine(lines []string) int {
	for i, l := range lines {
		if strings.Contains(l, "PERF_RECORD_MMAP") {
			return i
		}
	}
	return -1
}

var mutations = []mutation{
	{"cut-entry", true, true, func(l []string, _ string) []string {
		// Cut the third sample's LBR line inside its fifth entry.
		i := sampleLines(l)[2]
		s := l[i]
		k := 0
		for n := 0; n < 5; n++ {
			k += strings.Index(s[k:], "0x") + 2
		}
		l[i] = s[:k+3] + "\n"
		return l
	}},
	{"junk-lines", true, true, func(l []string, _ string) []string {
		i := sampleLines(l)[4]
		return insertAt(l, i, "garbage in the trace\n", "\n", "# comment\n", "0x12/zz/P\n")
	}},
	{"unknown-events", true, true, func(l []string, _ string) []string {
		i := sampleLines(l)[3]
		return insertAt(l, i,
			"PERF_RECORD_COMM 4242/4242: lbr\n",
			"PERF_RECORD_FORK(4243:4243):(4242:4242) parent of the child process\n",
			"PERF_RECORD_MMAP2 4242/4242: this is not an mmap event at all, really\n",
			"   PERF_RECORD_MMAP3 4242/4242: [0x4000001000(0x1000) @ 0x1000]: r-xp x\n",
			"PERF_RECORD_MMAP2 4242/4242: [0x7f0000001000(0x20000) @ 0x1000 fe:00 1 0]: r-xp /lib/libc.so.6\n")
	}},
	{"outside-mappings", true, true, func(l []string, _ string) []string {
		for n, i := range sampleLines(l)[5:9] {
			f := strings.SplitN(l[i], "0x", 4)
			if len(f) == 4 {
				// Source and target of an entry outside every mapping.
				f[2] = fmt.Sprintf("dead%04x/0xbeef%04x/", n, n) + f[2][strings.Index(f[2], "/P/")+1:]
				l[i] = strings.Join(f, "0x")
			}
		}
		return l
	}},
	{"no-mmap", true, true, func(l []string, _ string) []string {
		i := mmapLine(l)
		return append(l[:i], l[i+1:]...)
	}},
	{"mmap-v1", true, true, func(l []string, _ string) []string {
		i := mmapLine(l)
		m, _ := parseMMap([]byte(l[i]))
		l[i] = fmt.Sprintf("PERF_RECORD_MMAP %d/%d: [%#x(%#x) @ %#x]: x %s\n", m.PID, m.PID, m.Address, m.Size, m.Offset, m.Path)
		return l
	}},
	{"mmap-late-and-moved", true, true, func(l []string, _ string) []string {
		// The mmap comes after some samples, and the binary is mapped again
		// 1 MiB higher later on: the samples in between are external.
		i := mmapLine(l)
		mm := l[i]
		l = append(l[:i], l[i+1:]...)
		s := sampleLines(l)
		l = insertAt(l, s[len(s)/2], mm)
		m, _ := parseMMap([]byte(mm))
		moved := strings.Replace(mm, fmt.Sprintf("[%#x(", m.Address), fmt.Sprintf("[%#x(", m.Address+1<<20), 1)
		s = sampleLines(l)
		return insertAt(l, s[3*len(s)/4], moved)
	}},
	{"mmap-bad-offset", true, true, func(l []string, _ string) []string {
		i := mmapLine(l)
		m, _ := parseMMap([]byte(l[i]))
		l[i] = strings.Replace(l[i], fmt.Sprintf("[%#x(", m.Address), fmt.Sprintf("[%#x(", m.Address+0x10000), 1)
		l[i] = strings.Replace(l[i], fmt.Sprintf("@ %#x ", m.Offset), "@ 0 ", 1)
		return l
	}},
	{"mmap-inside-segment", true, true, func(l []string, _ string) []string {
		// A second piece of the text segment, mapped consistently or not.
		i := mmapLine(l)
		m, _ := parseMMap([]byte(l[i]))
		ok := fmt.Sprintf("PERF_RECORD_MMAP2 %d/%d: [%#x(0x1000) @ %#x fe:00 1 0]: r-xp %s\n", m.PID, m.PID, m.Address+0x100, m.Offset+0x100, m.Path)
		bad := fmt.Sprintf("PERF_RECORD_MMAP2 %d/%d: [%#x(0x1000) @ %#x fe:00 1 0]: r-xp %s\n", m.PID, m.PID, m.Address+0x300, m.Offset+0x100, m.Path)
		s := sampleLines(l)
		l = insertAt(l, s[len(s)-1], bad)
		return insertAt(l, i+1, ok)
	}},
	{"repeat-counts", true, true, func(l []string, _ string) []string {
		s := sampleLines(l)
		for k := len(s) - 1; k >= 0; k -= 7 {
			i := s[k]
			if strings.HasPrefix(l[i], " 0x") {
				// Hybrid: the count goes before the stack.
				for i > 0 && strings.TrimSpace(l[i-1]) != "" {
					i--
				}
			}
			l = insertAt(l, i, fmt.Sprintf("%d\n", k%5))
		}
		return l
	}},
	{"crlf", true, true, func(l []string, _ string) []string {
		for i := range l {
			l[i] = strings.ReplaceAll(l[i], "\n", "\r\n")
		}
		return l
	}},
	{"no-final-newline", true, true, func(l []string, _ string) []string {
		l[len(l)-1] = strings.TrimSuffix(l[len(l)-1], "\n")
		return l
	}},
	{"bad-frames", true, false, func(l []string, _ string) []string {
		s := sampleLines(l)
		for _, i := range s[2:6] {
			l[i-2] = "\tnot-a-frame\n"
		}
		// A return address that does not follow a call truncates the stack.
		for _, i := range s[7:9] {
			f := strings.TrimSpace(l[i-1])
			l[i-1] = "\t" + f[:len(f)-1] + "0\n"
		}
		return l
	}},
	{"no-lbr-line", true, false, func(l []string, _ string) []string {
		// The last sample lost its LBR line.
		s := sampleLines(l)
		return l[:s[len(s)-1]]
	}},
	{"empty", true, true, func(l []string, _ string) []string {
		return l[:1]
	}},
}

// TestBrokenTraces damages real traces (cut entries, junk lines, unknown
// events, addresses outside every mapping, missing and moved mmap events,
// repeat counts, CRLF) and checks that Parse gives the profile, warnings
// and errors llvm-profgen 19 and 22 give.
func TestBrokenTraces(t *testing.T) {
	progs := buildPrograms(t)
	for _, p := range progs {
		if !strings.HasPrefix(p.name, "calls-") {
			continue
		}
		for _, kind := range []string{"lbr", "hybrid"} {
			data, err := os.ReadFile(p.traces[kind])
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mutations {
				if (kind == "lbr" && !m.lbr) || (kind == "hybrid" && !m.hybrid) {
					continue
				}
				t.Run(p.name+"/"+kind+"/"+m.name, func(t *testing.T) {
					lines := m.fn(splitLines(bytes.Clone(data)), p.bin)
					trace := filepath.Join(t.TempDir(), "broken.script")
					if err := os.WriteFile(trace, []byte(strings.Join(lines, "")), 0o644); err != nil {
						t.Fatal(err)
					}
					var extra []string
					opts := Options{}
					if kind == "hybrid" {
						extra = append(extra, "--ignore-stack-samples")
						opts.IgnoreStackSamples = true
					}
					got := ours(t, p.bin, trace, opts)
					if testing.Verbose() {
						t.Logf("ours: error %q, warnings %q", got.err, got.warnings)
					}
					for _, tool := range profgens {
						compare(t, tool, runProfgen(t, tool, p.bin, trace, extra...), got)
					}
					if kind == "hybrid" {
						compareHybridParallel(t, p.bin, trace)
					}
					if kind == "lbr" {
						// One line per batch: the parallel parse's order.
						defer func(n int) { lbrBatchBytes = n }(lbrBatchBytes)
						lbrBatchBytes = 1
						if small := ours(t, p.bin, trace, opts); small.err != got.err || small.out != got.out || !slices.Equal(small.warnings, got.warnings) {
							t.Errorf("one line per batch: error %q, warnings %q; with the default batches: %q, %q", small.err, small.warnings, got.err, got.warnings)
						}
					}
				})
			}
		}
	}
}

// compareHybridParallel reads a hybrid trace with its stacks (the
// HybridSample hook) in parallel, with the default batches and one sample
// per batch, and sequentially (parseHybridSample alone): the same samples
// in the same order, the same warnings, errors and counts; through
// HybridSample and through HybridRecord.
func compareHybridParallel(t *testing.T, bin, trace string) {
	t.Helper()
	read := func(parallel bool, batch int, record bool) string {
		defer func(p bool, n int) { hybridParallel, lbrBatchBytes = p, n }(hybridParallel, lbrBatchBytes)
		hybridParallel, lbrBatchBytes = parallel, batch
		var b strings.Builder
		b2, f := openTrace(t, bin, trace)
		opts := Options{
			Warn: func(m string) { fmt.Fprintf(&b, "warning: %s\n", m) },
			HybridSample: func(stack []uint64, lbr []Branch, count uint64, first bool) {
				fmt.Fprintf(&b, "%x %x %d %v\n", stack, lbr, count, first)
			},
		}
		if record {
			opts.HybridSample = nil
			opts.HybridRecord = func(rec []byte, count uint64, first bool) {
				fmt.Fprintf(&b, "%x %d %v\n", rec, count, first)
			}
		}
		p, err := Parse(trace, f, b2, opts)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		} else {
			fmt.Fprintf(&b, "samples %d distinct %d base %#x\n", p.Samples, p.Distinct, p.BaseAddress)
		}
		return b.String()
	}
	for _, record := range []bool{false, true} {
		want := read(false, lbrBatchBytes, record)
		for _, batch := range []int{lbrBatchBytes, 1} {
			if got := read(true, batch, record); got != want {
				t.Errorf("parallel hybrid parse (batches of %d bytes, HybridRecord %v) differs from the sequential one:\n%s\nwant:\n%s", batch, record, firstDiff(got, want), firstDiff(want, got))
			}
		}
	}
	compareDeferRepeats(t, bin, trace)
}

// compareDeferRepeats reads a hybrid trace through HybridRecord with and
// without Options.DeferRepeats (in parallel, with the default batches and
// one sample per batch, so that repeats are found): the same first
// occurrences in the same order, the same total count of each sample,
// the same warnings, errors and counts.
func compareDeferRepeats(t *testing.T, bin, trace string) {
	t.Helper()
	read := func(deferRepeats bool, batch int) (string, int) {
		defer func(n int) { lbrBatchBytes = n }(lbrBatchBytes)
		lbrBatchBytes = batch
		var b strings.Builder
		totals := map[string]uint64{}
		calls := 0
		b2, f := openTrace(t, bin, trace)
		opts := Options{
			Warn: func(m string) { fmt.Fprintf(&b, "warning: %s\n", m) },
			HybridRecord: func(rec []byte, count uint64, first bool) {
				calls++
				totals[string(rec)] += count
				if first {
					fmt.Fprintf(&b, "first %x\n", rec)
				}
			},
			DeferRepeats: deferRepeats,
		}
		p, err := Parse(trace, f, b2, opts)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		} else {
			fmt.Fprintf(&b, "samples %d distinct %d base %#x\n", p.Samples, p.Distinct, p.BaseAddress)
		}
		for _, k := range slices.Sorted(maps.Keys(totals)) {
			fmt.Fprintf(&b, "%x %d\n", k, totals[k])
		}
		return b.String(), calls
	}
	want, wantCalls := read(false, lbrBatchBytes)
	for _, batch := range []int{lbrBatchBytes, 1} {
		got, calls := read(true, batch)
		if got != want {
			t.Errorf("DeferRepeats (batches of %d bytes) differs:\n%s\nwant:\n%s", batch, firstDiff(got, want), firstDiff(want, got))
		}
		if testing.Verbose() {
			t.Logf("DeferRepeats, batches of %d bytes: %d calls of HybridRecord, %d without", batch, calls, wantCalls)
		}
	}
}

// firstDiff is a from the first line where it differs from b on.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range al {
		if i >= len(bl) || al[i] != bl[i] {
			return strings.Join(al[i:min(len(al), i+5)], "\n")
		}
	}
	return "(a prefix)"
}
