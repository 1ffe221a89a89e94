package profmerge

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
	"github.com/rules-pgo/rules_pgo/internal/cli"
	"github.com/rules-pgo/rules_pgo/internal/freelist"
	"github.com/rules-pgo/rules_pgo/internal/infile"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// SampleOptions are the sample-profile options of a merge (llvm-profdata
// merge --sample's).
type SampleOptions struct {
	// Force is --sample: every input is a sample profile. Without it, a
	// merge whose inputs are sample profiles (by content) is one.
	Force bool
	// Format is text, binary or extbinary; "" writes the release's
	// default (raw binary for LLVM 16, extbinary since 17).
	Format         string
	UseMD5         bool
	CompressAll    bool
	Partial        bool
	SplitLayout    bool // LLVM 22
	VTables        bool // --extbinary-write-vtable-type-prof, LLVM 22
	DropSymbolList bool
	// SymbolListFile is --prof-sym-list: names added to the profile
	// symbol list, one a line.
	SymbolListFile string
	// MergeColdContext and TrimColdContext are
	// --sample-merge-cold-context and --sample-trim-cold-context: CS
	// contexts below the profile's cold count threshold are merged into
	// the context of their last ColdContextFrameDepth frames
	// (--sample-frame-depth-for-cold-context; 0 means 1, the base
	// profile) and/or dropped.
	MergeColdContext, TrimColdContext bool
	ColdContextFrameDepth             int
	// Layout is --convert-sample-profile-layout (LLVM 19, 22; LLVM 16's
	// --gen-cs-nested-profile is "nest"): "nest" nests a CS profile's
	// contexts into inlinees, "flat" flattens contexts or inlinees into
	// one profile per function.
	Layout string
}

// validate checks the options against what llvm-profdata-rel has.
func (so *SampleOptions) validate(rel llvmrelease.Release) error {
	switch so.Layout {
	case "", "nest":
	case "flat":
		if !rel.HasFlatSampleLayout() {
			return cli.Usagef("--convert-sample-profile-layout=flat: llvm-profdata-%d has no such option (LLVM 19 and later)", rel)
		}
	default:
		return cli.Usagef("--convert-sample-profile-layout=%s: want nest or flat", so.Layout)
	}
	if so.ColdContextFrameDepth < 0 {
		return cli.Usagef("--sample-frame-depth-for-cold-context=%d: want a number of frames, at least 1", so.ColdContextFrameDepth)
	}
	return nil
}

// runSample merges sample profiles as llvm-profdata merge --sample of the
// release does: inputs are read and decoded on their own goroutines, at
// most jobs+1 at a time, and folded one at a time in canonical order (so
// the output and the warnings never depend on scheduling), so memory is
// the merged profile plus the inputs in flight.
//
// Bad inputs are what llvm-profdata makes of them: a file that is not a
// sample profile in any encoding is skipped under --failure-mode all or
// warn (and then even none left writes an empty profile, as LLVM does),
// while a file that is one but does not decode fails the merge in every
// mode, as do mixing CS and non-CS, or probe-based and other profiles.
func runSample(opts Options, inputs []*source) error {
	rel := opts.Write.Release
	so := opts.Sample
	if !rel.HasFailureModeWarn() && opts.Failure == FailWarn {
		return cli.Usagef("--failure-mode=warn: llvm-profdata-16 has no such mode (want any or all)")
	}
	format := so.Format
	if format == "" {
		format = rel.SampleDefaultFormat()
	}
	// The heap is mostly the merged profile, kept to the end: collecting a
	// third as often saves ~20% of the CPU for ~5-10% more peak RSS on
	// bench/sample (still under half of llvm-profdata's).
	defer cli.SetGCPercent(200)()
	m := sampleprof.Merger{Release: rel, Warnf: opts.Warnf}
	names := &sampleprof.Names{} // the inputs share their names' strings
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	bufs := &readBufs{}
	err := inOrder(len(inputs), jobs, func(k int) sampleLoad { return loadSample(opts, format, names, bufs, inputs[k]) }, func(k int, l sampleLoad) error {
		for _, w := range l.warns {
			opts.Warnf("%s", w)
		}
		switch {
		case l.bad != nil && opts.Failure == FailAny:
			return l.bad
		case l.bad != nil:
			opts.Warnf("skipping bad input %v", l.bad)
			return nil
		case l.err != nil:
			return l.err
		}
		if l.t != nil {
			err := m.AddText(inputs[k].Path, l.t, inputs[k].Weight)
			l.t.Release()
			return err
		}
		return m.Add(inputs[k].Path, l.p, inputs[k].Weight)
	})
	if err != nil {
		return err
	}
	if so.SymbolListFile != "" {
		data, err := infile.ReadStream(so.SymbolListFile)
		if err != nil {
			return err
		}
		for _, s := range strings.Split(string(data), "\n") {
			if s != "" {
				m.AddSymbols(strings.TrimSpace(s))
			}
		}
	}
	p := m.Profile()
	if so.MergeColdContext || so.TrimColdContext {
		depth := so.ColdContextFrameDepth
		if !rel.SampleColdContextDepth() && depth > 1 {
			// Measured: its trimmer merges into base profiles whatever
			// the option says.
			opts.Warnf("llvm-profdata-16 ignores --sample-frame-depth-for-cold-context=%d: cold contexts are merged into base profiles (use --llvm-version 19 or later)", depth)
			depth = 1
		}
		err := p.TrimColdContexts(sampleprof.ColdContextOptions{
			Threshold: p.ComputeSummaryFor(rel).CountThreshold(sampleprof.ColdCutoff),
			Trim:      so.TrimColdContext, Merge: so.MergeColdContext,
			FrameDepth: depth, Release: rel})
		if err != nil {
			return fmt.Errorf("--sample-merge-cold-context: %w (llvm-profdata-%d crashes here; give --sample-trim-cold-context alone)", err, rel)
		}
	}
	switch so.Layout {
	case "flat":
		p.Flatten(rel)
	case "nest":
		p.NestContexts(sampleprof.NestOptions{Release: rel})
	}
	// What the inputs left is garbage now: collect it, for the writer's
	// buffers to reuse its memory rather than add to the peak.
	runtime.GC()
	if format != "extbinary" {
		for _, f := range []struct {
			on   bool
			flag string
		}{{len(p.SymbolList) > 0, ""}, {so.CompressAll, "-compress-all-section"}, {so.UseMD5, "-use-md5"}, {so.Partial, "-gen-partial-profile"}} {
			switch {
			case !f.on:
			case f.flag == "":
				opts.Warnf("Profile Symbol list is not empty but the output format is not ExtBinary format. The list will be lost in the output.")
			default:
				opts.Warnf("%s is ignored. Specify -extbinary to enable it", f.flag)
			}
		}
	}
	var out []byte
	switch format {
	case "text":
		out = p.AppendText(nil, sampleprof.TextWriteOptions{Release: rel})
	case "binary":
		out, err = p.AppendBinary(nil)
		if err != nil {
			err = fmt.Errorf("%s: the raw binary format cannot hold CS or probe-based profiles: write --extbinary", opts.Output)
		}
	default:
		out, err = p.AppendExtBinary(nil, sampleprof.BinaryOptions{Release: rel, UseMD5: so.UseMD5,
			CompressAll: so.CompressAll, Partial: so.Partial, SplitLayout: so.SplitLayout, VTables: so.VTables})
	}
	if err != nil {
		return err
	}
	if opts.Fatal != nil {
		// Before the output is touched: a failed merge leaves it as it was.
		if err := opts.Fatal(); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(opts.Output, out, 0o644)
}

// sampleLoad is one input read and decoded: its profile, or the error that
// fails the merge (err) or the one that makes it a bad input (bad), and
// the warnings reading it gave, to be reported when it is folded.
type sampleLoad struct {
	p     *sampleprof.Profile
	t     *sampleprof.TextLines // a plain text profile, for Merger.AddText
	err   error
	bad   error
	warns []string
}

// readBufs are the read buffers of text inputs parsed (into TextLines
// or a profile, which keep nothing of them), for the next inputs to be
// read into: reading each into a new one made a sixth of the merge's
// allocations.
type readBufs = freelist.List[[]byte]

// loadSample reads and decodes one input as runSample folds it.
func loadSample(opts Options, format string, names *sampleprof.Names, bufs *readBufs, s *source) sampleLoad {
	rel, so := opts.Write.Release, opts.Sample
	in := s.Input
	data, err := s.read(bufs.Get())
	if err != nil {
		return sampleLoad{err: &InputError{Path: in.Path, Err: err}}
	}
	enc := sampleprof.Detect(data)
	if enc == sampleprof.FormatUnknown {
		return sampleLoad{bad: &InputError{Path: in.Path, Err: errors.New("unrecognized sample profile encoding format")}}
	}
	var l sampleLoad
	dropped := func(format string, args ...any) { l.warns = append(l.warns, fmt.Sprintf(format, args...)) }
	var p *sampleprof.Profile
	vtables := !rel.HasVTableTypeProfiles() && enc == sampleprof.FormatText && bytes.Contains(data, []byte(": vtables "))
	if enc == sampleprof.FormatText && !vtables {
		// Most text inputs are merged line by line, without a profile of
		// their own; ParseTextMerge leaves the others to Read.
		if l.t = sampleprof.ParseTextMerge(data, sampleprof.ReadOptions{Release: rel, Names: names}); l.t != nil {
			bufs.Put(data[:0])
			return l
		}
	}
	if vtables {
		// Read as LLVM 22 reads it, for its vtable lines to be
		// dropped rather than read as inlinees named "vtables" (or
		// rejected) by the older release's reader.
		if p22, err := sampleprof.Read(in.Path, data, sampleprof.ReadOptions{Release: 22, Names: names}); err == nil && p22.DropVTables() {
			dropped("%s: vtable type profiles dropped: LLVM %d does not read them (use --llvm-version 22)", in.Path, rel)
			p = p22
		}
	}
	if p == nil {
		if p, err = sampleprof.Read(in.Path, data, sampleprof.ReadOptions{Release: rel, Names: names}); err != nil {
			l.err = err
			return l
		}
	}
	if !rel.HasVTableTypeProfiles() && p.DropVTables() {
		dropped("%s: vtable type profiles dropped: LLVM %d does not read them (use --llvm-version 22)", in.Path, rel)
	} else if rel.HasVTableTypeProfiles() && format == "extbinary" && !so.VTables && p.DropVTables() {
		dropped("%s: vtable type profiles dropped: give --extbinary-write-vtable-type-prof to keep them", in.Path)
	}
	if so.DropSymbolList {
		p.SymbolList = nil
	}
	if enc == sampleprof.FormatText {
		bufs.Put(data[:0]) // the text reader copies what it keeps (names interned)
	}
	l.p = p
	return l
}

// inOrder loads items 0..n-1 on their own goroutines, with at most jobs+1
// loads in flight or waiting, and calls fold with each in index order. It
// stops at fold's first error.
func inOrder[T any](n, jobs int, load func(k int) T, fold func(k int, l T) error) error {
	// One load more than jobs is in flight, so that the workers stay busy
	// while the caller folds the item at the head of the queue. Item k
	// travels in slot k mod jobs+1: item k+jobs+1 starts only once item k
	// is folded, so a slot holds one item at a time, and memory does not
	// grow with n.
	results := make([]chan T, jobs+1)
	for k := range results {
		results[k] = make(chan T, 1)
	}
	sem := make(chan struct{}, jobs+1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for k := range n {
			select {
			case sem <- struct{}{}:
			case <-stop:
				return
			}
			go func() { results[k%len(results)] <- load(k) }()
		}
	}()
	for k := range n {
		err := fold(k, <-results[k%len(results)])
		<-sem // the item is folded and unreferenced: let the next load start
		if err != nil {
			return err
		}
	}
	return nil
}
