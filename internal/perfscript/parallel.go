package perfscript

import "runtime"

// The LBR-only parse runs on every core: this goroutine walks the lines
// (mmap events, repeat counts, line numbers: everything that has state)
// exactly as parseSample does and hands the LBR lines, copied into
// batches, to workers, which parse the well-formed ones (fastLBR) into
// counters of their own. Batches come back in order; the lines a worker
// could not parse are read here, in order, by the general path with its
// warnings, and the missing-mmap warning is placed where the first kept
// sample put it. The counters are sums, so the result does not depend on
// which worker took which batch.

// lbrBatchBytes is the size of a batch's copied lines (a variable for the
// tests, which cut batches after every line).
var lbrBatchBytes = 1 << 20

type lbrBatch struct {
	Records
	counts []uint64
	lines  []int64 // line numbers
	base   uint64
	loaded bool // loadedByMMap when the batch was cut

	// Set by the worker.
	odd       []int // lines fastLBR declined
	firstKept int   // the first line that kept an entry, -1 if none
	done      chan struct{}
}

// Records are byte strings stored back to back (the batches of the
// parallel parse, and internal/profgen's of encoded samples).
type Records struct {
	Buf  []byte
	ends []int
}

// End ends the current record at the end of Buf.
func (r *Records) End() { r.ends = append(r.ends, len(r.Buf)) }

// Len is the number of records.
func (r *Records) Len() int { return len(r.ends) }

// At returns record i.
func (r *Records) At(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.Buf[start:r.ends[i]]
}

// Reset empties r, keeping its memory.
func (r *Records) Reset() { r.Buf, r.ends = r.Buf[:0], r.ends[:0] }

// lbrWorker parses batches into its own counters.
type lbrWorker struct {
	fallThrough, branches BranchCounts
	lbr                   []Branch
}

func (w *lbrWorker) run(bin *Binary, in <-chan *lbrBatch) {
	for b := range in {
		b.odd, b.firstKept = b.odd[:0], -1
		for i := range b.Len() {
			var ok bool
			w.lbr, ok = fastLBR(b.At(i), bin, b.base, w.lbr[:0])
			if !ok {
				b.odd = append(b.odd, i)
				continue
			}
			if len(w.lbr) == 0 {
				continue
			}
			if b.firstKept < 0 {
				b.firstKept = i
			}
			count := b.counts[i]
			end := uint64(0)
			for _, e := range w.lbr {
				if end != 0 {
					w.fallThrough.Add(Branch{e.Target, end}, count)
				}
				end = e.Source
				if bin.IsCode(e.Target) {
					w.branches.Add(e, count)
				}
			}
		}
		close(b.done)
	}
}

// parseLBR is parseContent's loop for LBR-only traces.
func (p *reader) parseLBR() error {
	nw := max(runtime.GOMAXPROCS(0), 1)
	workers := make([]lbrWorker, nw)
	in := make(chan *lbrBatch, nw)
	for i := range workers {
		go workers[i].run(p.bin, in)
	}
	var pending []*lbrBatch // sent, in order
	var free []*lbrBatch
	var cur *lbrBatch
	finishOne := func() {
		b := pending[0]
		pending = pending[1:]
		<-b.done
		p.combine(b)
		free = append(free, b)
	}
	send := func() {
		if cur == nil || cur.Len() == 0 {
			return
		}
		cur.done = make(chan struct{})
		in <- cur
		pending = append(pending, cur)
		cur = nil
		for len(pending) > 2*nw {
			finishOne()
		}
	}
	var err error
	s := p.s
	for !s.eof {
		if isMMapEvent(s.line) {
			// The event changes the state the next lines are read with.
			send()
			for len(pending) > 0 {
				finishOne()
			}
			if err = p.parseMMapEvent(); err != nil {
				break
			}
			continue
		}
		// parseSample: an optional repeat count line, then the LBR line.
		p.prof.Samples++
		count := uint64(1)
		if c, ok := parseUint(s.line, 10); ok {
			count = c
			s.advance()
		}
		if cur == nil {
			if n := len(free); n > 0 {
				cur, free = free[n-1], free[:n-1]
				cur.Reset()
				cur.counts, cur.lines = cur.counts[:0], cur.lines[:0]
			} else {
				cur = &lbrBatch{}
			}
			cur.base, cur.loaded = p.base, p.loadedByMMap
		}
		cur.Buf = append(cur.Buf, s.line...)
		cur.End()
		cur.counts = append(cur.counts, count)
		cur.lines = append(cur.lines, s.lineNo)
		s.advance()
		if len(cur.Buf) >= lbrBatchBytes {
			send()
		}
	}
	if err == nil {
		send()
	}
	for len(pending) > 0 {
		finishOne()
	}
	close(in)
	for i := range workers {
		w := &workers[i]
		for j, k := range w.fallThrough.keys {
			p.fallThrough.Add(k, w.fallThrough.counts[j])
		}
		for j, k := range w.branches.keys {
			p.branches.Add(k, w.branches.counts[j])
		}
	}
	return err
}

// combine does, in line order, what the worker left of a batch: the lines
// it declined, through the general path, and the missing-mmap warning.
func (p *reader) combine(b *lbrBatch) {
	base, loaded := p.base, p.loadedByMMap
	p.base, p.loadedByMMap = b.base, b.loaded
	for _, i := range b.odd {
		if b.firstKept >= 0 && b.firstKept < i {
			p.warnIfMissingMMap()
		}
		if p.parseLBRLine(b.At(i), b.lines[i]) {
			p.warnIfMissingMMap()
			p.record(b.counts[i])
		}
	}
	if b.firstKept >= 0 {
		p.warnIfMissingMMap()
	}
	p.base, p.loadedByMMap = base, loaded
}
