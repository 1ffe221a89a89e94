package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestNotRegularObj: --obj naming a FIFO nobody writes or a character
// device (/dev/zero) is refused at once, naming it (llvm-symbolizer-22
// waits on the FIFO forever and reads /dev/zero until memory runs out:
// not compared); a socket is refused as llvm-symbolizer-22 refuses it.
func TestNotRegularObj(t *testing.T) {
	odd := testenv.NotRegularFiles(t)
	fifo, zero, sock := odd["fifo"], odd["chardev"], odd["socket"]
	for _, c := range []struct{ path, want string }{
		{fifo, "'" + fifo + "': not a regular file: a FIFO"},
		{zero, "'" + zero + "': not a regular file: a character device"},
		{sock, "'" + sock + "': No such device or address"},
	} {
		for _, stdin := range []string{"", "0x1000\n"} {
			args := []string{"--obj=" + c.path}
			if stdin == "" {
				args = append(args, "0x1000")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // stops a hang only
			cmd := exec.CommandContext(ctx, os.Args[0], args...)
			cmd.Env = append(os.Environ(), "SYMBOLIZE_TEST_AS_TOOL=1")
			cmd.Stdin = strings.NewReader(stdin)
			out, err := cmd.CombinedOutput()
			hung := ctx.Err() != nil
			cancel()
			if hung {
				t.Fatalf("--obj=%s: hangs", c.path)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), c.want) {
				t.Errorf("--obj=%s: %v, output %q; want exit 1 and %q", c.path, err, out, c.want)
			}
		}
	}
	llvm := testenv.Tool(t, "llvm-symbolizer-22")
	out, err := exec.Command(llvm, "--obj="+sock, "0x1000").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "'"+sock+"': No such device or address") {
		t.Errorf("llvm-symbolizer-22 --obj=socket: %v, %q", err, out)
	}
}

// TestErrorsNameFileOnce: truncated and corrupted copies of a program
// (headers, section table, debug sections) symbolized, in every output
// style: no message names the file more than once.
func TestErrorsNameFileOnce(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "loops")
	src, err := filepath.Abs("testdata/loops.c")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testenv.Tool(t, "clang-22"), "-g", "-O2", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("clang-22: %v\n%s", err, out)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	add := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		bad = append(bad, p)
	}
	for _, n := range []int{0, 3, 30, 63, 200, len(data) / 3, len(data) / 2, len(data) - 100} {
		add("trunc-"+strconv.Itoa(n), data[:n])
	}
	// Runs of 0xff over the file, 2% apart: they land in the ELF header,
	// the program and section headers, code and every debug section.
	for k := range 50 {
		b := append([]byte(nil), data...)
		off := k * len(b) / 50
		for i := off; i < min(off+8, len(b)); i++ {
			b[i] = 0xff
		}
		add("flip-"+strconv.Itoa(k), b)
	}
	// Each debug section's header made to point past the end of the file
	// (sh_offset), or to claim more bytes than there are (sh_size).
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	shoff := binary.LittleEndian.Uint64(data[0x28:])
	for i, sec := range ef.Sections {
		if !strings.HasPrefix(sec.Name, ".debug_") {
			continue
		}
		for _, field := range []int{24, 32} { // sh_offset, sh_size
			b := append([]byte(nil), data...)
			binary.LittleEndian.PutUint64(b[shoff+uint64(i)*64+uint64(field):], 0xffff0000)
			add(sec.Name[1:]+"-"+strconv.Itoa(field), b)
		}
	}
	bad = append(bad, filepath.Join(dir, "no-such-file"), dir)
	checked := 0
	for _, p := range bad {
		for _, style := range []string{"LLVM", "GNU", "JSON"} {
			stdout, stderr, _ := runTool(t, "0x1130\n", "--obj="+p, "--output-style="+style)
			for _, line := range strings.Split(stdout+stderr, "\n") {
				if strings.Count(line, p) > 1 {
					t.Errorf("--obj=%s --output-style=%s: names the file more than once: %s", p, style, line)
				}
			}
			checked++
		}
	}
	t.Logf("%d runs over %d bad binaries checked", checked, len(bad))
}
