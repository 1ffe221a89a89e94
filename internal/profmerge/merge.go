package profmerge

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Options configure one merge.
type Options struct {
	Inputs         []Input // as given; Run expands and orders them
	Output         string
	ProfiledBinary string
	// DebugFileDirectories are searched for the binary's separate debug info.
	DebugFileDirectories []string
	Write                instrprof.WriteOptions
	// Jobs bounds parallel work (reading inputs, symbolizing). It never
	// changes the output.
	Jobs    int
	Failure FailureMode
	// Warnf reports a bad input or another non-fatal problem.
	Warnf func(format string, args ...any)
	// Progress, if set, is told about long-running steps (terminal only).
	Progress func(format string, args ...any)
}

// loaded is one input after reading and decoding.
type loaded struct {
	in   Input
	kind Kind
	raw  *memprof.RawProfile
	prof *memprof.Profile // YAML or indexed input
	err  error
}

// InputError is a bad input, reported under the failure policy.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Run merges opts.Inputs into opts.Output. The output is written atomically
// (temporary file + rename), so a failed run never leaves a partial file.
//
// Inputs are processed in canonical order (sorted by path), so the output
// never depends on the order they were given in or on Jobs. Raw MemProf
// inputs are converted against ProfiledBinary exactly as llvm-profdata of
// the target release converts them with one writer context per input
// (`llvm-profdata merge --num-threads=<number of inputs>`, inputs sorted):
//
//   - llvm-profdata's default thread count is min(cores, (inputs+1)/2), and
//     its output depends on the thread count, so its default output depends
//     on the machine it runs on; ours must not.
//   - llvm-profdata 22 drops every raw input after the first that lands in
//     the same writer context (InstrProfWriter::addMemProfData returns early
//     once the context holds MemProf data), so any fewer contexts than
//     inputs would silently lose data. One context per input is the only
//     setting in which no release loses an input.
func Run(opts Options) error {
	if opts.Warnf == nil {
		opts.Warnf = func(string, ...any) {}
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	if err := opts.Write.Validate(); err != nil {
		return err
	}
	inputs, err := Expand(opts.Inputs)
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return errors.New("no input files")
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}

	loadedInputs := make([]loaded, len(inputs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	var mu sync.Mutex
	done := 0
	for i, in := range inputs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			loadedInputs[i] = load(in, opts.Write.LLVMRelease)
			mu.Lock()
			done++
			progress("reading inputs %d/%d", done, len(inputs))
			mu.Unlock()
		}()
	}
	wg.Wait()

	var bad []error
	var good []loaded
	for _, l := range loadedInputs {
		if l.err != nil {
			bad = append(bad, &InputError{Path: l.in.Path, Err: l.err})
			continue
		}
		good = append(good, l)
	}
	if err := applyPolicy(opts, bad, len(inputs)); err != nil {
		return err
	}

	var raws []*memprof.RawProfile
	var profs []*memprof.Profile
	for _, l := range good {
		if l.in.Weight != 1 {
			opts.Warnf("%s: weight %d ignored: weights do not apply to MemProf data", l.in.Path, l.in.Weight)
		}
		if l.raw != nil {
			raws = append(raws, l.raw)
		} else {
			profs = append(profs, l.prof)
		}
	}
	if len(raws) > 0 {
		if opts.ProfiledBinary == "" {
			return missingBinaryError(raws)
		}
		progress("symbolizing %s", opts.ProfiledBinary)
		bin, err := elfsym.Open(opts.ProfiledBinary, &elfsym.Options{
			DebugFileDirectories: opts.DebugFileDirectories,
			DWARFOnly:            true, // as llvm-profdata: no symbol-table fallback
			Warn:                 func(msg string) { opts.Warnf("%s: %s", opts.ProfiledBinary, msg) },
		})
		if err != nil {
			return fmt.Errorf("profiled binary: %w", err)
		}
		defer bin.Close()
		p, err := memprof.Convert(raws, bin, memprof.ConvertOptions{
			LLVMRelease: opts.Write.LLVMRelease,
			NumThreads:  len(raws), // one writer context per input; see Run
			Workers:     jobs,
		})
		if err != nil {
			return err
		}
		profs = append([]*memprof.Profile{p}, profs...)
	}
	merged := mergeProfiles(profs)
	progress("writing %s", opts.Output)
	if err := instrprof.WriteFile(opts.Output, merged, opts.Write); err != nil {
		return fmt.Errorf("%s: %w", opts.Output, err)
	}
	return nil
}

func applyPolicy(opts Options, bad []error, total int) error {
	if len(bad) == 0 {
		return nil
	}
	switch opts.Failure {
	case FailAny:
		if len(bad) == 1 {
			return bad[0]
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d of %d inputs are bad (--failure-mode=any):", len(bad), total)
		for _, e := range bad {
			b.WriteString("\n  " + e.Error())
		}
		return errors.New(b.String())
	case FailAll, FailWarn:
		for _, e := range bad {
			opts.Warnf("skipping bad input %v", e)
		}
		if len(bad) == total {
			return fmt.Errorf("no profile can be merged: all %d inputs are bad", total)
		}
		opts.Warnf("merged %d of %d inputs; %d skipped (--failure-mode=%s)", total-len(bad), total, len(bad), map[FailureMode]string{FailAll: "all", FailWarn: "warn"}[opts.Failure])
	}
	return nil
}

func load(in Input, release int) loaded {
	l := loaded{in: in}
	data, err := os.ReadFile(in.Path)
	if err != nil {
		l.err = err
		return l
	}
	l.kind = Detect(data)
	switch l.kind {
	case KindMemProfRaw:
		l.raw, l.err = memprof.ReadRaw(in.Path, data)
	case KindMemProfYAML:
		l.prof, l.err = instrprof.ReadYAML(in.Path, data)
	case KindIndexed:
		var f *instrprof.File
		f, l.err = instrprof.Read(in.Path, data)
		if l.err == nil {
			if f.MemProfVersion < 0 {
				l.err = errors.New("indexed profile has no MemProf data (merging instrumentation profiles is not supported yet)")
			} else {
				l.prof = f.Profile
			}
		}
	case KindInstrRaw:
		l.err = errors.New("raw instrumentation profiles (.profraw) are not supported yet")
	default:
		l.err = errors.New("unrecognized profile format: not a raw MemProf profile, an indexed profile or a YAML MemProf profile")
	}
	return l
}

func missingBinaryError(raws []*memprof.RawProfile) error {
	var ids []string
	seen := map[string]bool{}
	for _, r := range raws {
		for _, s := range r.Segments {
			id := s.BuildIDString(r.Version)
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return fmt.Errorf("raw MemProf profiles need --profiled-binary: the binary with one of the build ids %s", strings.Join(ids, ", "))
}

// mergeProfiles combines converted, YAML and indexed MemProf profiles:
// records with the same GUID are merged by appending alloc sites (as LLVM's
// IndexedMemProfRecord::merge does) and call sites not already present;
// records keep first-seen order. One profile is returned unchanged.
func mergeProfiles(ps []*memprof.Profile) *memprof.Profile {
	if len(ps) == 1 {
		return ps[0]
	}
	out := &memprof.Profile{}
	byGUID := map[uint64]*memprof.Record{}
	for _, p := range ps {
		for _, r := range p.Records {
			m, ok := byGUID[r.GUID]
			if !ok {
				m = &memprof.Record{GUID: r.GUID}
				byGUID[r.GUID] = m
				out.Records = append(out.Records, m)
			}
			m.AllocSites = append(m.AllocSites, r.AllocSites...)
			for _, cs := range r.CallSites {
				if !hasCallSite(m.CallSites, cs) {
					m.CallSites = append(m.CallSites, cs)
				}
			}
		}
	}
	return out
}

func hasCallSite(list []memprof.CallSite, cs memprof.CallSite) bool {
	key := callSiteKey(cs)
	for _, c := range list {
		if callSiteKey(c) == key {
			return true
		}
	}
	return false
}

func callSiteKey(cs memprof.CallSite) string {
	var b strings.Builder
	for _, f := range cs.Frames {
		fmt.Fprintf(&b, "%x:%d:%d:%t;", f.Function, f.LineOffset, f.Column, f.IsInlineFrame)
	}
	for _, g := range cs.CalleeGUIDs {
		fmt.Fprintf(&b, "%x,", g)
	}
	return b.String()
}
