package memprof

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// Tests that need real programs use testdata/memprof/gen.sh's outputs
// (clang 16, 19, 22 + their memprof runtimes), built once for every test
// package and run by memproftest.

func fixtures(t testing.TB) string {
	t.Helper()
	testenv.Tool(t, "clang++-19")
	return memproftest.Fixtures(t)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	testenv.Tool(t, "clang++-19")
	return memproftest.Fixture(t, name)
}

// llvmSymbolizer implements Symbolizer with llvm-symbolizer's JSON output,
// which reproduces LLVM's in-process symbolization (spec §2.3). It lets the
// converter be tested independently of package elfsym.
type llvmSymbolizer struct {
	elfHeaders
	path    string
	buildID []byte
	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
}

// elfHeaders gives a test Symbolizer the binary's ELF machine and load
// segments, read by elfsym (no DWARF), as the real Symbolizer has them.
type elfHeaders struct{ b *elfsym.Binary }

func (h elfHeaders) Machine() string                { return h.b.Machine() }
func (h elfHeaders) LoadSegments() []elfsym.Segment { return h.b.LoadSegments() }

// openHeaders opens path's ELF headers for a test Symbolizer.
func openHeaders(t testing.TB, path string) elfHeaders {
	t.Helper()
	b, err := elfsym.Open(path, &elfsym.Options{NoDWARF: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return elfHeaders{b}
}

func newLLVMSymbolizer(t testing.TB, bin string) *llvmSymbolizer {
	t.Helper()
	tool := testenv.Tool(t, "llvm-symbolizer-19")
	s := &llvmSymbolizer{elfHeaders: openHeaders(t, bin), path: bin, buildID: readBuildID(t, bin)}
	s.cmd = exec.Command(tool, "--inlining", "--functions=linkage", "--no-demangle", "--output-style=JSON", "--obj="+bin)
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.in.Close()
		s.cmd.Wait()
	})
	return s
}

func (s *llvmSymbolizer) Path() string    { return s.path }
func (s *llvmSymbolizer) BuildID() []byte { return s.buildID }

func (s *llvmSymbolizer) Symbolize(addr uint64) ([]elfsym.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.in, "0x%x\n", addr); err != nil {
		return nil, err
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var res struct {
		Symbol []struct {
			FileName, FunctionName      string
			Line, Column, StartLine     uint32
			Discriminator               uint32
			StartAddress, StartFileName string
		}
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return nil, fmt.Errorf("llvm-symbolizer: %v: %s", err, line)
	}
	var frames []elfsym.Frame
	for i, f := range res.Symbol {
		// An empty FileName means llvm-symbolizer fell back to the symbol
		// table, which LLVM's MemProf reader does not use.
		if f.FileName == "" {
			return nil, errors.New("unknown address")
		}
		start, _ := strconv.ParseUint(strings.TrimPrefix(f.StartAddress, "0x"), 16, 64)
		frames = append(frames, elfsym.Frame{
			Name: f.FunctionName, LinkageName: f.FunctionName, File: f.FileName,
			Line: f.Line, Column: f.Column, Discriminator: f.Discriminator,
			StartFile: f.StartFileName, StartLine: f.StartLine, StartAddress: start,
			Inlined: i != len(res.Symbol)-1,
		})
	}
	return frames, nil
}

func readBuildID(t testing.TB, bin string) []byte {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		data, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for len(data) >= 12 {
			nsz := binary.LittleEndian.Uint32(data)
			dsz := binary.LittleEndian.Uint32(data[4:])
			typ := binary.LittleEndian.Uint32(data[8:])
			n := (nsz + 3) &^ 3
			d := (dsz + 3) &^ 3
			if uint64(12+n+d) > uint64(len(data)) {
				break
			}
			if typ == 3 && string(data[12:12+nsz]) == "GNU\x00" {
				return append([]byte(nil), data[12+n:12+n+dsz]...)
			}
			data = data[12+n+d:]
		}
	}
	return nil
}
