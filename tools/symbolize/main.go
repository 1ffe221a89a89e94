// Command symbolize turns addresses in ELF binaries into function names
// and source locations. It is a drop-in replacement for llvm-symbolizer on
// x86-64 Linux: the same options, the same input protocol and, for the
// LLVM, GNU and JSON output styles, the same bytes on stdout.
//
// Addresses come from the command line or, when there are none, from
// stdin, one request per line:
//
//	0x401136                 an address in the --obj binary
//	BINARY 0x401136          an address in BINARY (no --obj given)
//	"BIN NAME" 0x401136      a quoted binary path
//	CODE 0x401136            the same as without the prefix
//	DATA 0x404010            the data symbol covering the address
//	main+4                   a symbol name with an optional offset
//
// Numbers are read as LLVM reads them: 0x… hexadecimal, 0… octal,
// otherwise decimal. Answers to stdin requests are flushed whenever the
// input runs dry, so the tool can serve a pipe interactively.
//
// With --disassemble the tool instead prints each function's instructions
// with the inline context of every instruction in llvm-profgen's notation
// (see --help).
//
// The work is done by internal/symbolizer; this package holds the command
// line. default.pgo, a CPU profile of BenchmarkSymbolizeBig (the whole
// tool in-process, see main_test.go), stays here because `go build` applies
// a default.pgo from the main package's directory only; it profiles the
// whole program, internal/symbolizer and internal/elfsym included.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/symbolizer"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// The heap is mostly decoded DWARF kept for the whole run; collecting
		// half as often saves ~10% of CPU for ~10% more peak RSS (still well
		// under llvm-symbolizer's on bench/symbolize).
		startHeap(16<<20, 200)
	}
	cli.Main("symbolize", run)
}

// run is the tool without the process: cli.Main prints its error as
// "symbolize: error: ..." and exits with cli.ExitCode(err).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, fs, err := parseArgs(args)
	if err != nil {
		return err
	}
	switch {
	case c.help:
		fs.PrintHelp(stdout)
		return nil
	case c.version:
		fmt.Fprintln(stdout, "symbolize (rules_pgo), llvm-symbolizer compatible (LLVM 19/22 output)")
		return nil
	case c.disasm:
		if c.opts.Obj == "" {
			return cli.Usagef("--disassemble needs --obj=BINARY")
		}
		if len(c.addrs) > 0 {
			return cli.Usagef("--disassemble takes no addresses (got %q)", c.addrs[0])
		}
		return symbolizer.Disassemble(&c.opts, c.disasmFunc, stdout, stderr)
	}
	return symbolizer.Run(&c.opts, c.addrs, stdin, stdout, stderr)
}

// startHeap sets the GC percent to gcPercent, except that the first
// collection waits for a heap of about first bytes (the runtime's first
// goal is 4 MiB times GOGC/100): a short run, whose heap is the DWARF of
// the units it needed (bench/symbolize UNITS=600: about 12 MiB), then
// never collects, and a long one starts collecting a little later. As
// cmd/compile's AdjustStartingHeap, but with one step.
func startHeap(first uint64, gcPercent int) {
	debug.SetGCPercent(max(gcPercent, int(first*100/(4<<20))))
	runtime.AddCleanup(new(sentinel), func(p int) { debug.SetGCPercent(p) }, gcPercent)
}

// sentinel is unreachable from the start: its cleanup runs after the
// first collection.
type sentinel struct{ _ *int }
