package instrprof

import (
	"os"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/container"
)

// Reading the function records of an indexed profile
// (InstrProfLookupTrait::ReadData, InstrProfReader.cpp): the function table
// is an OnDiskChainedHashTable whose items lie between the end of the
// summaries and its bucket array (see funcwrite.go for an entry's layout).
// Index version 1 has no counter count (the data is the hash and the
// counters), versions before 3 no value data, before 11 no bitmap.

// OpenFuncs is ReadFuncs of the named file.
func OpenFuncs(name string) (*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ReadFuncs(name, data)
}

// ReadFuncs is Read, and also decodes the function records (File.Funcs,
// in on-disk order: the order llvm-profdata reads them in) and the
// temporal profiling traces. Errors are *decode.Error values as Read's.
func ReadFuncs(name string, data []byte) (*File, error) {
	f, err := Read(name, data)
	if err != nil {
		return nil, err
	}
	v := f.Header.IndexVersion()
	entries, err := container.ReadTable(name, data, "function table", f.funcPayload, f.Header.HashOffset, true)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		start := e.Off + 24 + len(e.Key)
		c := decode.NewCursor("instrprof", name, "function record", data[:start+len(e.Data)], start)
		if err := readFuncEntry(&c, string(e.Key), v, &f.Funcs); err != nil {
			return nil, err
		}
	}
	if v >= 10 && f.Header.Version&VariantTemporalProf != 0 {
		if err := f.readTraces(name, data); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// readFuncEntry decodes the records of one name (all the hashes it has)
// from c, which holds exactly the entry's data.
func readFuncEntry(c *decode.Cursor, name string, version int, out *[]FuncRecord) error {
	for c.Remaining() > 0 {
		r := FuncRecord{Name: name}
		r.Hash = c.U64()
		n := uint64(c.Remaining() / 8)
		if version > 1 {
			n = c.U64()
		}
		if c.Err() != nil {
			return c.Err()
		}
		if n > uint64(c.Remaining()/8) {
			c.Fail(decode.ErrMalformed, "%s: %d counters, room for %d", name, n, c.Remaining()/8)
			return c.Err()
		}
		r.Counts = make([]uint64, n)
		for i := range r.Counts {
			r.Counts[i] = c.U64()
		}
		if version > 10 {
			nb := c.U64()
			if c.Err() == nil && nb > uint64(c.Remaining()/8) {
				c.Fail(decode.ErrMalformed, "%s: %d bitmap bytes, room for %d", name, nb, c.Remaining()/8)
			}
			if c.Err() != nil {
				return c.Err()
			}
			if nb > 0 {
				r.Bitmap = make([]byte, nb)
				for i := range r.Bitmap {
					r.Bitmap[i] = byte(c.U64())
				}
			}
		}
		if version > 2 {
			// Values are stored mapped (name hashes, vtable hashes).
			id := func(x uint64) uint64 { return x }
			if err := readValueData(c, &r, NumValueKinds, id, id); err != nil {
				return err
			}
		}
		if c.Err() != nil {
			return c.Err()
		}
		*out = append(*out, r)
	}
	return nil
}

// maxTraceStream bounds the stream size (traces seen) of an indexed
// input: merging a sampled input costs a random draw per trace seen
// (traces.go), so a corrupt size would make the merge run for hours, as
// it makes llvm-profdata's.
const maxTraceStream = 1 << 32

// readTraces decodes the temporal profiling traces: u64 #traces, u64
// stream size, then per trace u64 weight, u64 #functions, the NameRefs.
func (f *File) readTraces(name string, data []byte) error {
	c := decode.NewCursor("instrprof", name, "temporal profile traces", data, 0)
	c.Seek(f.Header.TemporalProfTracesOffset)
	n := c.Count(16, "trace count")
	at := c.Off()
	f.TraceStreamSize = c.U64()
	if c.Err() == nil && f.TraceStreamSize > maxTraceStream {
		c.FailAt(int64(at), decode.ErrMalformed, "temporal trace stream size %d: more than 2^32 profiled runs is taken for a corrupt file (merging it would draw one random number per run)", f.TraceStreamSize)
	}
	for range n {
		if c.Err() != nil {
			break
		}
		t := TemporalTrace{Weight: c.U64()}
		k := c.Count(8, "trace length")
		if c.Err() != nil {
			break
		}
		t.NameRefs = make([]uint64, k)
		for i := range t.NameRefs {
			t.NameRefs[i] = c.U64()
		}
		f.Traces = append(f.Traces, t)
	}
	return c.Err()
}

// AddIndexed merges the function records, variant flags, binary ids and
// temporal traces of an indexed profile (read by ReadFuncs) at weight w,
// as llvm-profdata merge loads an indexed input: records in on-disk
// order, the traces with the weights stored (the input's weight applies
// to a raw profile's trace only: IndexedInstrProfReader's
// getTemporalProfTraces ignores it).
func (p *FuncProfile) AddIndexed(f *File, w uint64) {
	if w == 0 {
		w = 1
	}
	p.Variant |= f.Header.Version & variantKindMask
	p.BinaryIDs = append(p.BinaryIDs, f.BinaryIDs...)
	var traces []TemporalTrace
	for _, t := range f.Traces {
		if len(t.NameRefs) > 0 {
			traces = append(traces, TemporalTrace{Weight: t.Weight, NameRefs: t.NameRefs[:min(uint64(len(t.NameRefs)), p.maxTraceLength())]})
		}
	}
	p.addTraces(traces, f.TraceStreamSize)
	p.setLayout(nil) // the next raw takes the record path first
	for i := range f.Funcs {
		p.Add(&f.Funcs[i], w)
	}
}

// CheckRawBinaryID checks that the raw profile data (file name, for
// errors) was written by the binary whose GNU build id is want: a raw
// that carries binary ids must carry want among its first profile's. A
// raw without binary ids passes (nothing tells). The error is a
// *decode.Error at the first id.
func CheckRawBinaryID(name string, data []byte, want []byte) error {
	c := decode.NewCursor("instrprof", name, "raw header", data, 0)
	h, err := readRawHeader(&c)
	if err != nil || h.binaryIdsSize == 0 {
		return err
	}
	end := min(uint64(len(data)), uint64(h.size)+h.binaryIdsSize)
	bc := decode.NewCursor("instrprof", name, "binary ids", data[:end], h.size)
	bc.SetBigEndian(c.BigEndian())
	var first []byte
	for bc.Remaining() > 0 {
		n := bc.U64()
		id := bc.Bytes(n)
		bc.Skip(min(pad8(n), uint64(bc.Remaining())))
		if bc.Err() != nil {
			return bc.Err()
		}
		if string(id) == string(want) {
			return nil
		}
		if first == nil {
			first = id
		}
	}
	return bc.Errorf(int64(h.size), decode.ErrMalformed, "binary id %x is not the profiled binary's (%x): a profile of another binary", first, want)
}
