package instrprof

import (
	"bytes"
	"math/bits"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// The same-layout fast path. The raws of one binary share everything but
// their counters, bitmaps, value data and the absolute addresses the
// runtime writes (NamesDelta, function pointers). Once a raw has been
// folded record by record, FuncProfile remembers its layout and, for the
// records of the merged profile its records went to, where their counters
// lie; a later raw with the same layout is then folded by adding its
// counter section in place, without decoding a record. Raws with value
// data, temporal timestamps, several profiles or pseudo counts take the
// record-by-record path.

// rawLayout is a raw profile's layout, as the fast path compares it.
type rawLayout struct {
	size   int    // file size
	header []byte // header with the words at masked zeroed
	// masked are the header words that hold addresses of this run:
	// NamesDelta, and BitmapDelta when there are no bitmaps (with bitmaps
	// it is relative, and compared).
	masked  []int
	hdrSize int
	fixed   []byte // binary ids, data records' fixed words, names
	// ids, recData and names are the first raw's binary ids, data records
	// and names, which sameFixed compares.
	ids, recData, names []byte
	// fps and addrs are the first raw's function addresses, by record and
	// sorted (addrLookup), when records have value data.
	fps      []uint64
	addrs    addrMap
	dataOff  int
	numData  int
	recSize  int
	ptrWords []int // offsets (in a record) of the words not compared
	namesOff int
	namesEnd int
	ctrOff   int
	ctrSize  int
	numKinds int
	bmOff    int
	recs     []fastRec
	// flat, when set, holds the counters of every record in recs (8-byte
	// counters), in the counter section's order: each dst.Counts is a
	// slice of it (homeCounters), so that a raw's counter section is
	// added with one loop. hi bounds its values from above.
	flat    []uint64
	flatLen int // len(flat), for check
	hi      uint64
	// bmRecs are the records with bitmap bytes.
	bmRecs []int
	// valueRecs are the records with value data, read at valueOff.
	valueRecs []int
	valueOff  int
}

type fastRec struct {
	dst     *FuncRecord
	ctr, bm int // offsets of the counters and bitmap bytes in the file
}

// maskedHeader returns data's header with the masked words zeroed.
func (l *rawLayout) maskedHeader(data []byte, buf []byte) []byte {
	buf = append(buf[:0], data[:l.hdrSize]...)
	for _, at := range l.masked {
		clear(buf[at : at+8])
	}
	return buf
}

// fastKey returns the bytes fast layouts compare: binary ids, the data
// records without their function and value pointers, and the names.
func (l *rawLayout) fastKey(data []byte, buf []byte) []byte {
	buf = append(buf[:0], data[l.hdrSize:l.dataOff]...)
	for i := range l.numData {
		rec := data[l.dataOff+i*l.recSize:][:l.recSize]
		prev := 0
		for _, w := range l.ptrWords {
			buf = append(buf, rec[prev:w]...)
			prev = w + 8
		}
		buf = append(buf, rec[prev:]...)
	}
	return append(buf, data[l.namesOff:l.namesEnd]...)
}

// sameFixed reports whether data's fastKey equals l.fixed. Data records
// are compared a word at a time against the first raw's, skipping the
// pointer words (fastKey's copy of every raw, then bytes.Equal per record
// segment, were a fifth of the fold's time).
func (l *rawLayout) sameFixed(data []byte) bool {
	if l.recSize%8 != 0 {
		return bytes.Equal(l.fastKey(data, nil), l.fixed)
	}
	if !bytes.Equal(data[l.hdrSize:l.dataOff], l.ids) || !bytes.Equal(data[l.namesOff:l.namesEnd], l.names) {
		return false
	}
	recs := data[l.dataOff : l.dataOff+l.numData*l.recSize]
	if bytes.Equal(recs, l.recData) {
		return true // the same addresses too (a binary that is not PIE)
	}
	p0, p1 := l.ptrWords[0], l.ptrWords[1]
	if l.recSize == 64 && p0 == 32 && p1 == 40 {
		// Raw v9 and v10 records: the words at 32 and 40 skipped,
		// unrolled (the loop below checks each offset).
		var diff uint64
		for off := 0; off+64 <= len(recs) && off+64 <= len(l.recData); off += 64 {
			a, b := recs[off:off+64], l.recData[off:off+64]
			diff |= le.Uint64(a) ^ le.Uint64(b) | le.Uint64(a[8:]) ^ le.Uint64(b[8:]) |
				le.Uint64(a[16:]) ^ le.Uint64(b[16:]) | le.Uint64(a[24:]) ^ le.Uint64(b[24:]) |
				le.Uint64(a[48:]) ^ le.Uint64(b[48:]) | le.Uint64(a[56:]) ^ le.Uint64(b[56:])
		}
		return diff == 0
	}
	for off := 0; off < len(recs); off += l.recSize {
		a, b := recs[off:off+l.recSize], l.recData[off:off+l.recSize]
		for w := 0; w < l.recSize; w += 8 {
			if w != p0 && w != p1 && le.Uint64(a[w:]) != le.Uint64(b[w:]) {
				return false
			}
		}
	}
	return true
}

// newRawLayout returns the layout of data, which decoded as r (one
// profile) and was just added to p, or nil if the fast path cannot take
// raws like it.
func (p *FuncProfile) newRawLayout(data []byte, r *RawProfile) *rawLayout {
	if r.profiles != 1 || r.Variant&VariantTemporalProf != 0 || len(data) < 8 || le.Uint64(data) != RawMagic {
		return nil
	}
	c := decode.NewCursor("instrprof", "", "raw header", data, 0)
	h, err := readRawHeader(&c)
	if err != nil || c.BigEndian() {
		return nil
	}
	o, ok := h.offsets(uint64(len(data)))
	if !ok || (!r.hasValues && o.valueOff != uint64(len(data))) || h.numVTables != 0 {
		return nil
	}
	l := &rawLayout{
		size: len(data), masked: []int{h.namesDeltaAt}, hdrSize: int(o.binIDs),
		dataOff: int(o.dataOff), numData: int(h.numData), recSize: int(o.recSize),
		namesOff: int(o.namesOff), namesEnd: int(o.namesOff + h.namesSize),
		ctrOff: int(o.ctrOff), ctrSize: int(o.ctrSize), numKinds: o.numKinds, bmOff: int(o.bitmapOff),
		valueOff: int(o.valueOff),
	}
	if h.version32() >= 9 && h.numBitmapBytes == 0 {
		l.masked = append(l.masked, h.bitmapDeltaAt)
	}
	l.header = l.maskedHeader(data, nil)
	l.ptrWords = []int{24, 32} // FunctionPointer, Values (v8)
	if h.version32() >= 9 {
		l.ptrWords = []int{32, 40}
	}
	if l.recSize%8 != 0 {
		l.fixed = l.fastKey(data, nil)
	} else {
		l.ids = bytes.Clone(data[l.hdrSize:l.dataOff])
		l.recData = bytes.Clone(data[l.dataOff : l.dataOff+l.numData*l.recSize])
		l.names = bytes.Clone(data[l.namesOff:l.namesEnd])
	}
	if len(r.Records) != l.numData {
		return nil
	}
	ctrDelta, bmDelta := h.countersDelta, h.bitmapDelta
	for i := range r.Records {
		rr := &r.Records[i]
		rec := data[l.dataOff+i*l.recSize:]
		dst := p.find(rr.Name, rr.Hash)
		if dst == nil || len(dst.Counts) != len(rr.Counts) || len(dst.Bitmap) != len(rr.Bitmap) {
			return nil // a mismatch: every fold of this layout warns
		}
		if pseudoKind(dst.Counts) != 0 {
			// Pseudo counts take the record-by-record path. Adding never
			// makes a record pseudo (counters saturate below), and the
			// layout is rebuilt after any other fold.
			return nil
		}
		for k := range dst.Values {
			if len(dst.Values[k]) != len(rr.Values[k]) {
				return nil
			}
		}
		// A record has a ValueProfData when any NumValueSites is set.
		sitesAt := 44
		if h.version32() >= 9 {
			sitesAt = 52
		}
		for k := range o.numKinds {
			if le.Uint16(rec[sitesAt+2*k:]) != 0 {
				l.valueRecs = append(l.valueRecs, i)
				break
			}
		}
		fr := fastRec{dst: dst, ctr: l.ctrOff + int(le.Uint64(rec[16:])-ctrDelta)}
		if len(rr.Bitmap) > 0 {
			fr.bm = l.bmOff + int(le.Uint64(rec[24:])-bmDelta)
		}
		if len(rr.Bitmap) > 0 {
			l.bmRecs = append(l.bmRecs, i)
		}
		l.recs = append(l.recs, fr)
		ctrDelta -= uint64(l.recSize)
		bmDelta -= uint64(l.recSize)
	}
	if len(l.valueRecs) > 0 {
		l.fps = make([]uint64, l.numData)
		for i := range l.fps {
			l.fps[i] = le.Uint64(data[l.dataOff+i*l.recSize+l.ptrWords[0]:])
		}
		l.addrs = l.funcAddrs(data)
	}
	if l.ctrSize == 8 {
		l.homeCounters()
	}
	return l
}

// homeCounters moves the counters of l's records into one array in the
// counter section's order (l.flat), when the records' counter ranges
// follow each other without overlap, each starts a whole number of
// counters into the section (LLVM reads unaligned ones too) and no two
// records fold into the same merged record; otherwise l.flat stays nil.
func (l *rawLayout) homeCounters() {
	end := l.ctrOff
	seen := make(map[*FuncRecord]bool, len(l.recs))
	for _, fr := range l.recs {
		if fr.ctr < end || (fr.ctr-l.ctrOff)%8 != 0 || seen[fr.dst] {
			return
		}
		seen[fr.dst] = true
		end = fr.ctr + 8*len(fr.dst.Counts)
	}
	flat := make([]uint64, (end-l.ctrOff)/8)
	for _, fr := range l.recs {
		at := (fr.ctr - l.ctrOff) / 8
		n := len(fr.dst.Counts)
		copy(flat[at:], fr.dst.Counts)
		fr.dst.Counts = flat[at : at+n : at+n]
	}
	l.flat, l.flatLen = flat, len(flat)
	l.hi = maxCounter(flat)
}

func maxCounter(s []uint64) uint64 {
	m := uint64(0)
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

// maxRawCounter returns the largest of the little-endian counters in b.
func maxRawCounter(b []byte) uint64 {
	var m0, m1, m2, m3 uint64
	for len(b) >= 32 {
		m0 = max(m0, le.Uint64(b))
		m1 = max(m1, le.Uint64(b[8:]))
		m2 = max(m2, le.Uint64(b[16:]))
		m3 = max(m3, le.Uint64(b[24:]))
		b = b[32:]
	}
	for ; len(b) >= 8; b = b[8:] {
		m0 = max(m0, le.Uint64(b))
	}
	return max(m0, m1, m2, m3)
}

// addFlat adds the counter section of data, whose largest counter is m,
// at weight w to l.flat when no
// sum can saturate and no counter is above 2^56 (then no warning or
// report is due, and nothing is a pseudo count), reporting whether it
// did.
func (l *rawLayout) addFlat(data []byte, m, w uint64) bool {
	ctr := data[l.ctrOff : l.ctrOff+8*len(l.flat)]
	if m > 1<<56 {
		return false
	}
	mw, o := mulAdd(m, w, l.hi)
	if o || mw > maxCount {
		return false
	}
	l.hi = mw
	flat := l.flat[:len(ctr)/8]
	if w == 1 {
		for j := range flat {
			flat[j] += le.Uint64(ctr[8*j:])
		}
	} else {
		for j := range flat {
			flat[j] += le.Uint64(ctr[8*j:]) * w
		}
	}
	return true
}

// find returns the record of (name, hash), or nil.
func (p *FuncProfile) find(name string, hash uint64) *FuncRecord {
	for _, d := range p.records[name] {
		if d.Hash == hash {
			return d
		}
	}
	return nil
}

// PreparedRaw is what the fast path checks of a raw before folding it
// (FuncProfile.PrepareRaw), found without changing the profile: so that
// it can be done on another goroutine than the fold.
type PreparedRaw struct {
	l      *rawLayout // checked against; nil: no layout then
	ok     bool       // the raw has layout l
	values []FuncRecord
	max    uint64 // its largest counter, when l.flat is set
}

// check returns what PrepareRaw does for layout l, or nil if data does
// not have it. It reads only what l does not change after newRawLayout.
func (l *rawLayout) check(data []byte, scratch *[]byte) *PreparedRaw {
	if len(data) != l.size && (len(l.valueRecs) == 0 || len(data) < l.valueOff) {
		return nil
	}
	if *scratch = l.maskedHeader(data, *scratch); !bytes.Equal(*scratch, l.header) {
		return nil
	}
	if !l.sameFixed(data) {
		return nil
	}
	values, ok := l.readValues(data)
	if !ok {
		return nil
	}
	pre := &PreparedRaw{l: l, ok: true, values: values}
	if l.flat != nil {
		pre.max = maxRawCounter(data[l.ctrOff : l.ctrOff+8*l.flatLen])
	}
	// Pseudo counts take the record-by-record path.
	if l.ctrSize == 8 && (l.flat == nil || pre.max >= ^uint64(0)-1) {
		for _, fr := range l.recs {
			if le.Uint64(data[fr.ctr:]) >= ^uint64(0)-1 {
				return nil
			}
		}
	}
	return pre
}

// PrepareRaw checks data (a raw profile's bytes) against the layout of
// the raws folded last, for AddPreparedRaw. It may run on another
// goroutine than the one folding: it reads only the layout, which a fold
// replaces rather than changes; scratch is the caller's buffer.
func (p *FuncProfile) PrepareRaw(data []byte, scratch *[]byte) *PreparedRaw {
	l := p.shared.Load()
	if l == nil {
		return &PreparedRaw{}
	}
	if pre := l.check(data, scratch); pre != nil {
		return pre
	}
	return &PreparedRaw{l: l}
}

// applyFast folds data, which check found of layout pre.l, at weight w.
func (p *FuncProfile) applyFast(pre *PreparedRaw, data []byte, w uint64) (large []uint64) {
	l, values := pre.l, pre.values
	if l.flat != nil && l.addFlat(data, pre.max, w) {
		for _, i := range l.bmRecs {
			fr := l.recs[i]
			for j, b := range data[fr.bm : fr.bm+len(fr.dst.Bitmap)] {
				fr.dst.Bitmap[j] |= b
			}
		}
		p.foldValues(l, values, w)
		return nil
	}
	if l.flat != nil {
		// The record-by-record add below may saturate counters.
		defer func() { l.hi = maxCounter(l.flat) }()
	}
	for _, fr := range l.recs {
		d := fr.dst
		over := false
		if l.ctrSize == 1 {
			for j, b := range data[fr.ctr : fr.ctr+len(d.Counts)] {
				if b == 0 {
					v, o := countMulAdd(1, w, d.Counts[j])
					d.Counts[j], over = v, over || o
				}
			}
		} else {
			ctr := data[fr.ctr : fr.ctr+8*len(d.Counts)]
			if w == 1 {
				// Weight 1: a plain saturating add.
				for j := range d.Counts {
					c := le.Uint64(ctr[8*j:])
					if c > 1<<56 {
						large = append(large, c)
					}
					v, carry := bits.Add64(c, d.Counts[j], 0)
					if carry != 0 || v > maxCount {
						v, over = maxCount, true
					}
					d.Counts[j] = v
				}
				if over {
					p.warn(d, "counter overflow")
				}
				for j, b := range data[fr.bm : fr.bm+len(d.Bitmap)] {
					d.Bitmap[j] |= b
				}
				continue
			}
			for j := range d.Counts {
				c := le.Uint64(ctr[8*j:])
				if c > 1<<56 {
					large = append(large, c)
				}
				v, o := countMulAdd(c, w, d.Counts[j])
				d.Counts[j], over = v, over || o
			}
		}
		if over {
			p.warn(d, "counter overflow")
		}
		for j, b := range data[fr.bm : fr.bm+len(d.Bitmap)] {
			d.Bitmap[j] |= b
		}
	}
	p.foldValues(l, values, w)
	return large
}

// foldValues merges the value data readValues decoded.
func (p *FuncProfile) foldValues(l *rawLayout, values []FuncRecord, w uint64) {
	for j, i := range l.valueRecs {
		d := l.recs[i].dst
		p.mergeValues(d, &values[j], w)
		sortValues(d)
	}
}

// funcAddrs returns the function addresses of data (a raw of layout l),
// sorted, for indirect-call targets.
func (l *rawLayout) funcAddrs(data []byte) addrMap {
	addrs := make(addrMap, 0, l.numData)
	for i := range l.numData {
		rec := data[l.dataOff+i*l.recSize:]
		if fp := le.Uint64(rec[l.ptrWords[0]:]); fp != 0 {
			addrs = append(addrs, addrRef{fp, le.Uint64(rec)})
		}
	}
	return addrs.sorted()
}

// addrLookup returns the address → NameRef lookup of data's run. A run of
// the same binary loaded elsewhere (PIE) has every function moved by the
// same amount: then the layout's sorted addresses serve, shifted, instead
// of sorting this run's.
func (l *rawLayout) addrLookup(data []byte) func(uint64) uint64 {
	if l.fps == nil {
		return l.funcAddrs(data).lookup
	}
	var delta uint64
	first := true
	for i, fp0 := range l.fps {
		fp := le.Uint64(data[l.dataOff+i*l.recSize+l.ptrWords[0]:])
		if (fp == 0) != (fp0 == 0) {
			return l.funcAddrs(data).lookup
		}
		if fp == 0 {
			continue
		}
		if first {
			delta, first = fp-fp0, false
		} else if fp-fp0 != delta {
			return l.funcAddrs(data).lookup
		}
	}
	return func(a uint64) uint64 { return l.addrs.lookup(a - delta) }
}

// readValues decodes the value data of data, a raw of layout l, for
// l.valueRecs; ok is false if it does not decode or anything but zero
// padding follows it (then the record-by-record path reports or handles
// it).
func (l *rawLayout) readValues(data []byte) ([]FuncRecord, bool) {
	if len(l.valueRecs) == 0 {
		return nil, true
	}
	lookup := l.addrLookup(data)
	none := func(uint64) uint64 { return 0 } // no vtables in fast layouts
	vc := decode.NewCursor("instrprof", "", "value profile data", data, l.valueOff)
	out := make([]FuncRecord, len(l.valueRecs))
	for j, i := range l.valueRecs {
		d := l.recs[i].dst
		out[j] = FuncRecord{Name: d.Name, Hash: d.Hash}
		if err := readValueData(&vc, &out[j], l.numKinds, lookup, none); err != nil {
			return nil, false
		}
	}
	for _, b := range data[vc.Off():] {
		if b != 0 {
			return nil, false
		}
	}
	return out, true
}

// AddRawData folds the raw profile data (file name, for errors) at weight
// w, as AddRaw(rr.Parse(name, data), w) would, and returns what it decoded
// for the caller's reports: on the same-layout fast path a RawProfile
// without Records (only Version, Variant and LargeCounts set).
func (p *FuncProfile) AddRawData(rr *RawReader, name string, data []byte, w uint64) (*RawProfile, error) {
	return p.AddRawDataDone(rr, name, data, w, nil)
}

// AddRawDataDone is AddRawData that calls done(off), when not nil, as it
// moves past data[:off] (mapfile.File.Done). A file of several
// concatenated profiles is decoded twice: once to check it all, keeping
// no records, then folded a profile at a time, so that it costs the
// memory of one profile and a bad file adds nothing (llvm-profdata keeps
// the records read before the error). The records of the RawProfile
// returned may refer to data (their bitmaps).
func (p *FuncProfile) AddRawDataDone(rr *RawReader, name string, data []byte, w uint64, done func(off int)) (*RawProfile, error) {
	if w == 0 {
		w = 1
	}
	return p.AddPreparedRaw(rr, name, data, w, done, nil)
}

// AddPreparedRaw is AddRawDataDone with what PrepareRaw found of data
// (nil: nothing yet); the result does not depend on it.
func (p *FuncProfile) AddPreparedRaw(rr *RawReader, name string, data []byte, w uint64, done func(off int), pre *PreparedRaw) (*RawProfile, error) {
	if w == 0 {
		w = 1
	}
	if l := p.layout; l != nil {
		if pre == nil || pre.l != l {
			pre = l.check(data, &rr.scratch)
		}
		if pre != nil && pre.ok {
			large := p.applyFast(pre, data, w)
			c := decode.NewCursor("instrprof", name, "raw header", data, 0)
			h, _ := readRawHeader(&c)
			return &RawProfile{Version: h.version32(), Variant: h.version &^ 0xffffffff, LargeCounts: large}, nil
		}
	}
	r, err := rr.parse(name, data, func(*RawProfile) {}, done)
	if err != nil {
		return nil, err
	}
	if r.profiles > 1 {
		r, err = rr.parse(name, data, func(r *RawProfile) {
			for i := range r.Records {
				p.Add(&r.Records[i], w)
			}
		}, done)
		if err != nil {
			return nil, err
		}
	}
	p.AddRaw(r, w)
	p.setLayout(p.newRawLayout(data, r))
	return r, nil
}

// setLayout sets the layout of the raws folded last (and PrepareRaw's).
func (p *FuncProfile) setLayout(l *rawLayout) {
	if p.layout != l || l == nil {
		p.layout = l
		p.shared.Store(l)
	}
}
