package perfdata

import (
	"container/heap"
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
	r         *Reader
	q         recHeap
	ready     []*Record // delivered next, in order
	seq       uint64
	nextFlush uint64
	maxTime   uint64
	eof       bool
	free      []*Record
}

// NewOrdered reads r's records in perf's order.
func NewOrdered(r *Reader) *Ordered { return &Ordered{r: r} }

type queued struct {
	rec  *Record
	time uint64
	seq  uint64
}

type recHeap []queued

func (h recHeap) Len() int { return len(h) }
func (h recHeap) Less(i, j int) bool {
	if h[i].time != h[j].time {
		return h[i].time < h[j].time
	}
	return h[i].seq < h[j].seq
}
func (h recHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *recHeap) Push(x any)   { *h = append(*h, x.(queued)) }
func (h *recHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
	for len(o.ready) == 0 {
		if o.eof {
			if o.q.Len() == 0 {
				return io.EOF
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
			return err
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
		heap.Push(&o.q, queued{n, t, o.seq})
	}
	n := o.ready[0]
	o.ready = o.ready[1:]
	// Hand the record over, keeping rec's buffers for the queue.
	*rec, *n = *n, *rec
	o.free = append(o.free, n)
	return nil
}

func (o *Ordered) flush(limit uint64) {
	for o.q.Len() > 0 && o.q[0].time <= limit {
		o.ready = append(o.ready, heap.Pop(&o.q).(queued).rec)
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
