// Package profmerge is the driver behind `merge`: it expands and orders the
// inputs, detects each one's kind, applies the failure policy, and hands the
// good inputs to the format packages.
package profmerge

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/infile"
)

// Input is one profile file to merge, with its weight (llvm-profdata's
// `W,FILE`; 1 when not given).
type Input struct {
	Path   string
	Weight uint64
	// State is the sidecar of a partial MemProf profile
	// (--memprof-partial-input; memprof.PartialStates), or "".
	State string
}

// ParsePartial parses `--memprof-partial-input=PROFILE,STATE`, split at
// the last comma.
func ParsePartial(s string) (Input, error) {
	i := strings.LastIndexByte(s, ',')
	if i <= 0 || i == len(s)-1 {
		return Input{}, fmt.Errorf("partial input %q: want PROFILE,STATE", s)
	}
	return Input{Path: s[:i], Weight: 1, State: s[i+1:]}, nil
}

// ParseWeighted parses llvm-profdata's `--weighted-input=W,FILE` form.
func ParseWeighted(s string) (Input, error) {
	w, path, ok := strings.Cut(s, ",")
	if !ok || path == "" {
		return Input{}, fmt.Errorf("weighted input %q: want WEIGHT,FILE", s)
	}
	n, err := strconv.ParseUint(w, 10, 64)
	if err != nil || n < 1 {
		return Input{}, fmt.Errorf("weighted input %q: weight must be an integer >= 1", s)
	}
	return Input{Path: path, Weight: n}, nil
}

// ReadInputFiles parses an `--input-files` list: one `[W,]FILE` per line,
// blank lines and lines starting with '#' ignored. A line is read as weighted
// only when the part before the first comma is a number, so paths that
// contain commas still work.
//
// The list may be a pipe (`-f <(ls prof/*.profraw)`); a device or a
// socket is refused (infile.OpenStream).
func ReadInputFiles(path string) ([]Input, error) {
	f, err := infile.OpenStream(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Input
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if w, _, ok := strings.Cut(line, ","); ok {
			if _, err := strconv.ParseUint(w, 10, 64); err == nil {
				in, err := ParseWeighted(line)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, n, err)
				}
				out = append(out, in)
				continue
			}
		}
		out = append(out, Input{Path: line, Weight: 1})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// Expand replaces directories by the regular files below them (recursively,
// as llvm-profdata does) and returns the inputs in canonical order: sorted by
// path, byte-wise, then by weight. Merge results never depend on the order
// inputs were given in; this is also the order conformance tests hand to
// llvm-profdata, whose own output depends on input order.
func Expand(inputs []Input) ([]Input, error) {
	var out []Input
	for _, in := range inputs {
		st, err := os.Stat(in.Path)
		if err != nil {
			// Reported later, per input, under the failure policy.
			out = append(out, in)
			continue
		}
		if !st.IsDir() {
			out = append(out, in)
			continue
		}
		err = filepath.WalkDir(in.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// A link to a regular file counts, as llvm-profdata's
			// is_regular_file (a stat) counts it.
			if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 && isRegular(p) {
				out = append(out, Input{Path: p, Weight: in.Weight})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Weight < out[j].Weight
	})
	return out, nil
}

func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// regularInputs drops the inputs that exist but are not regular files
// (FIFOs, devices, sockets: one could be waited on forever, or read
// without end), each with a warning, as llvm-profdata's addWeightedInput
// drops them (silently). Inputs that cannot be looked at stay, to be
// reported under the failure policy.
func regularInputs(inputs []Input, warnf func(string, ...any)) []Input {
	out := inputs[:0:0]
	for _, in := range inputs {
		if st, err := os.Stat(in.Path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
			warnf("%s: skipped: %s, not a regular file (as llvm-profdata skips it)", in.Path, infile.Kind(st.Mode()))
			continue
		}
		out = append(out, in)
	}
	return out
}

// dropEmpty drops the inputs that are empty files, which llvm-profdata
// merge skips without a word (InstrProfReader's empty_raw_profile, in every
// failure mode; a 0-byte raw MemProf profile is read as one), and says
// how many there were.
func dropEmpty(srcs []*source) ([]*source, int) {
	out := srcs[:0:0]
	for _, s := range srcs {
		if s.size == 0 {
			continue
		}
		out = append(out, s)
	}
	return out, len(srcs) - len(out)
}

// Kind is what an input file holds, decided by its first bytes (Detect).
type Kind int

const (
	KindUnknown     Kind = iota
	KindMemProfRaw       // compiler-rt memprof runtime output
	KindIndexed          // IndexedInstrProf (.profdata)
	KindMemProfYAML      // LLVM 20+ YAML MemProf profile
	KindInstrRaw         // instrumented .profraw (not supported yet)
)

func (k Kind) String() string {
	switch k {
	case KindMemProfRaw:
		return "raw MemProf profile"
	case KindIndexed:
		return "indexed profile"
	case KindMemProfYAML:
		return "YAML MemProf profile"
	case KindInstrRaw:
		return "raw instrumented profile"
	}
	return "unknown"
}

// FailureMode is llvm-profdata's --failure-mode policy for bad inputs.
type FailureMode int

const (
	// FailAny fails the merge when any input is bad (llvm-profdata's default).
	FailAny FailureMode = iota
	// FailAll fails only when every input is bad; bad ones are reported.
	FailAll
	// FailWarn never fails on bad inputs; they are reported and skipped.
	FailWarn
)

// ParseFailureMode accepts any|all|warn.
func ParseFailureMode(s string) (FailureMode, error) {
	switch s {
	case "any":
		return FailAny, nil
	case "all":
		return FailAll, nil
	case "warn":
		return FailWarn, nil
	}
	return 0, fmt.Errorf("invalid --failure-mode %q: want any, all or warn", s)
}
