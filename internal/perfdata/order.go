package perfdata

import (
	"cmp"
	"io"
	"slices"
)

// Ordered returns the records of r in the order perf's tools deliver them
// (perf script, perf report: util/ordered-events.c): records with a
// timestamp (samples, and the kernel's records when sample_id_all is set)
// are queued, and at each PERF_RECORD_FINISHED_ROUND those no later than
// the latest timestamp of the round before are delivered, oldest first
// (in file order among equal timestamps); the rest at the end. Records
// without a timestamp are delivered when read. The ring buffers of
// different CPUs are written to the file one after the other, so a
// process's PERF_RECORD_MMAP2 can follow its first samples in the file;
// in this order it precedes them, as perf script prints it.
//
// The PERF_RECORD_FINISHED_ROUND records are consumed, not delivered, and
// samples come without Raw.
// Memory is that of two rounds of records (perf record ends a round each
// time it has drained the ring buffers), as in perf.
type Ordered struct {
	r *Reader
	// q holds the queued records from head on; sorted says q[head:] is
	// in delivery order (time, then seq). Records come mostly in time
	// order, so q is sorted only when one came out of it, at a flush.
	q         []queued
	head      int
	sorted    bool
	ready     []*Record // delivered next, in order
	seq       uint64
	nextFlush uint64
	maxTime   uint64
	eof       bool
	free      []*Record
	last      *Record // returned by NextRecord, free at the next call
}

// NewOrdered reads r's records in perf's order.
func NewOrdered(r *Reader) *Ordered { return &Ordered{r: r} }

type queued struct {
	rec  *Record
	time uint64
	seq  uint64
}

func (a queued) compare(b queued) int {
	if c := cmp.Compare(a.time, b.time); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// timeOf returns a record's timestamp, if it has one.
func (r *Reader) timeOf(rec *Record) (uint64, bool) {
	if len(r.Attrs) == 0 {
		return 0, false
	}
	if rec.Type == RecordSample {
		return rec.Sample.Time, rec.Sample.Attr != nil && rec.Sample.Attr.SampleType&SampleTime != 0
	}
	if rec.Type >= RecordHeaderAttr || !rec.HasSampleID || r.Attrs[0].SampleType&SampleTime == 0 {
		return 0, false
	}
	return rec.SampleID.Time, true
}

// Next reads the next record in perf's order into rec (a copy that rec
// owns until the next call); io.EOF at the end.
func (o *Ordered) Next(rec *Record) error {
	n, err := o.NextRecord()
	if err != nil {
		return err
	}
	// Hand the record over, keeping rec's buffers for the queue.
	*rec, *n = *n, *rec
	return nil
}

// NextRecord returns the next record in perf's order, valid until the
// next call (no copy of it is made); io.EOF at the end.
func (o *Ordered) NextRecord() (*Record, error) {
	if o.last != nil {
		o.free = append(o.free, o.last)
		o.last = nil
	}
	for len(o.ready) == 0 {
		if o.eof {
			if o.head == len(o.q) {
				return nil, io.EOF
			}
			o.flush(^uint64(0))
			continue
		}
		n := o.alloc()
		err := o.r.Next(n)
		if err == io.EOF {
			o.eof = true
			o.free = append(o.free, n)
			continue
		}
		if err != nil {
			return nil, err
		}
		if n.Type == RecordFinishedRound {
			o.flush(o.nextFlush)
			o.nextFlush = o.maxTime
			o.free = append(o.free, n)
			continue
		}
		t, ok := o.r.timeOf(n)
		if !ok {
			o.ready = append(o.ready, n)
			continue
		}
		o.maxTime = max(o.maxTime, t)
		o.seq++
		if k := len(o.q); k == o.head {
			o.sorted = true
		} else if t < o.q[k-1].time {
			o.sorted = false
		}
		o.q = append(o.q, queued{n, t, o.seq})
	}
	n := o.ready[0]
	o.ready = o.ready[1:]
	o.last = n
	return n, nil
}

func (o *Ordered) flush(limit uint64) {
	if !o.sorted {
		slices.SortFunc(o.q[o.head:], queued.compare)
		o.sorted = true
	}
	for o.head < len(o.q) && o.q[o.head].time <= limit {
		o.ready = append(o.ready, o.q[o.head].rec)
		o.q[o.head] = queued{}
		o.head++
	}
	if o.head == len(o.q) || o.head > len(o.q)/2 {
		o.q = o.q[:copy(o.q, o.q[o.head:])]
		o.head = 0
	}
}

// alloc returns a record to read into; records read into are detached
// from the reader's buffers by own.
func (o *Ordered) alloc() *Record {
	var n *Record
	if k := len(o.free); k > 0 {
		n, o.free = o.free[k-1], o.free[:k-1]
	} else {
		n = &Record{}
	}
	o.r.ownBuffers = true
	return n
}

// own makes rec's Raw a copy rec keeps (Ordered holds records across
// calls of Next); a sample's Raw is dropped (its fields are decoded).
func (rec *Record) own() {
	if rec.Type == RecordSample {
		rec.Raw = nil
		return
	}
	rec.rawBuf = append(rec.rawBuf[:0], rec.Raw...)
	rec.Raw = rec.rawBuf
	if rec.Type == RecordMmap || rec.Type == RecordMmap2 {
		rec.Mmap.BuildID = slices.Clone(rec.Mmap.BuildID)
	}
}
