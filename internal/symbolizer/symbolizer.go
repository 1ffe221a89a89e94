// Package symbolizer is the engine of tools/symbolize, a drop-in
// replacement for llvm-symbolizer on x86-64 Linux: it answers requests
// ("0x401136", "BIN 0x401136", "DATA 0x404010", "main+4", ...) with the
// bytes llvm-symbolizer (LLVM 19 and 22) prints in its LLVM, GNU and JSON
// output styles, and disassembles functions with llvm-profgen's inline
// context annotations.
//
// Requests are answered in parallel and written in input order (see
// pipeline.go). DWARF comes from internal/elfsym; the symbol table rules
// llvm-symbolizer applies on top of it (elfsym.SymbolTable) are applied
// here, as LLVMSymbolizer does. The command line lives in tools/symbolize.
package symbolizer

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/cli"
)

// tool prefixes every message on stderr.
const tool = "symbolize"

// FunctionNameKind says how function names are printed; it mirrors LLVM's
// FunctionNameKind.
type FunctionNameKind int

const (
	// FunctionLinkage prints linkage names (demangled unless
	// Options.Demangle is false), with the symbol table's name for the
	// outermost frame.
	FunctionLinkage FunctionNameKind = iota
	// FunctionShort prints DW_AT_name.
	FunctionShort
	// FunctionNone prints no function line.
	FunctionNone
)

// OutputStyle is llvm-symbolizer's --output-style.
type OutputStyle int

const (
	StyleLLVM OutputStyle = iota // name, file:line:column, blank line
	StyleGNU                     // addr2line's file:line (discriminator N)
	StyleJSON                    // one object per request
)

// Options are llvm-symbolizer's output-changing options. The zero value
// differs from the tool's defaults: the tool sets Inlines and Demangle.
type Options struct {
	// Obj is the binary every request refers to (--obj); when empty each
	// request names its binary first.
	Obj       string
	Inlines   bool // print all inlined frames, not only the innermost
	Demangle  bool
	Functions FunctionNameKind
	Style     OutputStyle
	// AdjustVMA is subtracted from each address before the lookup.
	AdjustVMA            uint64
	DebugFileDirectories []string // searched for separate debug files
	DWPFile              string   // DWARF package for split units
	// ContextLines is --print-source-context-lines.
	ContextLines  int
	Basenames     bool // file names without directories
	Pretty        bool // --pretty-print
	Addresses     bool // print the address before each answer
	Verbose       bool
	FatalWarnings bool // a warning makes Run fail
}

// Run answers addrs, or when there are none the lines of stdin, writing
// the answers to stdout and messages to stderr as llvm-symbolizer does.
// Answers to stdin requests are flushed whenever the input runs dry, so a
// client can write a request and wait for its answer. A binary that
// cannot be read fails the run after all output (Obj: before any); an
// unknown address does not.
func Run(opts *Options, addrs []string, stdin io.Reader, stdout, stderr io.Writer) error {
	rep := cli.NewReporter(tool, stderr)
	out := bufio.NewWriterSize(stdout, 64<<10)
	s := newSession(opts, out, rep)
	defer s.close()

	// As llvm-symbolizer does, a binary named with --obj that cannot be
	// read is fatal before any output.
	if opts.Obj != "" {
		if _, err := s.module(opts.Obj); err != nil {
			if opts.Style == StyleJSON {
				s.p.printError(request{module: opts.Obj, hasAddr: true}, errorMessage(err))
				out.Flush()
				return cli.Reported(fmt.Errorf("'%s': %s", opts.Obj, errorMessage(err)))
			}
			return fmt.Errorf("'%s': %s", opts.Obj, errorMessage(err))
		}
	}

	pl := newPipeline(s.shared, s.p, out, stderr)
	var err error
	if len(addrs) > 0 {
		s.p.listBegin()
		err = pl.runArgs(addrs)
		s.p.listEnd()
	} else {
		err = pl.runStdin(stdin)
		if err != nil {
			err = fmt.Errorf("reading stdin: %w", err)
		}
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	return s.result()
}

// Disassemble prints the functions of opts.Obj named in funcs (a
// comma-separated list of linkage or demangled names; all when empty) with
// llvm-profgen's inline-context annotations; see (*session).disassemble.
func Disassemble(opts *Options, funcs string, stdout, stderr io.Writer) error {
	out := bufio.NewWriterSize(stdout, 64<<10)
	s := newSession(opts, out, cli.NewReporter(tool, stderr))
	defer s.close()
	err := s.disassemble(opts.Obj, funcs)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err == nil {
		err = s.result()
	}
	return err
}

// result is the run's outcome after all output: the first fatal error, or
// with FatalWarnings the warning count.
func (sh *shared) result() error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.failed != nil {
		return sh.failed
	}
	if sh.c.FatalWarnings && sh.warnings > 0 {
		return fmt.Errorf("%d warning(s) treated as errors (--fatal-warnings)", sh.warnings)
	}
	return nil
}

func dropCRLF(r rune) rune {
	if r == '\r' || r == '\n' {
		return -1
	}
	return r
}
