package instrprof

import (
	"fmt"
	"io"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// Magic is IndexedInstrProf::Magic.
const Magic = 0x8169666f72706cff

// VariantMemProf is the header Version bit that announces a MemProf section.
const VariantMemProf = 1 << 62

// WriteOptions selects the LLVM release whose llvm-profdata output Write
// reproduces, and the on-disk versions.
//
// Field 27 of the MemInfoBlock (AccessHistogram) is always written as 0.
// LLVM 19 writes the address of its in-memory histogram buffer there (V0/V1
// always, V2/V3 with --memprof-full-schema) whenever a context has a
// histogram, so its own output differs from run to run; the value means
// nothing to any reader. Writing 0, which is also what LLVM writes for
// contexts without a histogram, keeps our output deterministic. Tests
// therefore compare that field semantically (the reader keeps the stored
// value in MemInfoBlock.AccessHistogram).
type WriteOptions struct {
	Release        llvmrelease.Release // 16, 19 or 22
	IndexVersion   int                 // IndexedInstrProf version, 9..13
	MemProfVersion int                 // 0..4
	FullSchema     bool                // V2+: all MemInfoBlock fields instead of the hot/cold four
}

// Defaults returns what llvm-profdata of the release writes without
// --memprof-version or --memprof-full-schema (the llvmrelease table).
func Defaults(release llvmrelease.Release) (WriteOptions, error) {
	r, ok := llvmrelease.Lookup(release)
	if !ok {
		return WriteOptions{}, llvmrelease.ErrUnsupported("instrprof", release)
	}
	return WriteOptions{Release: release, IndexVersion: r.IndexVersion, MemProfVersion: r.MemProfVersion}, nil
}

// Validate reports whether the release's tools can read (and its
// llvm-profdata could have written) a file with these versions.
func (o WriteOptions) Validate() error {
	r, ok := llvmrelease.Lookup(o.Release)
	if !ok {
		return llvmrelease.ErrUnsupported("instrprof", o.Release)
	}
	if o.IndexVersion < r.MinIndexVersion || o.IndexVersion > r.MaxIndexVersion {
		return fmt.Errorf("instrprof: LLVM %d cannot use index version %d (supported: %d..%d)", o.Release, o.IndexVersion, r.MinIndexVersion, r.MaxIndexVersion)
	}
	if o.MemProfVersion < r.MinMemProfVersion || o.MemProfVersion > r.MaxMemProfVersion {
		return fmt.Errorf("instrprof: LLVM %d cannot read MemProf version %d (supported: V%d..V%d)", o.Release, o.MemProfVersion, r.MinMemProfVersion, r.MaxMemProfVersion)
	}
	if o.FullSchema && !r.FullSchemaFlag {
		return fmt.Errorf("instrprof: LLVM %d has no --memprof-full-schema (V0 always uses the full schema)", o.Release)
	}
	return nil
}

func (o WriteOptions) schema() []memprof.Meta {
	if o.MemProfVersion <= 1 || o.FullSchema {
		return memprof.KnownFields(o.Release)
	}
	return memprofidx.HotColdSchema
}

func headerSize(indexVersion int) int {
	switch {
	case indexVersion >= 12:
		return 72
	case indexVersion >= 10:
		return 64
	case indexVersion == 9:
		return 56
	case indexVersion == 8:
		return 48
	}
	return 40
}

// summaryCutoffs are ProfileSummaryBuilder::DefaultCutoffs.
var summaryCutoffs = [...]uint64{
	10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000,
	900000, 950000, 990000, 999000, 999900, 999990, 999999,
}

// Write writes p as a memprof-only indexed profile.
func Write(w io.Writer, p *memprof.Profile, opts WriteOptions) error {
	pl, err := planFor(p, opts)
	if err != nil {
		return err
	}
	return container.StreamWith(w, pl.emit)
}

// WriteFile writes p to name atomically: a temporary file in the same
// directory is written, synced and renamed over name. The file is streamed
// (its layout is computed first), never held in memory whole.
func WriteFile(name string, p *memprof.Profile, opts WriteOptions) error {
	pl, err := planFor(p, opts)
	if err != nil {
		return err
	}
	return container.WriteFileAtomic(name, 0o644, func(w io.Writer) error { return container.StreamWith(w, pl.emit) })
}

// marshal returns the bytes Write would write.
func marshal(p *memprof.Profile, opts WriteOptions) ([]byte, error) {
	pl, err := planFor(p, opts)
	if err != nil {
		return nil, err
	}
	return container.MarshalWith(pl.emit), nil
}

func planFor(p *memprof.Profile, opts WriteOptions) (*plan, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ix, err := memprofidx.Index(p, opts.Release)
	if err != nil {
		return nil, err
	}
	return newPlan(ix, opts), nil
}

// EmptyFile is a new, empty file (what atomicfile hands its fill
// functions): given one, the writers write it by position, batches
// straight from the workers that filled them (container.EmptyFile).
type EmptyFile = container.EmptyFile
