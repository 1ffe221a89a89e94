// Package cli holds the small pieces the rules_pgo tools share: an
// LLVM-style option parser (flags and positional arguments may be
// interleaved, "--name=value" and "--name value", grouped single-letter
// flags such as "-Cfp"), messages of the form "tool: warning: ..." on
// stderr, the exit codes 0/1/2, and a progress line shown only on a
// terminal.
//
// The option spellings follow LLVM's OptTable conventions so that a script
// written for an LLVM tool (llvm-symbolizer, llvm-profdata) can call ours
// with the same arguments.
package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/hugemem"
)

// Exit codes shared by all tools.
const (
	ExitOK      = 0 // success
	ExitFailure = 1 // the tool ran and failed (bad input file, I/O error)
	ExitUsage   = 2 // the command line was wrong
)

// UsageError is a command-line mistake; tools exit with ExitUsage for it.
type UsageError struct {
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitCode maps an error returned by a tool's run function to its exit
// code: nil → 0, *UsageError → 2, anything else → 1.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var u *UsageError
	if errors.As(err, &u) {
		return ExitUsage
	}
	return ExitFailure
}

// Kind says whether an option takes a value.
type Kind int

const (
	// Flag takes no value ("--inlines", "-C").
	Flag Kind = iota
	// Value takes one value, joined ("--obj=X", "-eX", "-e=X") or as the
	// next argument ("--obj X", "-e X").
	Value
	// JoinedValue takes a value only after "=" ("--functions=short"); the
	// bare spelling, if wanted, is a separate Flag option.
	JoinedValue
)

// Option is one command-line option with all of its spellings.
type Option struct {
	// Names are the spellings including dashes, the canonical one first:
	// {"--obj", "--exe", "-e"}. A name may contain "=" to make a fixed
	// alias such as "--inlining=true".
	Names []string
	Kind  Kind
	// MetaVar names the value in --help ("<file>").
	MetaVar string
	Help    string
	// Hidden options are accepted but not listed by --help.
	Hidden bool
	// Set is called for every occurrence, in command-line order. name is
	// the spelling used; value is "" for a Flag.
	Set func(name, value string) error
}

// FlagSet is an ordered set of options for one tool.
type FlagSet struct {
	Tool    string // tool name used in messages: "symbolize"
	Usage   string // one line: "symbolize [options] addresses..."
	Summary string // a paragraph printed under the usage line by --help
	Footer  string // text printed after the option list by --help

	opts   []*Option
	byName map[string]*Option
}

// NewFlagSet returns an empty FlagSet for tool.
func NewFlagSet(tool, usage string) *FlagSet {
	return &FlagSet{Tool: tool, Usage: usage, byName: map[string]*Option{}}
}

// Add registers o. It panics on a duplicate spelling, which is a
// programming error in the tool, not a user error.
func (fs *FlagSet) Add(o *Option) {
	for _, n := range o.Names {
		if !strings.HasPrefix(n, "-") {
			panic("cli: option name without dash: " + n)
		}
		if _, dup := fs.byName[n]; dup {
			panic("cli: duplicate option " + n)
		}
		fs.byName[n] = o
	}
	fs.opts = append(fs.opts, o)
}

// BoolFlag registers a flag that sets *p to v when given.
func (fs *FlagSet) BoolFlag(p *bool, v bool, help string, names ...string) {
	fs.Add(&Option{Names: names, Kind: Flag, Help: help, Set: func(string, string) error {
		*p = v
		return nil
	}})
}

// StringValue registers an option whose value is stored in *p (the last
// occurrence wins).
func (fs *FlagSet) StringValue(p *string, metaVar, help string, names ...string) {
	fs.Add(&Option{Names: names, Kind: Value, MetaVar: metaVar, Help: help, Set: func(_, v string) error {
		*p = v
		return nil
	}})
}

// ListValue registers a repeatable option whose values are appended to *p.
func (fs *FlagSet) ListValue(p *[]string, metaVar, help string, names ...string) {
	fs.Add(&Option{Names: names, Kind: Value, MetaVar: metaVar, Help: help, Set: func(_, v string) error {
		*p = append(*p, v)
		return nil
	}})
}

// Uint64Value registers an option whose value is a non-negative integer,
// stored in *p (the last occurrence wins). It is read as LLVM reads
// integer options (ParseUint: decimal, "0x" hex, "0b" binary, "0o" or a
// leading "0" octal); anything else is a usage error in the words of
// LLVM's OptTable tools: "NAME: expected a non-negative integer, but got
// 'V'".
func (fs *FlagSet) Uint64Value(p *uint64, metaVar, help string, names ...string) {
	fs.Add(&Option{Names: names, Kind: Value, MetaVar: metaVar, Help: help, Set: func(name, v string) error {
		n, err := parseUintArg(name, v, math.MaxUint64)
		if err == nil {
			*p = n
		}
		return err
	}})
}

// IntValue is Uint64Value for an int: the value must also fit in an int.
func (fs *FlagSet) IntValue(p *int, metaVar, help string, names ...string) {
	fs.Add(&Option{Names: names, Kind: Value, MetaVar: metaVar, Help: help, Set: func(name, v string) error {
		n, err := parseUintArg(name, v, math.MaxInt)
		if err == nil {
			*p = int(n)
		}
		return err
	}})
}

// parseUintArg is the value of the integer option name, at most max.
func parseUintArg(name, v string, max uint64) (uint64, error) {
	n, ok := ParseUint(v)
	if !ok || n > max {
		return 0, Usagef("%s: expected a non-negative integer, but got '%s'", name, v)
	}
	return n, nil
}

// Parse parses args (without the program name). Options and positional
// arguments may be interleaved; "--" ends option parsing; a lone "-" is
// positional. It returns the positional arguments in order, or a
// *UsageError naming the offending argument.
func (fs *FlagSet) Parse(args []string) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(pos, args[i+1:]...), nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
			continue
		}
		// An exact spelling (flags, fixed aliases like "--inlining=true",
		// and "--obj" followed by a separate value).
		if o, ok := fs.byName[a]; ok {
			switch o.Kind {
			case Flag:
				if err := o.Set(a, ""); err != nil {
					return nil, fs.wrap(a, err)
				}
				continue
			case Value:
				if i+1 >= len(args) {
					return nil, Usagef("%s: missing argument", a)
				}
				i++
				if err := o.Set(a, args[i]); err != nil {
					return nil, fs.wrap(a, err)
				}
				continue
			case JoinedValue:
				if name, ok := strings.CutSuffix(a, "="); ok {
					if err := o.Set(name, ""); err != nil {
						return nil, fs.wrap(name, err)
					}
					continue
				}
				return nil, Usagef("%s: missing argument (use %s=VALUE)", a, a)
			}
		}
		// "--name=value" or "-name=value". An option registered with the
		// "=" in its name ("--functions=") takes the value only joined,
		// beside a bare flag of the same name ("--functions").
		if eq := strings.IndexByte(a, '='); eq > 0 {
			name, val := a[:eq], a[eq+1:]
			if o, ok := fs.byName[a[:eq+1]]; ok && o.Kind == JoinedValue {
				if err := o.Set(name, val); err != nil {
					return nil, fs.wrap(name, err)
				}
				continue
			}
			if o, ok := fs.byName[name]; ok {
				if o.Kind == Flag {
					return nil, Usagef("%s: option takes no value (got %q)", name, a)
				}
				if err := o.Set(name, val); err != nil {
					return nil, fs.wrap(name, err)
				}
				continue
			}
		}
		if strings.HasPrefix(a, "--") {
			return nil, fs.unknown(a)
		}
		// Single dash: a short option with a joined value ("-eBIN"), or a
		// group of single-letter flags ("-Cfp").
		if o, ok := fs.byName[a[:2]]; ok && o.Kind == Value {
			if err := o.Set(a[:2], a[2:]); err != nil {
				return nil, fs.wrap(a[:2], err)
			}
			continue
		}
		group := a[1:]
		var set []*Option
		for _, c := range group {
			o, ok := fs.byName["-"+string(c)]
			if !ok || o.Kind != Flag {
				return nil, fs.unknown(a)
			}
			set = append(set, o)
		}
		for j, o := range set {
			name := "-" + string(group[j])
			if err := o.Set(name, ""); err != nil {
				return nil, fs.wrap(name, err)
			}
		}
	}
	return pos, nil
}

func (fs *FlagSet) wrap(name string, err error) error {
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	return Usagef("%s: %v", name, err)
}

func (fs *FlagSet) unknown(a string) error {
	msg := fmt.Sprintf("unknown argument '%s'", a)
	if s := fs.suggest(a); s != "" {
		msg += fmt.Sprintf(", did you mean '%s'?", s)
	}
	return &UsageError{Msg: msg}
}

// suggest returns the registered spelling closest to a, if it is close.
func (fs *FlagSet) suggest(a string) string {
	name := a
	if eq := strings.IndexByte(name, '='); eq > 0 {
		name = name[:eq]
	}
	if !strings.HasPrefix(name, "--") {
		name = "-" + name // "-obj" is most likely "--obj"
	}
	best, bestD := "", 3
	for n := range fs.byName {
		if !strings.HasPrefix(n, "--") {
			continue
		}
		if d := editDistance(name, n); d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ParseOrHelp adds --help/-h, parses args and, when help was asked for,
// prints the help to stdout and reports helped: the usual start of a tool's
// (or subcommand's) run function.
func (fs *FlagSet) ParseOrHelp(args []string, stdout io.Writer) (pos []string, helped bool, err error) {
	var help bool
	fs.BoolFlag(&help, true, "Show this help", "--help", "-h")
	if pos, err = fs.Parse(args); err != nil {
		return nil, false, err
	}
	if help {
		fs.PrintHelp(stdout)
	}
	return pos, help, nil
}

// PrintHelp writes the usage line, summary, options (sorted by canonical
// name, hidden ones left out) and footer to w.
func (fs *FlagSet) PrintHelp(w io.Writer) {
	fmt.Fprintf(w, "USAGE: %s\n\n", fs.Usage)
	if fs.Summary != "" {
		fmt.Fprintf(w, "%s\n\n", strings.TrimRight(fs.Summary, "\n"))
	}
	fmt.Fprintf(w, "OPTIONS:\n")
	opts := make([]*Option, 0, len(fs.opts))
	for _, o := range fs.opts {
		if !o.Hidden {
			opts = append(opts, o)
		}
	}
	sort.SliceStable(opts, func(i, j int) bool {
		return strings.TrimLeft(opts[i].Names[0], "-") < strings.TrimLeft(opts[j].Names[0], "-")
	})
	for _, o := range opts {
		var spell []string
		for _, n := range o.Names {
			if o.Kind == JoinedValue {
				n = strings.TrimSuffix(n, "=")
			}
			if strings.Contains(n, "=") {
				continue // fixed compatibility aliases clutter the list
			}
			switch {
			case o.Kind == Value && strings.HasPrefix(n, "--"):
				n += "=" + o.MetaVar
			case o.Kind == Value:
				n += " " + o.MetaVar
			case o.Kind == JoinedValue:
				n += "=" + o.MetaVar
			}
			spell = append(spell, n)
		}
		left := "  " + strings.Join(spell, ", ")
		if len(left) > 34 {
			fmt.Fprintf(w, "%s\n%36s%s\n", left, "", indentHelp(o.Help))
		} else {
			fmt.Fprintf(w, "%-36s%s\n", left, indentHelp(o.Help))
		}
	}
	if fs.Footer != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(fs.Footer, "\n"))
	}
}

func indentHelp(s string) string {
	return strings.ReplaceAll(s, "\n", "\n"+strings.Repeat(" ", 36))
}

// Reporter prints the tool's messages to an error stream.
type Reporter struct {
	Tool string
	W    io.Writer
	// FatalWarnings turns the first warning into a failure: Warnf then
	// records it and Err returns it.
	FatalWarnings bool

	warned  int
	firstW  string
	progOn  bool
	isTerm  bool
	checked bool
}

// NewReporter returns a Reporter writing to w.
func NewReporter(tool string, w io.Writer) *Reporter {
	return &Reporter{Tool: tool, W: w}
}

// Warnf prints "tool: warning: msg".
func (r *Reporter) Warnf(format string, args ...any) {
	r.clearProgress()
	msg := fmt.Sprintf(format, args...)
	if r.warned == 0 {
		r.firstW = msg
	}
	r.warned++
	fmt.Fprintf(r.W, "%s: warning: %s\n", r.Tool, msg)
}

// Errorf prints "tool: error: msg" without exiting.
func (r *Reporter) Errorf(format string, args ...any) {
	r.clearProgress()
	fmt.Fprintf(r.W, "%s: error: %s\n", r.Tool, fmt.Sprintf(format, args...))
}

// Warnings returns how many warnings were printed.
func (r *Reporter) Warnings() int { return r.warned }

// Err returns an error if FatalWarnings is set and a warning was printed.
func (r *Reporter) Err() error {
	if r.FatalWarnings && r.warned > 0 {
		return fmt.Errorf("%d warning(s) treated as errors (first: %s)", r.warned, r.firstW)
	}
	return nil
}

// Progress shows msg on a single, self-overwriting line, but only when the
// error stream is a terminal; in logs and pipes it prints nothing.
func (r *Reporter) Progress(format string, args ...any) {
	if !r.terminal() {
		return
	}
	fmt.Fprintf(r.W, "\r\x1b[K%s: %s", r.Tool, fmt.Sprintf(format, args...))
	r.progOn = true
}

// DoneProgress erases the progress line, if one is shown.
func (r *Reporter) DoneProgress() { r.clearProgress() }

func (r *Reporter) clearProgress() {
	if r.progOn {
		fmt.Fprint(r.W, "\r\x1b[K")
		r.progOn = false
	}
}

func (r *Reporter) terminal() bool {
	if !r.checked {
		r.checked = true
		if f, ok := r.W.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				r.isTerm = os.Getenv("TERM") != "dumb"
			}
		}
	}
	return r.isTerm
}

// reportedError is a failure whose message the tool already printed.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// Reported wraps err, whose message the tool has already shown (e.g. as a
// JSON error object on stdout), so that Main exits 1 without printing it
// again.
func Reported(err error) error { return &reportedError{err} }

// Message is err as a tool prints it: a *fs.PathError as "FILE: what" (the
// file first, once, as every other error names it, and as LLVM's tools
// print "FILE: No such file or directory"), anything else as it is.
func Message(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// primeHeap is how much of the heap the tools ask huge pages for
// (hugemem.PrimeHeap): address space only, until touched.
const primeHeap = 1 << 30

// Main runs a tool's run function and exits with its code. Errors are
// printed as "tool: error: ..."; usage errors add a hint to run --help.
func Main(tool string, run func(args []string, stdin io.Reader, stdout, stderr io.Writer) error) {
	hugemem.PrimeHeap(primeHeap)
	stop := startProfiling(tool)
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var u *UsageError
		var r *reportedError
		if errors.As(err, &u) {
			fmt.Fprintf(os.Stderr, "%s: error: %s\n(run '%s --help' for usage)\n", tool, u.Msg, tool)
		} else if !errors.As(err, &r) {
			fmt.Fprintf(os.Stderr, "%s: error: %s\n", tool, Message(err))
		}
	}
	os.Exit(ExitCode(err))
}

// ParseUint parses an integer the way LLVM's StringRef::getAsInteger with
// radix 0 does: "0x"/"0X" hexadecimal, "0b"/"0B" binary, "0o" or a leading
// "0" octal, otherwise decimal. There is no sign and no separator.
func ParseUint(s string) (uint64, bool) {
	base := uint64(10)
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[:2] == "0b" || s[:2] == "0B"):
		base, s = 2, s[2:]
	case len(s) > 2 && s[:2] == "0o":
		base, s = 8, s[2:]
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'z':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		hi := v * base
		if v != 0 && hi/base != v {
			return 0, false
		}
		if hi+d < hi {
			return 0, false
		}
		v = hi + d
	}
	return v, true
}
