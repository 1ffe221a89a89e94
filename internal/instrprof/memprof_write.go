package instrprof

import (
	"encoding/binary"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
)

var le = binary.LittleEndian

// fileOffsets are the offsets an indexed profile's header records, found
// by the sizing pass (container.Output.At).
type fileOffsets struct {
	hash, memprof, binaryIDs, vtableNames uint64
	traces                                uint64
}

// plan is an indexed profile planned: its MemProf section
// (memprofidx.Section, laid out there; nil without MemProf data) and its
// function records. emit then writes the file from it, once to size it and
// once for real.
type plan struct {
	mem        *memprofidx.Section
	opts       WriteOptions
	off        fileOffsets
	emptyTable *container.Table
	// funcs, if set, are the function records (funcwrite.go).
	funcs *funcTable
}

func newPlan(ix *memprofidx.Indexed, opts WriteOptions) *plan {
	ix.Workers = container.NumWorkers()
	return &plan{mem: memprofidx.NewSection(ix, opts.MemProfVersion, opts.schema()), opts: opts,
		emptyTable: container.NewTable(nil, nil)}
}

// emit writes the whole file.
func (p *plan) emit(o *container.Output) {
	opts := p.opts
	off := &p.off
	ft := p.funcs
	if ft == nil {
		if p.emptyTable == nil {
			p.emptyTable = container.NewTable(nil, nil)
		}
		ft = &funcTable{table: p.emptyTable}
		ft.summary, ft.entries = (&summaryBuilder{}).result()
	}
	version := ft.variant | uint64(opts.IndexVersion)
	memOff := uint64(0)
	if p.mem != nil {
		version |= VariantMemProf
		memOff = off.memprof
	}
	temporal := ft.variant&VariantTemporalProf != 0
	tracesOff := uint64(0)
	if temporal {
		tracesOff = off.traces
	}
	hdr := [...]uint64{Magic, version, 0, 0,
		off.hash, memOff, off.binaryIDs, tracesOff, off.vtableNames}
	o.U64s(hdr[:headerSize(opts.IndexVersion)/8])

	// Profile summary, then the function table.
	ft.emitSummary(o)
	o.Table(ft.table, ft.putEntry, &off.hash)

	if p.mem != nil {
		o.At(&off.memprof)
		p.mem.Emit(o)
	}

	o.At(&off.binaryIDs)
	ft.emitBinaryIDs(o)
	if opts.IndexVersion >= 12 {
		o.At(&off.vtableNames)
		o.U64(0)
	}
	if temporal {
		o.At(&off.traces)
		ft.emitTraces(o)
	}
}
