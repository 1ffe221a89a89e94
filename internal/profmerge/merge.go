package profmerge

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/freelist"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/mapfile"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
)

// Options configure one merge.
type Options struct {
	// Inputs are as given; Run expands directories, orders the inputs,
	// and skips those llvm-profdata skips: what is not a regular file (a
	// FIFO, a device, a socket: with a warning) and, outside sample
	// merges, empty files (silently, as LLVM).
	Inputs         []Input
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
	// Fatal, if set, is asked once the output is written, before it is put
	// in place, whether the merge fails after all (warnings treated as
	// errors); its error is returned, and every old output stays as it was.
	Fatal func() error
	// BuildIDOutput, if set, receives the profiled binary's GNU build id
	// (hex, newline terminated) once the merge has succeeded.
	BuildIDOutput string
	// Sample are the sample-profile options (see runSample).
	Sample SampleOptions
	// MergeContexts merges MemProf allocation contexts by call stack, as
	// the MemProf RFC designs, instead of appending every input's as
	// llvm-profdata does. Raw inputs are then folded in sorted path order
	// (not in llvm-profdata's writer-context order: the bytes are not
	// llvm-profdata's anyway); every allocation context (a function's
	// alloc site with its full call stack) that several inputs, or several
	// MIBs of one input, share becomes one MIB, combined with
	// compiler-rt's MemInfoBlock::Merge (the heap profiler's own merge of
	// equal stacks: totals and AllocCount add, minima and maxima combine,
	// the latest timestamps and CPU ids decide the overlap and same-CPU
	// counters, histograms add into the longer); each distinct call site
	// is listed once. Memory and output grow with the unique contexts plus
	// the inputs in flight, not with the number of inputs, and a bad input
	// (--failure-mode all/warn) is skipped without a second pass. Indexed
	// and YAML inputs are merged the same way, after the raw ones, in
	// sorted path order.
	MergeContexts bool
	// PartialStateOutput, if set (MergeContexts only), receives the
	// sidecar of the output as a partial profile: the first-block state of
	// each allocation context (memprof/partial.go). A later merge given the
	// output with it (Input.State) gives the bytes one merge of all the
	// inputs gives, when the partials are contiguous runs of the sorted
	// inputs merged in order.
	PartialStateOutput string

	// Sparse is --sparse: function records without counts are left out.
	Sparse bool
	// TraceReservoirSize and MaxTraceLength bound the temporal profiling
	// traces kept (instrprof.FuncProfile; 0: LLVM's defaults).
	TraceReservoirSize, MaxTraceLength uint64
	// funcs are function records merged from .profraw inputs (instr.go),
	// written beside the MemProf data.
	funcs *instrprof.FuncProfile
	// empty counts the empty inputs skipped (dropEmpty): llvm-profdata
	// counts them as inputs that are not bad, so with one of them a merge
	// whose other inputs are all bad writes an empty profile under
	// --failure-mode all and warn.
	empty int
}

// loaded is one input after reading and decoding.
type loaded struct {
	in   Input
	kind Kind
	raw  *memprof.RawProfile
	prof *memprof.Compact // YAML or indexed input; First set from its partial state (Input.State)
	err  error
	// prep is raw prepared for the converter (then raw is nil), or
	// prepErr why it could not be: a conversion error, fatal in any mode.
	prep    *memprof.Prepared
	prepErr error
}

// InputError is a bad input, reported under the failure policy.
type InputError struct {
	Path string
	Err  error
}

// Error names the file once (infile.Message): the errors of the readers
// name it already.
func (e *InputError) Error() string { return infile.Message(e.Path, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// Run merges opts.Inputs into opts.Output. The output is written through
// atomicfile (a regular file by temporary file + rename, so a failed run
// never leaves a partial file; a device, FIFO or "-" gets the bytes once
// complete), and put in
// place with the partial state and build id files only once nothing can
// fail (opts.Fatal, the build id): a failed merge changes no output. The
// profiled binary is opened once: the converter symbolizes against it and
// checks its headers, and the build id comes from it. Each input is opened
// once too, and classified from one read of its head (classify); every
// later read of it is of that open file.
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
//
// Raw inputs are streamed (see convertRaw): read and prepared
// (memprof.Converter.Prepare: decoding, symbolization, per-input work) on
// up to Jobs+1 goroutines, folded in the order their writer contexts reach
// context 0, and released once folded into the result, so memory does not grow with the number of
// inputs beyond the merged profile itself. "Good inputs" decide that
// order: with --failure-mode all or warn, a bad raw input restarts the
// conversion over the good ones, giving the bytes the good ones give alone.
func Run(opts Options) error {
	if opts.Warnf == nil {
		opts.Warnf = func(string, ...any) {}
	}
	if err := opts.Write.Validate(); err != nil {
		return err
	}
	inputs, err := Expand(opts.Inputs)
	if err != nil {
		return err
	}
	inputs = regularInputs(inputs, opts.Warnf)
	if len(inputs) == 0 {
		return errors.New("no input files")
	}
	srcs := classify(inputs)
	defer closeSources(srcs)
	return route(opts, srcs)
}

// route sends the inputs, classified, to the path that merges them:
// sample profiles to runSample, .profraw and indexed inputs with function
// records to runInstr (which hands the MemProf inputs beside them to
// runMemProf), MemProf inputs to runMemProf.
func route(opts Options, srcs []*source) error {
	if opts.Sample.Force {
		return runSample(opts, srcs)
	}
	var sample, mem []string
	for _, s := range srcs {
		switch {
		case s.kind != KindUnknown:
			mem = append(mem, s.Path)
		case s.sample:
			sample = append(sample, s.Path)
		}
	}
	if len(sample) > 0 {
		if len(mem) > 0 {
			return cli.Usagef("cannot merge sample profiles (%s) with MemProf profiles (%s)", strings.Join(sample, ", "), strings.Join(mem, ", "))
		}
		return runSample(opts, srcs)
	}
	if opts.Sample != (SampleOptions{}) {
		return cli.Usagef("sample-profile options given, but no input is a sample profile (give --sample to read them all as one)")
	}
	srcs, n := dropEmpty(srcs)
	opts.empty += n
	if len(srcs) == 0 {
		// Only empty inputs: llvm-profdata writes an empty profile.
		return runInstr(opts, nil, nil)
	}
	if idx := instrInputs(srcs); len(idx) > 0 {
		return runInstr(opts, srcs, idx) // instr.go
	}
	return runMemProf(opts, srcs)
}

// runMemProf merges MemProf inputs (raw, indexed, YAML), with the function
// records of opts.funcs when runInstr merged some.
func runMemProf(opts Options, inputs []*source) error {
	progress := opts.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}

	// Raw MemProf inputs (told apart by their magic) are streamed through a
	// memprof.Converter; the others are small and loaded up front.
	var rawIdx, otherIdx []int
	for i, in := range inputs {
		if in.kind == KindMemProfRaw {
			if in.State != "" {
				return cli.Usagef("--memprof-partial-input %s,%s: a raw profile has no partial state (give it as an input)", in.Path, in.State)
			}
			rawIdx = append(rawIdx, i)
		} else {
			otherIdx = append(otherIdx, i)
		}
	}
	others := make([]loaded, len(otherIdx))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for k, i := range otherIdx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			others[k] = load(inputs[i])
		}()
	}
	wg.Wait()

	badAt := map[int]error{} // input index -> error
	for k, l := range others {
		if l.err != nil {
			badAt[otherIdx[k]] = &InputError{Path: l.in.Path, Err: l.err}
		}
	}
	var bin *profbinary.Binary
	var buildID []byte // the profiled binary's once it is opened (then not nil)
	if len(rawIdx) > 0 && opts.ProfiledBinary != "" {
		progress("symbolizing %s", opts.ProfiledBinary)
		var err error
		bin, err = profbinary.Open(opts.ProfiledBinary, profbinary.Options{
			DebugFileDirectories: opts.DebugFileDirectories,
			DWARFOnly:            true,                                       // as llvm-profdata: no symbol-table fallback
			Warn:                 func(msg string) { opts.Warnf("%s", msg) }, // msg names the binary
		})
		if err != nil {
			return fmt.Errorf("profiled binary: %w", err)
		}
		buildID = append([]byte{}, bin.BuildID()...)
	}
	rawProf, deferred, err := convertRaw(opts, bin, inputs, rawIdx, badAt, jobs, progress)
	if bin != nil {
		bin.Close() // its mappings and indexes go before the writer's peak
	}
	if err != nil {
		return err
	}
	var bad []error
	for i := range inputs {
		if e, ok := badAt[i]; ok {
			bad = append(bad, e)
		}
	}
	if err := applyPolicy(opts, bad, len(inputs)); err != nil {
		return err
	}
	if deferred != nil {
		return deferred
	}
	if len(bad) == len(inputs) && opts.funcs == nil {
		// Every input bad but empty ones beside them (applyPolicy let it
		// through): llvm-profdata writes an empty profile.
		return runInstr(opts, nil, nil)
	}
	for i, in := range inputs {
		if _, ok := badAt[i]; !ok && in.Weight != 1 {
			opts.Warnf("%s: weight %d ignored: weights do not apply to MemProf data", in.Path, in.Weight)
		}
	}
	var profs []*memprof.Compact
	for _, l := range others {
		if l.err == nil {
			profs = append(profs, l.prof)
		}
	}
	out := &outputs{}
	defer out.discard()
	if err := write(opts, out, rawProf, profs, progress); err != nil {
		return err
	}
	if err := finish(opts, out, buildID); err != nil {
		return err
	}
	return out.commit()
}

// outputs are the files a merge writes (the profile, its partial state,
// the build id), each filled beside its target (atomicfile.Begin) and put
// in place together once nothing can fail any more (commit), so that a
// failed merge leaves every old output as it was.
type outputs struct{ pending []*atomicfile.Pending }

// begin fills the output name with fill.
func (o *outputs) begin(name string, fill func(f *os.File) error) (*atomicfile.Pending, error) {
	p, err := atomicfile.Begin(name, 0o644, fill)
	if err != nil {
		return nil, err
	}
	o.pending = append(o.pending, p)
	return p, nil
}

// commit puts the outputs in place, in the order they were begun: the
// profile before the files that go with it, so that a failure in the
// middle never leaves a new state file beside an old profile (a new
// profile beside an old state is refused when the two are merged: the
// state records its profile's SHA-256).
func (o *outputs) commit() error {
	for len(o.pending) > 0 {
		p := o.pending[0]
		o.pending = o.pending[1:]
		if err := p.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// discard drops the outputs not committed.
func (o *outputs) discard() {
	for _, p := range o.pending {
		p.Discard()
	}
	o.pending = nil
}

// write writes the merged profile: the converted raw inputs (rawProf, nil
// if none) and the YAML and indexed ones (profs), all in dense form.
func write(opts Options, out *outputs, rawProf *memprof.Compact, profs []*memprof.Compact, progress func(string, ...any)) error {
	merged := rawProf
	if rawProf == nil || len(profs) > 0 {
		if rawProf != nil {
			if !opts.MergeContexts {
				rawProf.First = nil // appended contexts: no partial merge
			}
			profs = append([]*memprof.Compact{rawProf}, profs...)
		}
		merged = memprof.Merge(profs, opts.MergeContexts, opts.PartialStateOutput != "")
		if rawProf != nil {
			// The conversion's scratch (raw inputs, the Converter's
			// indexes, the symbolizer) is garbage now, but the heap goal
			// still counts it: collecting before the writer allocates its
			// index keeps the peak near the profile plus the index.
			runtime.GC()
		}
	}
	// With raw inputs only, the converter's dense form goes to the
	// writer as it is, its First the partial states.
	var side []byte
	if opts.PartialStateOutput != "" {
		var err error
		if side, err = merged.EncodePartialStates(); err != nil {
			return err
		}
	}
	progress("writing %s", opts.Output)
	return writeWithState(opts, out, side, func(w io.Writer) error { return writeCompact(opts, w, merged) })
}

// writeWithState begins the output, written by fill, and its partial-state
// sidecar (opts.PartialStateOutput, encoded in side) with the SHA-256 of
// the bytes fill writes, hashed as they are written. Without a sidecar
// fill gets the empty file itself (written by position, in parallel).
func writeWithState(opts Options, out *outputs, side []byte, fill func(w io.Writer) error) error {
	h := sha256.New()
	_, err := out.begin(opts.Output, func(f *os.File) error {
		if opts.PartialStateOutput == "" {
			return fill(instrprof.EmptyFile{File: f})
		}
		return fill(io.MultiWriter(f, h))
	})
	if err != nil {
		return outputError(opts.Output, err)
	}
	if opts.PartialStateOutput == "" {
		return nil
	}
	memprof.SetPartialSum(side, h.Sum(nil))
	_, err = out.begin(opts.PartialStateOutput, func(f *os.File) error {
		_, err := f.Write(side)
		return err
	})
	return err
}

// outputError makes err name the output, unless it does already (the
// write errors of atomicfile do).
func outputError(name string, err error) error {
	if infile.Names(err, name) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// finish is what follows the output begun: opts.Fatal, then the build id
// file, with the id of the binary the conversion used (buildID, empty if
// it has none) or, if none was opened (buildID nil), of the binary opened
// for it.
func finish(opts Options, out *outputs, buildID []byte) error {
	if opts.Fatal != nil {
		if err := opts.Fatal(); err != nil {
			return err
		}
	}
	if opts.BuildIDOutput == "" {
		return nil
	}
	id := buildID
	if id == nil {
		b, err := profbinary.Open(opts.ProfiledBinary, profbinary.Options{DWARFOnly: true})
		if err != nil {
			return fmt.Errorf("profiled binary: %w", err)
		}
		id = b.BuildID()
		b.Close()
	}
	if len(id) == 0 {
		return fmt.Errorf("%s: no GNU build id (link with -Wl,--build-id)", opts.ProfiledBinary)
	}
	_, err := out.begin(opts.BuildIDOutput, func(f *os.File) error {
		_, err := f.Write([]byte(hex.EncodeToString(id) + "\n"))
		return err
	})
	return err
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
		if len(bad) == total && opts.empty == 0 {
			return fmt.Errorf("no profile can be merged: all %d inputs are bad", total)
		}
		opts.Warnf("merged %d of %d inputs; %d skipped (--failure-mode=%s)", total-len(bad), total, len(bad), map[FailureMode]string{FailAll: "all", FailWarn: "warn"}[opts.Failure])
	}
	return nil
}

// load reads and decodes an input that is not a raw MemProf profile (or
// could not be opened: the error is reported here).
func load(s *source) loaded {
	l := loaded{in: s.Input}
	data, err := s.read(nil)
	if err != nil {
		l.err = err
		return l
	}
	l.kind = s.kind
	switch l.kind {
	case KindMemProfRaw:
		l.raw, l.err = memprof.ReadRaw(s.Path, data)
	case KindMemProfYAML:
		var p *memprof.Profile
		if p, l.err = memprof.ReadYAML(s.Path, data); l.err == nil {
			l.prof = memprof.Intern(p)
		}
	case KindIndexed:
		var f *instrprof.File
		f, l.err = instrprof.Read(s.Path, data)
		if l.err == nil {
			if f.MemProfVersion < 0 {
				l.err = errors.New("indexed profile has no MemProf data (merging instrumentation profiles is not supported yet)")
			} else {
				l.prof = memprof.Intern(f.Profile)
			}
		}
	case KindInstrRaw:
		l.err = errors.New("raw instrumentation profiles (.profraw) are not supported yet")
	default:
		l.err = errors.New("unrecognized profile format: not a raw MemProf profile, an indexed profile or a YAML MemProf profile")
	}
	if l.err == nil && s.State != "" {
		l.err = loadStates(s.State, data, l.prof)
	}
	return l
}

// loadStates reads the partial-state sidecar of prof into prof.First,
// checking that it has the state of every allocation context of prof.
func loadStates(path string, profile []byte, prof *memprof.Compact) error {
	if prof == nil {
		return errors.New("a partial state is for an indexed or YAML MemProf profile")
	}
	data, err := infile.ReadFile(path)
	if err != nil {
		return err
	}
	st, sum, err := memprof.DecodePartialStates(path, data)
	if err != nil {
		return err
	}
	if sum != sha256.Sum256(profile) {
		return fmt.Errorf("partial state %s belongs to another profile (it records the SHA-256 of the partial profile written with it)", path)
	}
	if err := prof.SetStates(st); err != nil {
		return fmt.Errorf("partial state %s has %w: not the state of this profile", path, err)
	}
	return nil
}

// convertRaw converts the raw inputs inputs[rawIdx[...]] into one profile
// in dense form, streaming: they are read and prepared in
// memprof.FoldOrder, at most jobs+1 at a time (on their own goroutines,
// overlapping the fold), folded in that order, and each is dropped once
// folded, so peak memory is the merged profile plus about jobs+1 inputs.
//
// Bad raw inputs are added to badAt. The fold order depends on how many
// inputs are good (one writer context per good input, see Run), so when a
// bad input turns up the pass only validates the rest (reads and decodes
// them, without preparing), and the conversion restarts once over the good
// ones (failure modes all and warn; mode any fails anyway). Dropping the
// bad input and folding on in the first order would give other bytes, and
// knowing the good inputs before folding would mean holding every prepared
// input (+25% peak RSS on bench/memprof) or reading each twice, whereas the
// restart costs only when an input is bad. A missing --profiled-binary is
// returned as deferred, to be reported after the failure policy, as before.
func convertRaw(opts Options, bin *profbinary.Binary, inputs []*source, rawIdx []int, badAt map[int]error, jobs int, progress func(string, ...any)) (prof *memprof.Compact, deferred, err error) {
	if len(rawIdx) == 0 {
		return nil, nil, nil
	}
	release := opts.Write.Release
	if bin == nil { // no --profiled-binary
		var good []*memprof.RawProfile
		err := forEachRaw(inputs, rawIdx, nil, jobs, nil, func(i int, l loaded) error {
			if l.err != nil {
				badAt[i] = &InputError{Path: l.in.Path, Err: l.err}
				return nil
			}
			// Keep what the error message needs only.
			good = append(good, &memprof.RawProfile{Version: l.raw.Version, Segments: l.raw.Segments})
			return nil
		})
		if err != nil || len(good) == 0 {
			return nil, nil, err
		}
		return nil, missingBinaryError(good), nil
	}
	cands := rawIdx
	for len(cands) > 0 {
		var conv *memprof.Converter
		if opts.Failure != FailAny || len(badAt) == 0 {
			conv, err = memprof.NewConverter(bin.Symbolizer(), memprof.ConvertOptions{
				Release:       release,
				NumThreads:    len(cands), // one writer context per input; see Run
				Workers:       jobs,
				MergeContexts: opts.MergeContexts,
			})
			if err != nil {
				return nil, nil, err
			}
		}
		var good []int
		newBad, done := 0, 0
		var validating atomic.Bool // a bad input was met: prepare no more
		var prep func(*memprof.RawProfile) (*memprof.Prepared, error)
		if conv != nil {
			prep = func(r *memprof.RawProfile) (*memprof.Prepared, error) {
				if validating.Load() {
					return nil, nil
				}
				return conv.Prepare(r)
			}
		}
		// Merged contexts are folded in path order, which a bad input
		// does not change: it is skipped and the fold goes on.
		var order []int
		if !opts.MergeContexts {
			order = memprof.FoldOrder(len(cands))
		}
		err := forEachRaw(inputs, cands, order, jobs, prep, func(i int, l loaded) error {
			done++
			progress("converting inputs %d/%d", done, len(cands))
			if l.err != nil {
				badAt[i] = &InputError{Path: l.in.Path, Err: l.err}
				if opts.MergeContexts && conv != nil {
					return nil
				}
				newBad++
				validating.Store(true)
				return nil
			}
			good = append(good, i)
			if conv == nil || newBad > 0 {
				return nil // validating only
			}
			if l.prepErr != nil {
				return l.prepErr
			}
			conv.Fold(l.prep)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if newBad == 0 && conv != nil {
			if len(good) == 0 {
				return nil, nil, nil // every input bad: applyPolicy says so
			}
			p, err := conv.Compact()
			return p, nil, err
		}
		if opts.Failure == FailAny {
			return nil, nil, nil // applyPolicy reports every bad input
		}
		slices.Sort(good)
		cands = good
	}
	return nil, nil, nil
}

// forEachRaw loads inputs[idx[order[k]]] for k = 0, 1, ... (order nil:
// idx order) with at most jobs+1 loads in flight or waiting, and calls fn
// with each in turn. It stops at fn's first error. With prep set, each
// good raw input is also prepared on the loading goroutine (l.prep or
// l.prepErr replace l.raw).
func forEachRaw(inputs []*source, idx, order []int, jobs int, prep func(*memprof.RawProfile) (*memprof.Prepared, error), fn func(i int, l loaded) error) error {
	if order == nil {
		order = make([]int, len(idx))
		for k := range order {
			order[k] = k
		}
	}
	return inOrder(len(order), jobs, func(k int) loaded {
		l := loadRaw(inputs[idx[order[k]]])
		if l.err == nil && prep != nil {
			l.prep, l.prepErr = prep(l.raw)
			l.raw = nil
		}
		return l
	}, func(k int, l loaded) error { return fn(idx[order[k]], l) })
}

// rawBufs recycles the file buffers of raw inputs: ReadRaw keeps no
// reference to its input, so each buffer can serve the next file.
// A free list, not a sync.Pool: the pool drops its contents at every GC,
// and a fresh 4 MB buffer costs a thousand page faults.
var rawBufs freelist.List[*[]byte]

// loadRaw is load for a file that starts with the raw MemProf magic, read
// into a recycled buffer. The magic is not looked at again here: should the
// file have changed since, ReadRaw rejects it like any bad raw input.
func loadRaw(s *source) loaded {
	in := s.Input
	if s.size >= mapfile.MinMapped {
		// A large file is mapped, not copied: its dumps are given back
		// as they are read, so memory holds what the profile keeps.
		mf, err := s.load()
		if err != nil {
			return loaded{in: in, err: err}
		}
		defer mf.Close()
		l := loaded{in: in, kind: KindMemProfRaw}
		l.raw, l.err = memprof.ReadRawDone(in.Path, mf.Data, mf.Done)
		return l
	}
	bp := rawBufs.Get()
	if bp == nil {
		bp = new([]byte)
	}
	defer rawBufs.Put(bp)
	// The size is a hint only: the file is read to its end whatever it is.
	data, err := s.read((*bp)[:0])
	if err != nil {
		return loaded{in: in, err: err}
	}
	*bp = data[:0]
	l := loaded{in: in, kind: KindMemProfRaw}
	l.raw, l.err = memprof.ReadRaw(in.Path, data)
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
