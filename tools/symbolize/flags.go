package main

import (
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/symbolizer"
)

// command is the parsed command line.
type command struct {
	opts       symbolizer.Options
	relative   bool // --relative-address: accepted, no effect for ELF
	disasm     bool
	disasmFunc string
	help       bool
	version    bool
	addrs      []string // positional arguments
}

const summary = `Prints the function, file, line and column of each address, with the
chain of inlined calls that leads to it (innermost first). Output is
byte-identical to llvm-symbolizer (LLVM 19 and 22) for the LLVM, GNU and
JSON styles, so scripts can switch between the two.

Addresses are given as arguments or, if there are none, read from stdin one
per line. A line may name the binary first ("BIN 0x1234" or '"B I N" 0x1234')
when --obj is not given, and may start with CODE or DATA. Numbers follow
LLVM: 0x… is hexadecimal, a leading 0 octal, anything else decimal.
Addresses are file (link-time) virtual addresses; for a PIE use the offset
into the binary as shown by nm/objdump.

Examples:
  symbolize --obj=app 0x401136 0x4011a0
  symbolize --obj=app --output-style=JSON < addrs.txt
  symbolize -e app -Cfp 0x401136
  symbolize --obj=app --disassemble=main`

const footer = `Exit status: 0 on success (unknown addresses print ?? and still succeed),
1 if a binary cannot be read, 2 for a usage error. Warnings go to stderr as
"symbolize: warning: ..."; --fatal-warnings turns them into failures.

Not supported: --relativenames, --build-id and BUILDID: requests,
debuginfod, FRAME requests (answered with no
locals), DWARF declarations in DATA answers (the symbol table is used),
@FILE response files, Mach-O/COFF/PDB. --no-debuginfod and
--[no-]untag-addresses are accepted and ignored.`

func newFlagSet(c *command) *cli.FlagSet {
	fs := cli.NewFlagSet("symbolize", "symbolize [options] addresses...")
	fs.Summary = summary
	fs.Footer = footer
	fs.StringValue(&c.opts.Obj, "<file>", "Binary to symbolize (without it, each input line\nnames its binary first)",
		"--obj", "--exe", "-e")
	fs.BoolFlag(&c.opts.Inlines, true, "Print all inlined frames (default)", "--inlines", "--inlining", "-i", "--inlining=true")
	fs.BoolFlag(&c.opts.Inlines, false, "Print only the innermost frame's location", "--no-inlines", "--inlining=false")
	fs.BoolFlag(&c.opts.Demangle, true, "Demangle C++ names (default)", "--demangle", "-C", "-demangle=true")
	fs.BoolFlag(&c.opts.Demangle, false, "Print mangled names", "--no-demangle", "-demangle=false")
	fs.Add(&cli.Option{Names: []string{"--functions", "-f"}, Kind: cli.Flag,
		Help: "Print function names as linkage names (default)",
		Set:  func(string, string) error { c.opts.Functions = symbolizer.FunctionLinkage; return nil }})
	fs.Add(&cli.Option{Names: []string{"--functions=", "-f="}, Kind: cli.JoinedValue, MetaVar: "linkage|short|none",
		Help: "linkage: linkage name (demangled unless --no-demangle);\nshort: DW_AT_name only; none: no function line",
		Set: func(_, v string) error {
			switch v {
			case "none":
				c.opts.Functions = symbolizer.FunctionNone
			case "short":
				c.opts.Functions = symbolizer.FunctionShort
			default: // LLVM treats anything else as linkage
				c.opts.Functions = symbolizer.FunctionLinkage
			}
			return nil
		}})
	fs.Add(&cli.Option{Names: []string{"--output-style"}, Kind: cli.Value, MetaVar: "LLVM|GNU|JSON",
		Help: "LLVM: name, file:line:column, blank line; GNU: addr2line's\nfile:line (discriminator N); JSON: one object per address\n(an array when the addresses are arguments)",
		Set: func(_, v string) error {
			switch v {
			case "GNU":
				c.opts.Style = symbolizer.StyleGNU
			case "JSON":
				c.opts.Style = symbolizer.StyleJSON
			default: // LLVM treats anything else as LLVM
				c.opts.Style = symbolizer.StyleLLVM
			}
			return nil
		}})
	fs.BoolFlag(&c.relative, true, "Addresses are relative to the image base\n(no effect for ELF, as in llvm-symbolizer)", "--relative-address")
	fs.Add(&cli.Option{Names: []string{"--adjust-vma"}, Kind: cli.Value, MetaVar: "<offset>",
		Help: "Subtract <offset> from each address before the lookup\n(the output shows the address as given)",
		Set: func(name, v string) error {
			n, ok := cli.ParseUint(v)
			if !ok {
				return cli.Usagef("%s: expected a non-negative integer, but got '%s'", name, v)
			}
			c.opts.AdjustVMA = n
			return nil
		}})
	fs.ListValue(&c.opts.DebugFileDirectories, "<dir>", "Also look here for separate debug files\n(.build-id/xx/….debug, .gnu_debuglink); repeatable",
		"--debug-file-directory")
	fs.Add(&cli.Option{Names: []string{"--print-source-context-lines"}, Kind: cli.Value, MetaVar: "<N>",
		Help: "Print N lines of the source file around each location",
		Set: func(name, v string) error {
			n, ok := cli.ParseUint(v)
			if !ok || n > 1<<20 {
				return cli.Usagef("%s: expected a non-negative integer, but got '%s'", name, v)
			}
			c.opts.ContextLines = int(n)
			return nil
		}})
	fs.StringValue(&c.opts.DWPFile, "<file>", "DWARF package (.dwp) for split-DWARF units", "--dwp")
	fs.BoolFlag(&c.opts.Basenames, true, "Print file names without directories", "--basenames", "-s")
	fs.BoolFlag(&c.opts.Pretty, true, "One line per frame: 'name at file:line:col' (JSON: indented)", "--pretty-print", "-p")
	fs.BoolFlag(&c.opts.Addresses, true, "Print the address before each answer", "--addresses", "-a", "--print-address")
	fs.BoolFlag(&c.opts.Verbose, true, "Print every field of each frame", "--verbose")
	fs.BoolFlag(&c.opts.FatalWarnings, true, "Treat warnings as errors (exit 1)", "--fatal-warnings")
	fs.Add(&cli.Option{Names: []string{"--disassemble"}, Kind: cli.Flag,
		Help: "Disassemble every function; beside each instruction print\nits inline context as llvm-profgen --show-disassembly-only\n--show-source-locations does (e.g. 'leaf:2 @ main:3.2')",
		Set:  func(string, string) error { c.disasm = true; return nil }})
	fs.Add(&cli.Option{Names: []string{"--disassemble="}, Kind: cli.JoinedValue, MetaVar: "FUNC[,FUNC]",
		Help: "Disassemble only these functions (linkage or demangled names)",
		Set:  func(_, v string) error { c.disasm = true; c.disasmFunc = v; return nil }})
	fs.BoolFlag(&c.help, true, "Display this help", "--help", "-h")
	fs.BoolFlag(&c.version, true, "Display the version", "--version", "-v")
	// Accepted for compatibility; they change nothing for ELF on x86-64.
	for _, n := range [][]string{{"--no-debuginfod"}, {"--debuginfod"}, {"--untag-addresses"}, {"--no-untag-addresses"}, {"--disable-gsym"}} {
		fs.Add(&cli.Option{Names: n, Kind: cli.Flag, Hidden: true, Set: func(string, string) error { return nil }})
	}
	return fs
}

func parseArgs(args []string) (*command, *cli.FlagSet, error) {
	c := &command{opts: symbolizer.Options{Inlines: true, Demangle: true}}
	fs := newFlagSet(c)
	pos, err := fs.Parse(args)
	if err != nil {
		return nil, fs, err
	}
	c.addrs = pos
	return c, fs, nil
}
