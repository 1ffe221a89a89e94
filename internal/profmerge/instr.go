package profmerge

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/mapfile"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/profbinary"
)

// The instrumented-profile path: raw .profraw inputs (told by their magic)
// are decoded on up to Jobs goroutines and folded in canonical (sorted
// path) order into one instrprof.FuncProfile, which is what llvm-profdata
// merge --num-threads=1 of the same inputs in that order builds. The
// output is byte-identical to that run's for LLVM 16, 19 and 22; with more
// threads llvm-profdata merges per-thread writers, which can change the
// order of a name's hashes (LLVM 16), the order of equal-count values of a
// site and the order of temporal traces, so its default output may depend
// on the machine; ours never does.
//
// With raw MemProf inputs beside them, the function records are written
// into the same indexed file as the MemProf data (runMemProf, with opts.funcs).

// runInstr merges the .profraw inputs and the function records of the
// indexed inputs, inputs[instrIdx], in canonical order, as llvm-profdata
// merge loads them (raw records in data order, indexed ones in on-disk
// order); the others (MemProf inputs), and the MemProf data of indexed
// inputs that hold both, go through runMemProf with the merged function records.
// Bad inputs are reported under the failure policy, counted against all
// inputs.
func runInstr(opts Options, inputs []*source, instrIdx []int) error {
	// The fold is serial (in input order: the result does not depend on
	// jobs); the readers read and check raws against the fast path's
	// layout (instrprof.FuncProfile.PrepareRaw), about as much work as the
	// fold of each, so the fold's goroutine counts as one of the jobs:
	// jobs-1 readers, at least one (bench/instr: more only add memory,
	// and CPU time on a loaded machine).
	jobs := opts.Jobs - 1
	if jobs <= 0 {
		jobs = 1
	}
	// Inputs are read on up to jobs goroutines and folded in order as they
	// arrive; at most jobs+1 read inputs wait in memory.
	type result struct {
		data []byte
		mf   *mapfile.File // data is mapped (a large file): close it once folded
		err  error
		// pre is the fast path's check of a raw, done by the reader
		// (instrprof.FuncProfile.PrepareRaw) while the fold goes on.
		pre *instrprof.PreparedRaw
	}
	funcs := newFuncs(opts)
	done := make([]chan result, len(instrIdx))
	for k := range done {
		done[k] = make(chan result, 1)
	}
	window := make(chan struct{}, jobs+1)
	// Buffers of folded raws are read into again (raws do not keep their
	// data: the fold copies what it keeps), so the inputs cost no garbage
	// and memory stays at the jobs+2 buffers in flight (jobs+1 read, one
	// folded). free holds a token per buffer (nil: none allocated yet, or
	// not to be reused); a reader waits for one, and every input gives
	// one back.
	free := make(chan []byte, jobs+2)
	for range jobs + 2 {
		free <- nil
	}
	var next sync.Mutex
	nextK := 0
	for range min(jobs, len(instrIdx)) {
		go func() {
			var scratch []byte
			for {
				window <- struct{}{}
				next.Lock()
				k := nextK
				nextK++
				next.Unlock()
				if k >= len(instrIdx) {
					<-window
					return
				}
				buf := <-free
				s := inputs[instrIdx[k]]
				if s.size >= mapfile.MinMapped {
					// Mapped, not copied: a large file costs memory
					// only for the pages being decoded.
					free <- buf
					mf, err := s.load()
					if err != nil {
						done[k] <- result{err: err}
					} else {
						done[k] <- result{data: mf.Data, mf: mf}
					}
					continue
				}
				if need := int(s.size) + 1; cap(buf) < need {
					// Room for the raws of one binary, whose sizes differ
					// by their value data: a buffer that is a few bytes
					// short would be dropped for a new one, its pages
					// cleared and faulted in again.
					buf = make([]byte, 0, need+need/8)
				}
				data, err := s.read(buf)
				if err != nil {
					free <- buf
				}
				var pre *instrprof.PreparedRaw
				if err == nil && s.kind == KindInstrRaw {
					pre = funcs.PrepareRaw(data, &scratch)
				}
				done[k] <- result{data: data, err: err, pre: pre}
			}
		}()
	}

	// With --profiled-binary, .profraw files that carry binary ids must
	// carry its build id (llvm-profdata does not check this).
	var buildID []byte // nil: no binary opened
	if opts.ProfiledBinary != "" {
		bin, err := profbinary.Open(opts.ProfiledBinary, profbinary.Options{DWARFOnly: true})
		if err != nil {
			return fmt.Errorf("profiled binary: %w", err)
		}
		buildID = append([]byte{}, bin.BuildID()...)
		bin.Close()
	}

	var rr instrprof.RawReader
	var bad []error
	reports := make([]instrReport, len(instrIdx))
	isInstr := make(map[int]bool, len(instrIdx))
	// The buffer of the input folded last goes back before the next one
	// is waited for (a reader may be waiting for it).
	var give []byte
	giving := false
	for k, i := range instrIdx {
		if giving {
			free <- give
			giving = false
		}
		isInstr[i] = true
		res := <-done[k]
		<-window
		path := inputs[i].Path
		rep := &reports[k]
		rep.path = path
		fail := func(err error) {
			rep.dropped = err
			bad = append(bad, &InputError{Path: path, Err: err})
		}
		if res.err != nil {
			fail(res.err)
			continue
		}
		if res.mf == nil {
			// The buffer goes back once the input is folded; an indexed
			// input's records may keep parts of it: not reused.
			buf := res.data
			if inputs[i].kind == KindIndexed {
				buf = nil
			}
			give, giving = buf, true
		}
		var release func(off int)
		if res.mf != nil {
			release = res.mf.Done
			defer res.mf.Close()
		}
		n := len(funcs.Warnings)
		if inputs[i].kind == KindIndexed {
			f, err := instrprof.ReadFuncs(path, res.data)
			if err != nil {
				fail(err)
				continue
			}
			funcs.AddIndexed(f, inputs[i].Weight)
			if f.MemProfVersion >= 0 {
				isInstr[i] = false // its MemProf data goes through runMemProf
			}
			rep.warn(opts, funcs.Warnings[n:])
			continue
		}
		if len(buildID) > 0 {
			if err := instrprof.CheckRawBinaryID(path, res.data, buildID); err != nil {
				fail(err)
				continue
			}
		}
		// Raws of the binary of the one before take the same-layout fast
		// path (instrprof.FuncProfile.AddRawData); the others (and files
		// of no known format: a bad magic) are decoded here.
		raw, err := funcs.AddPreparedRaw(&rr, path, res.data, inputs[i].Weight, release, res.pre)
		if res.mf != nil {
			res.mf.Close()
		}
		if err != nil {
			fail(err)
			continue
		}
		if len(raw.LargeCounts) > 0 {
			// llvm-profdata merges such an input but counts each value as
			// an error: the merge fails under --failure-mode=any.
			msg := fmt.Sprintf("excessively large counter value suggests corrupted profile data: %d", raw.LargeCounts[0])
			if n := len(raw.LargeCounts); n > 1 {
				msg += fmt.Sprintf(" (and %d more)", n-1)
			}
			if opts.Failure == FailAny {
				bad = append(bad, &InputError{Path: path, Err: errors.New(msg)})
			} else {
				rep.large = len(raw.LargeCounts)
				opts.Warnf("%s: %s (merged, as llvm-profdata does outside --failure-mode=any)", path, msg)
			}
		}
		rep.warn(opts, funcs.Warnings[n:])
	}
	if err := applyPolicy(opts, bad, len(inputs)); err != nil {
		return err
	}
	if len(instrIdx) > 0 && len(bad) == len(instrIdx) {
		funcs = nil
		if opts.empty > 0 {
			// Empty inputs beside the bad ones (applyPolicy let it
			// through): llvm-profdata writes an empty profile.
			funcs = newFuncs(opts)
		}
	}
	var rest []*source
	for i, in := range inputs {
		if !isInstr[i] {
			rest = append(rest, in)
		}
	}
	if len(rest) > 0 {
		opts.funcs = funcs
		if err := runMemProf(opts, rest); err != nil {
			return err
		}
		report(opts, reports, len(inputs))
		return nil
	}
	if funcs == nil {
		return fmt.Errorf("no profile can be merged: all %d inputs are bad", len(inputs))
	}
	out := &outputs{}
	defer out.discard()
	var side []byte
	if opts.PartialStateOutput != "" { // no MemProf data: no contexts
		side, _ = memprof.Intern(&memprof.Profile{}).EncodePartialStates()
	}
	if err := writeWithState(opts, out, side, func(w io.Writer) error {
		return instrprof.WriteFuncs(w, funcs, nil, nil, opts.Write)
	}); err != nil {
		return err
	}
	if err := finish(opts, out, buildID); err != nil {
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	report(opts, reports, len(inputs))
	return nil
}

// newFuncs returns an empty FuncProfile for opts.
func newFuncs(opts Options) *instrprof.FuncProfile {
	funcs := instrprof.NewFuncProfile()
	funcs.Sparse = opts.Sparse
	funcs.LastProfileBinaryIDs = !opts.Write.Release.KeepsAllRawBinaryIDs()
	funcs.Traces22 = opts.Write.Release.TemporalTraces22()
	funcs.ReservoirSize, funcs.MaxTraceLength = opts.TraceReservoirSize, opts.MaxTraceLength
	return funcs
}

// instrReport is what one instrumented input lost in the merge.
type instrReport struct {
	path    string
	dropped error          // the whole input, and why
	large   int            // counters above 2^56, merged
	issues  map[string]int // per-function problems (records or parts not merged), by message
}

// warn reports the per-function problems of the input's records and
// counts them for the report.
func (r *instrReport) warn(opts Options, ws []instrprof.MergeWarning) {
	for _, w := range ws {
		opts.Warnf("%s: %s: %s", r.path, w.Name, w.Msg)
		if r.issues == nil {
			r.issues = map[string]int{}
		}
		r.issues[w.Msg]++
	}
}

// report prints, once the output is written, what each instrumented input
// lost: dropped whole (with the error naming file and offset), or records
// (or parts of them) not merged, or counters merged though suspicious.
// Nothing is printed when nothing was lost.
func report(opts Options, reports []instrReport, total int) {
	var lines []string
	dropped := 0
	for _, r := range reports {
		switch {
		case r.dropped != nil:
			dropped++
			lines = append(lines, fmt.Sprintf("  %s: dropped: %s", r.path, strings.TrimPrefix(infile.Message(r.path, r.dropped), r.path+": ")))
			continue
		case r.large == 0 && len(r.issues) == 0:
			continue
		}
		var what []string
		if r.large > 0 {
			what = append(what, fmt.Sprintf("%d excessively large counters merged", r.large))
		}
		for _, msg := range slices.Sorted(maps.Keys(r.issues)) {
			what = append(what, fmt.Sprintf("%d× %s", r.issues[msg], msg))
		}
		lines = append(lines, fmt.Sprintf("  %s: merged; %s", r.path, strings.Join(what, "; ")))
	}
	if len(lines) == 0 {
		return
	}
	opts.Warnf("report: %d of %d inputs merged, %d dropped; per input:\n%s", total-dropped, total, dropped, strings.Join(lines, "\n"))
}

// instrInputs returns the indexes of the .profraw inputs and of the
// indexed inputs with function records.
//
// When there are some, inputs of no known format (a bad magic, too short
// to tell, unreadable) are counted with them, so that they are reported
// as bad instrumented inputs under the failure policy.
func instrInputs(inputs []*source) []int {
	var idx, unknown []int
	for i, in := range inputs {
		if in.instr {
			idx = append(idx, i)
		} else if in.err != nil || in.kind == KindUnknown {
			unknown = append(unknown, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	idx = append(idx, unknown...)
	slices.Sort(idx)
	return idx
}

// writeCompact writes the MemProf data to w (a new empty file, or a
// stream), with the function records of opts.funcs if there are any.
func writeCompact(opts Options, w io.Writer, c *memprof.Compact) error {
	if opts.funcs != nil {
		return instrprof.WriteFuncs(w, opts.funcs, nil, c, opts.Write)
	}
	return instrprof.WriteCompact(w, c, opts.Write)
}

// ShowInstr writes what `llvm-profdata show` of release o.Release
// prints for the instrumented profile at path (a .profraw or an indexed
// profile).
func ShowInstr(w io.Writer, path string, o instrprof.ShowOptions) error {
	mf, err := mapfile.Open(path, nil)
	if err != nil {
		return err
	}
	defer mf.Close()
	data := mf.Data
	if instrprof.IsRaw(data) {
		r, err := instrprof.ParseRaw(path, data)
		if err != nil {
			return err
		}
		return instrprof.Show(w, instrprof.ShowRawInput(r, o.Release), o)
	}
	if len(data) == 0 {
		return fmt.Errorf("%s: empty raw profile file", path) // llvm-profdata show's words
	}
	if Detect(data) != KindIndexed {
		return fmt.Errorf("%s: not an instrumentation profile (.profraw or indexed)", path)
	}
	f, err := instrprof.ReadFuncs(path, data)
	if err != nil {
		return err
	}
	in := instrprof.ShowIndexedInput(f)
	vt, err := instrprof.VTableNames(path, f.VTableNames)
	if err != nil {
		return err
	}
	in.Names = append(in.Names, vt...)
	return instrprof.Show(w, in, o)
}

// IsInstrProfile reports whether the file at path is a .profraw, or an
// indexed profile with function records and without MemProf data: the
// files `merge show` shows as llvm-profdata show does without --memory.
func IsInstrProfile(path string) bool {
	srcs := classify([]Input{{Path: path, Weight: 1}})
	defer closeSources(srcs)
	s := srcs[0]
	return s.kind == KindInstrRaw || s.kind == KindIndexed && s.instr && !s.memProfBit
}
