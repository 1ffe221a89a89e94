package perfdatatest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfdata"
	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// traceSpecs are internal/perfscript's (fixture_test.go), so that the
// traces come from the same cached fixture.
var traceSpecs = []tracetest.Trace{
	{
		Args:    []string{"--period", "211", "--jitter", "40", "--pid", "4242"},
		Outputs: map[string]string{"lbr": "lbr", "hybrid": "hybrid"},
	},
	{
		Args:    []string{"--period", "97", "--jitter", "20", "--pid", "77", "--brstack-style", "modern", "--kernel-entries", "all", "--lbr-depth", "8", "--seed", "3"},
		ProgArg: "3000",
		Outputs: map[string]string{"lbr-modern": "lbr", "hybrid-modern": "hybrid"},
	},
}

// Traces returns internal/perfscript's lbr-trace traces (trace file by
// "<program>.<trace>").
func traces(t *testing.T) map[string]string {
	srcs := []tracetest.Source{{File: "../../perfscript/testdata/calls.c", CC: "clang-19"}, {File: "../../perfscript/testdata/shapes.cc", CC: "clang++-22"}}
	out := map[string]string{}
	for _, p := range tracetest.Build(t, "perfscript-traces", srcs, traceSpecs) {
		for n, f := range p.Traces {
			out[p.Name+"."+n] = f
		}
	}
	return out
}

// TestFromScript proves the generator right with the real tool: perf
// script prints of the perf.data FromScript writes exactly the trace it
// was written from.
func TestFromScript(t *testing.T) {
	perf := testenv.Tool(t, "perf")
	tr := traces(t)
	names := make([]string, 0, len(tr))
	for n := range tr {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			for _, mode := range []string{"file", "pipe", "zstd", "nohwidx"} {
				t.Run(mode, func(t *testing.T) { checkFromScript(t, perf, tr[n], mode) })
			}
		})
	}
}

// checkFromScript writes the perf.data of a trace in one mode and checks
// what perf script prints of it.
func checkFromScript(t *testing.T, perf, trace, mode string) {
	text, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	from := FromScript
	if mode == "nohwidx" {
		from = FromScriptNoHWIndex
	}
	f, err := from(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	b := f.Bytes()
	switch mode {
	case "pipe":
		b = f.PipeBytes()
	case "zstd":
		z, err := Compressed(f, 4096)
		if err != nil {
			t.Fatal(err)
		}
		b = z.Bytes()
	}
	data := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(perf, "script", "-F", "ip,brstack", "--show-mmap-events", "-i", data)
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf script: %v\n%s", err, stderr.Bytes())
	}
	if mode == "pipe" {
		// Pipe mode's perf script prints the symbol of every
		// address whatever -F says.
		got = bytes.ReplaceAll(got, []byte(" [unknown]"), nil)
	}
	if out, err := exec.Command(perf, "report", "--stdio", "-i", data).CombinedOutput(); err != nil {
		t.Fatalf("perf report does not accept the generated perf.data: %v\n%s", err, out)
	}
	// Perf versions print a branch's fields after the cycles
	// differently (6.1: "/0/" and the type; 6.8: "/0//-"; older:
	// none): compare from/to/mispred/in_tx/abort/cycles.
	got, text = entryFields(got), entryFields(text)
	// Perf 6.1 prints a call-stack frame that lies in a mapping
	// it knows as an offset in the mapped file (addr - start +
	// pgoff), where lbr-trace prints the address.
	text, err = relativeFrames(text)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, text) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(text), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			g, w := "<none>", "<none>"
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("perf script of the generated perf.data differs from the trace at line %d:\n got %q\nwant %q%s", i+1, trunc(g), trunc(w), fmt.Sprintf(" (%d lines vs %d)", len(gl), len(wl)))
			}
		}
	}
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// entryFields keeps the first six fields of every branch entry.
func entryFields(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if !strings.Contains(l, "/0x") {
			continue
		}
		f := strings.Split(l, " ")
		for j, e := range f {
			if p := strings.Split(e, "/"); len(p) > 6 && strings.HasPrefix(p[1], "0x") {
				f[j] = strings.Join(p[:6], "/")
			}
		}
		lines[i] = strings.Join(f, " ")
	}
	return []byte(strings.Join(lines, "\n"))
}

// relativeFrames rewrites the call-stack frames of a trace that lie in one
// of its mmap events' ranges (of the sample's process) as perf 6.1 prints
// them.
func relativeFrames(b []byte) ([]byte, error) {
	lines := strings.Split(string(b), "\n")
	var maps []perfdata.Mmap
	var pid uint32
	for i, l := range lines {
		if strings.HasPrefix(l, "PERF_RECORD_MMAP2 ") {
			m, err := parseMmap2(l)
			if err != nil {
				return nil, err
			}
			maps = append(maps, m)
			pid = m.PID
			continue
		}
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSpace(l), 16, 64)
		if err != nil {
			return nil, err
		}
		for j := len(maps) - 1; j >= 0; j-- {
			if m := maps[j]; m.PID == pid && m.Addr <= a && a < m.Addr+m.Len {
				lines[i] = fmt.Sprintf("\t%16x", a-m.Addr+m.PgOff)
				break
			}
		}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// TestWriteFromScript writes the perf.data of a trace for bench/profgen:
// PERFDATATEST_TRACE names the trace, PERFDATATEST_OUT the perf.data
// (skipped without them), PERFDATATEST_NO_HW_INDEX=1 leaves hw_idx out
// (FromScriptNoHWIndex), PERFDATATEST_BUILD_ID (hex) with
// PERFDATATEST_BUILD_ID_FILE adds that DSO's build id as perf record
// does, PERFDATATEST_COMM=PID:COMM a PERF_RECORD_COMM first. The
// generator stays test code.
func TestWriteFromScript(t *testing.T) {
	in, out := os.Getenv("PERFDATATEST_TRACE"), os.Getenv("PERFDATATEST_OUT")
	if in == "" || out == "" {
		t.Skip("PERFDATATEST_TRACE and PERFDATATEST_OUT unset (bench/profgen/run.sh sets them)")
	}
	r, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	from := FromScript
	if os.Getenv("PERFDATATEST_NO_HW_INDEX") == "1" {
		from = FromScriptNoHWIndex
	}
	f, err := from(r)
	if err != nil {
		t.Fatal(err)
	}
	if id, file := os.Getenv("PERFDATATEST_BUILD_ID"), os.Getenv("PERFDATATEST_BUILD_ID_FILE"); id != "" {
		// What perf record writes at the end (HEADER_BUILD_ID) for
		// a user-space DSO it saw samples in.
		b, err := hex.DecodeString(id)
		if err != nil || file == "" {
			t.Fatalf("PERFDATATEST_BUILD_ID %q (hex) needs PERFDATATEST_BUILD_ID_FILE (the mmap's file name)", id)
		}
		f.BuildIDs = append(f.BuildIDs, perfdata.BuildID{PID: -1, CPUMode: perfdata.MiscUser, BuildID: b, Filename: file})
	}
	if c := os.Getenv("PERFDATATEST_COMM"); c != "" {
		// The PERF_RECORD_COMM (exec) perf record writes before the
		// process's mmaps: create_llvm_prof 0.19 attributes no sample
		// to a process without one.
		pid, comm, ok := strings.Cut(c, ":")
		n, err := strconv.ParseUint(pid, 10, 32)
		if !ok || err != nil || comm == "" {
			t.Fatalf("PERFDATATEST_COMM %q: want PID:COMM", c)
		}
		id := perfdata.SampleIDTrailer{PID: uint32(n), TID: uint32(n)}
		rec := Comm(f.Attrs[0], perfdata.MiscCommExec, perfdata.Comm{PID: uint32(n), TID: uint32(n), Comm: comm}, id)
		f.Records = append([][]byte{rec}, f.Records...)
	}
	if err := os.WriteFile(out, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
