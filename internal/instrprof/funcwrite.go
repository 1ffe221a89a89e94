package instrprof

import (
	"bytes"
	"io"
	"math/bits"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

// The function table (InstrProfRecordWriterTrait, InstrProfWriter.cpp): an
// OnDiskChainedHashTable keyed by PGO function name, hashed by NameRef
// (MD5), the names inserted in sorted order. Each entry:
//
//	u64 key length, u64 data length, the name, then per hash of the name:
//	u64 hash, u64 #counters, counters (u64 each),
//	[index v11+: u64 #bitmap bytes, each bitmap byte as a u64],
//	ValueProfData (u32 TotalSize, u32 NumValueKinds, ValueProfRecords;
//	8 bytes when there are no value sites).

// funcTable is a FuncProfile laid out for writing.
type funcTable struct {
	version    int // index version
	numKinds   int // value kinds the release knows
	variant    uint64
	names      []string
	recs       [][]*FuncRecord // per name, in writing order
	table      *container.Table
	summary    [6]uint64 // IndexedInstrProf::Summary fields
	entries    []SummaryEntry
	csSummary  *[6]uint64 // with the CS variant only
	csEntries  []SummaryEntry
	binaryIDs  [][]byte // sorted, unique
	traces     []TemporalTrace
	streamSize uint64
}

func newFuncTable(f *FuncProfile, opts WriteOptions) (*funcTable, error) {
	ft := &funcTable{version: opts.IndexVersion, numKinds: NumValueKinds}
	if n := opts.Release.InstrProfValueKinds(); n < NumValueKinds {
		ft.numKinds = n
	}
	var sb, cs summaryBuilder
	if f != nil {
		ft.variant = f.Variant
		recs := f.writeOrder(opts.Release)
		if f.Sparse {
			recs = sparse(recs)
		}
		for _, r := range recs {
			if n := len(ft.names); n > 0 && ft.names[n-1] == r.Name {
				ft.recs[n-1] = append(ft.recs[n-1], r)
			} else {
				ft.names = append(ft.names, r.Name)
				ft.recs = append(ft.recs, []*FuncRecord{r})
			}
			// Records whose hash has bit 60 (CS_FLAG_IN_FUNC_HASH) set go to
			// the context-sensitive summary, whatever the profile kind:
			// front-end hashes have it about half the time, and their
			// records are then left out of the (only) summary written.
			if r.Hash>>60&1 != 0 {
				cs.addRecord(r.Counts)
			} else {
				sb.addRecord(r.Counts)
			}
		}
		ft.traces, ft.streamSize = f.Traces, f.TraceStreamSize
		ft.binaryIDs = slices.Clone(f.BinaryIDs)
		slices.SortFunc(ft.binaryIDs, bytes.Compare)
		ft.binaryIDs = slices.CompactFunc(ft.binaryIDs, bytes.Equal)
	}
	ft.summary, ft.entries = sb.result()
	if ft.variant&VariantCSIRProf != 0 {
		s, e := cs.result()
		ft.csSummary, ft.csEntries = &s, e
	}
	hashes := make([]uint64, len(ft.names))
	for i, n := range ft.names {
		hashes[i] = llvmname.GUID(n)
	}
	ft.table = container.NewTable(hashes, func(i int) int { return 16 + len(ft.names[i]) + ft.dataSize(i) })
	return ft, nil
}

// sparse keeps the names of recs (grouped by name) of which some record
// has a nonzero counter or bitmap byte (shouldEncodeData).
func sparse(recs []*FuncRecord) []*FuncRecord {
	var out []*FuncRecord
	for i := 0; i < len(recs); {
		j := i
		keep := false
		for ; j < len(recs) && recs[j].Name == recs[i].Name; j++ {
			r := recs[j]
			keep = keep || slices.ContainsFunc(r.Counts, func(c uint64) bool { return c > 0 }) ||
				slices.ContainsFunc(r.Bitmap, func(b byte) bool { return b > 0 })
		}
		if keep {
			out = append(out, recs[i:j]...)
		}
		i = j
	}
	return out
}

func (ft *funcTable) recordSize(r *FuncRecord) int {
	n := 16 + 8*len(r.Counts)
	if ft.version >= 11 {
		n += 8 + 8*len(r.Bitmap)
	}
	return n + ft.valueDataSize(r)
}

func (ft *funcTable) dataSize(i int) int {
	n := 0
	for _, r := range ft.recs[i] {
		n += ft.recordSize(r)
	}
	return n
}

func (ft *funcTable) valueDataSize(r *FuncRecord) int {
	n := 8
	for k := range ft.numKinds {
		sites := r.Values[k]
		if len(sites) == 0 {
			continue
		}
		n += 8 + int(alignTo8(uint64(len(sites))))
		for _, s := range sites {
			n += 16 * len(s)
		}
	}
	return n
}

func alignTo8(n uint64) uint64 { return n + pad8(n) }

// putEntry fills name i's entry body (after its hash).
func (ft *funcTable) putEntry(b []byte, i int) {
	name := ft.names[i]
	le.PutUint64(b, uint64(len(name)))
	le.PutUint64(b[8:], uint64(ft.dataSize(i)))
	b = b[16+copy(b[16:], name):]
	for _, r := range ft.recs[i] {
		le.PutUint64(b, r.Hash)
		le.PutUint64(b[8:], uint64(len(r.Counts)))
		b = b[16:]
		for _, c := range r.Counts {
			le.PutUint64(b, c)
			b = b[8:]
		}
		if ft.version >= 11 {
			le.PutUint64(b, uint64(len(r.Bitmap)))
			b = b[8:]
			for _, x := range r.Bitmap {
				le.PutUint64(b, uint64(x))
				b = b[8:]
			}
		}
		b = b[ft.putValueData(b, r):]
	}
}

// putValueData writes r's ValueProfData (serializeValueProfDataFrom):
// every kind with sites, each as u32 Kind, u32 NumValueSites, one count
// byte per site, zero padding to 8, then the values.
func (ft *funcTable) putValueData(b []byte, r *FuncRecord) int {
	size := ft.valueDataSize(r)
	clear(b[:size])
	kinds := 0
	p := 8
	for k := range ft.numKinds {
		sites := r.Values[k]
		if len(sites) == 0 {
			continue
		}
		kinds++
		le.PutUint32(b[p:], uint32(k))
		le.PutUint32(b[p+4:], uint32(len(sites)))
		for s, vs := range sites {
			b[p+8+s] = uint8(len(vs))
		}
		p += 8 + int(alignTo8(uint64(len(sites))))
		for _, vs := range sites {
			for _, v := range vs {
				le.PutUint64(b[p:], v.Value)
				le.PutUint64(b[p+8:], v.Count)
				p += 16
			}
		}
	}
	le.PutUint32(b, uint32(size))
	le.PutUint32(b[4:], uint32(kinds))
	return size
}

// emitSummary writes the summary and, for a CS profile, the CS summary.
func (ft *funcTable) emitSummary(o *container.Output) {
	put := func(fields []uint64, entries []SummaryEntry) {
		o.U64(uint64(len(fields)))
		o.U64(uint64(len(entries)))
		o.U64s(fields)
		for _, e := range entries {
			o.U64s([]uint64{e.Cutoff, e.MinCount, e.NumCounts})
		}
	}
	put(ft.summary[:], ft.entries)
	if ft.csSummary != nil {
		put(ft.csSummary[:], ft.csEntries)
	}
}

func (ft *funcTable) emitBinaryIDs(o *container.Output) {
	total := 0
	for _, id := range ft.binaryIDs {
		total += 8 + int(alignTo8(uint64(len(id))))
	}
	o.U64(uint64(total))
	for _, id := range ft.binaryIDs {
		o.U64(uint64(len(id)))
		o.Write(id)
		o.Pad8()
	}
}

// emitTraces writes the temporal profile traces: u64 #traces, u64 stream
// size, then per trace u64 weight, u64 #functions, the NameRefs.
func (ft *funcTable) emitTraces(o *container.Output) {
	o.U64(uint64(len(ft.traces)))
	o.U64(ft.streamSize)
	for _, t := range ft.traces {
		o.U64(t.Weight)
		o.U64(uint64(len(t.NameRefs)))
		o.U64s(t.NameRefs)
	}
}

// summaryBuilder is InstrProfSummaryBuilder: every record's first counter
// counts as a function entry, the others as internal blocks.
type summaryBuilder struct {
	total, maxCount, numCounts     uint64
	numFuncs, maxFunc, maxInternal uint64
	freq                           map[uint64]uint64
}

func (s *summaryBuilder) add(c uint64) {
	if s.freq == nil {
		s.freq = map[uint64]uint64{}
	}
	s.total += c
	s.maxCount = max(s.maxCount, c)
	s.numCounts++
	s.freq[c]++
}

func (s *summaryBuilder) addRecord(counts []uint64) {
	if len(counts) == 0 || pseudoKind(counts) != 0 {
		return // records with pseudo counts are left out
	}
	s.add(counts[0])
	s.numFuncs++
	s.maxFunc = max(s.maxFunc, counts[0])
	for _, c := range counts[1:] {
		s.add(c)
		s.maxInternal = max(s.maxInternal, c)
	}
}

// result returns the summary fields (TotalNumFunctions, TotalNumBlocks,
// MaxFunctionCount, MaxBlockCount, MaxInternalBlockCount,
// TotalBlockCount) and the detailed summary at the default cutoffs
// (ProfileSummaryBuilder::computeDetailedSummary).
func (s *summaryBuilder) result() ([6]uint64, []SummaryEntry) {
	return s.resultAt(summaryCutoffs[:])
}

// resultAt is result at the given cutoffs, sorted (parts per million).
func (s *summaryBuilder) resultAt(cutoffs []uint64) ([6]uint64, []SummaryEntry) {
	counts := make([]uint64, 0, len(s.freq))
	for c := range s.freq {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	var entries []SummaryEntry
	i := 0
	var sum, seen, count uint64
	for _, cut := range cutoffs {
		// The low 64 bits of the 128-bit quotient, as LLVM's APInt
		// (a --detailed-summary-cutoffs above 10^6 can exceed 64 bits).
		hi, lo := bits.Mul64(s.total, cut)
		desired, _ := bits.Div64(hi%1000000, lo, 1000000)
		for sum < desired && i < len(counts) {
			count = counts[i]
			f := s.freq[count]
			sum += count * f
			seen += f
			i++
		}
		entries = append(entries, SummaryEntry{Cutoff: cut, MinCount: count, NumCounts: seen})
	}
	return [6]uint64{s.numFuncs, s.numCounts, s.maxFunc, s.maxCount, s.maxInternal, s.total}, entries
}

// WriteFuncsFile writes the function records of f, and the MemProf data of
// mem or compact if one is not nil, as llvm-profdata merge of the release
// writes them, atomically to name.
func WriteFuncsFile(name string, f *FuncProfile, mem *memprof.Profile, compact *memprof.Compact, opts WriteOptions) error {
	pl, err := planForFuncs(f, mem, compact, opts)
	if err != nil {
		return err
	}
	return container.WriteFileAtomic(name, 0o644, func(w io.Writer) error { return container.StreamWith(w, pl.emit) })
}

// WriteFuncs is WriteFuncsFile to a writer.
func WriteFuncs(w io.Writer, f *FuncProfile, mem *memprof.Profile, compact *memprof.Compact, opts WriteOptions) error {
	pl, err := planForFuncs(f, mem, compact, opts)
	if err != nil {
		return err
	}
	return container.StreamWith(w, pl.emit)
}

func planForFuncs(f *FuncProfile, mem *memprof.Profile, compact *memprof.Compact, opts WriteOptions) (*plan, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ft, err := newFuncTable(f, opts)
	if err != nil {
		return nil, err
	}
	var pl *plan
	switch {
	case compact != nil:
		pl, err = planForCompact(compact, opts)
	case mem != nil:
		pl, err = planFor(mem, opts)
	default:
		pl = &plan{opts: opts}
	}
	if err != nil {
		return nil, err
	}
	pl.funcs = ft
	return pl, nil
}
