package elfsym

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// A large binary (e.g. one built by testdata/bigcxx/build.sh) for
// TestLargeVsLLVM and BenchmarkSymbolizeLarge, as pprof's -large_profile.
var largeBin = flag.String("elfsym.large", os.Getenv("ELFSYM_LARGE"), "large ELF binary for the llvm-symbolizer comparison and benchmark")

// serveEnv makes the test binary act as a minimal symbolizer process (see
// init): it opens the binary named by the variable, reads one address
// per line from stdin and prints the frames, so start-up and peak RSS can
// be measured the same way as llvm-symbolizer's.
const serveEnv = "ELFSYM_SERVE_BINARY"

func init() {
	if p := os.Getenv(serveEnv); p != "" {
		os.Exit(serve(p, os.Stdin, os.Stdout))
	}
}

func serve(path string, in io.Reader, out io.Writer) int {
	b, err := Open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := bufio.NewWriterSize(out, 1<<16)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		a, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "0x"), 16, 64)
		if err != nil {
			fmt.Fprintln(w, "?")
			continue
		}
		fr, err := b.Symbolize(a)
		if err != nil && !errors.Is(err, ErrUnknownPC) {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for _, f := range fr {
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%#x|", f.LinkageName, f.File, f.Line, f.Column, f.Discriminator, f.StartLine, f.StartFile, f.StartAddress)
		}
		w.WriteByte('\n')
	}
	w.Flush()
	return 0
}

// randomTextAddrs picks n addresses in .text with a fixed seed (MINSTD, as
// bench/symbolize/run.sh).
func randomTextAddrs(t testing.TB, path string, n int) []uint64 {
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	text := ef.Section(".text")
	if text == nil {
		t.Fatalf("%s: no .text", path)
	}
	x := uint64(1)
	out := make([]uint64, n)
	for i := range out {
		x = x * 48271 % 2147483647
		out[i] = text.Addr + x%text.Size
	}
	return out
}

type runStats struct {
	wall   time.Duration
	maxRSS int64 // KiB
	out    []byte
}

// runMeasured runs cmd with the addresses on stdin. Peak RSS comes from
// /usr/bin/time when installed: a child's rusage ru_maxrss would include
// this (large) test process, which the child shares memory with until exec.
func runMeasured(t testing.TB, cmd *exec.Cmd, addrs []uint64) runStats {
	var in, out, stderr bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	rssFile := ""
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		rssFile = t.TempDir() + "/rss"
		cmd.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", rssFile}, cmd.Args...)
		cmd.Path = "/usr/bin/time"
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &out, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	st := runStats{wall: time.Since(start), out: out.Bytes()}
	if rssFile != "" {
		if data, err := os.ReadFile(rssFile); err == nil {
			st.maxRSS, _ = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		}
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		st.maxRSS = ru.Maxrss
	}
	return st
}

// TestLargeVsLLVM symbolizes 20,000 random .text addresses of -elfsym.large
// in a fresh process with this package and with llvm-symbolizer-19, compares
// the answers, and logs wall time and peak RSS of both.
func TestLargeVsLLVM(t *testing.T) {
	if *largeBin == "" {
		t.Skip("no -elfsym.large binary (ELFSYM_LARGE)")
	}
	const tool = "llvm-symbolizer-19"
	testenv.Tool(t, tool)
	addrs := randomTextAddrs(t, *largeBin, 20000)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ours, llvm runStats
	// The best of three runs; none under the race detector, whose times
	// say nothing about ours: the answers are compared below either way,
	// and the fresh process symbolizes as this one does below, where the
	// race detector watches (the timed runs cost CI's -race run a minute
	// of CPU for times it then could not use).
	runs := 3
	if testenv.Race {
		runs = 0
	}
	for i := 0; i < runs; i++ {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), serveEnv+"="+*largeBin)
		o := runMeasured(t, cmd, addrs)
		l := runMeasured(t, exec.Command(tool, "--obj="+*largeBin, "--output-style=JSON", "--inlining", "--functions=linkage", "--no-demangle"), addrs)
		if i == 0 || o.wall < ours.wall {
			ours = o
		}
		if i == 0 || l.wall < llvm.wall {
			llvm = l
		}
	}
	if runs > 0 {
		t.Logf("%d addresses: elfsym %v, %d MiB peak RSS; %s %v, %d MiB; speed-up %.2fx, memory %.2fx",
			len(addrs), ours.wall, ours.maxRSS>>10, tool, llvm.wall, llvm.maxRSS>>10,
			float64(llvm.wall)/float64(ours.wall), float64(ours.maxRSS)/float64(llvm.maxRSS))
	}

	// Same answers (modulo the CLI's symbol-table override, as in
	// TestDifferential), from both LLVM versions.
	b, err := Open(*largeBin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := make([][]Frame, len(addrs))
	for i, a := range addrs {
		got[i], _ = b.Symbolize(a)
	}
	for _, tool := range symbolizers {
		testenv.Tool(t, tool)
		want := runSymbolizer(t, tool, *largeBin, addrs, nil)
		bad := 0
		for i, a := range addrs {
			if d, _ := compareFrames(b, a, got[i], want[i]); d != "" {
				if bad++; bad <= 10 {
					t.Errorf("%s %#x: %s", tool, a, d)
				}
			}
		}
		t.Logf("%s: %d of %d addresses differ", tool, bad, len(addrs))
	}
}

func BenchmarkSymbolizeLarge(b *testing.B) {
	if *largeBin == "" {
		b.Skip("no -elfsym.large binary (ELFSYM_LARGE)")
	}
	addrs := randomTextAddrs(b, *largeBin, 20000)
	for b.Loop() {
		bin, err := Open(*largeBin, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range addrs {
			bin.Symbolize(a)
		}
		bin.Close()
	}
	b.ReportMetric(float64(len(addrs))*float64(b.N)/b.Elapsed().Seconds(), "addrs/s")
}
