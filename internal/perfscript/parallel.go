package perfscript

import (
	"hash/maphash"
	"runtime"

	"github.com/rules-pgo/rules_pgo/internal/hugemem"
)

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
// tests, which cut batches after every line). Small enough that the
// batches in flight stay in memory already touched: at 1 MiB the fresh
// pages of growing batches (page faults, 13,000 in a probe CS run of
// 200,000 hybrid samples) cost a fifth of the run's CPU.
var lbrBatchBytes = batchBytes

const batchBytes = 256 << 10

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
	cache                 *lbrCache
}

func (w *lbrWorker) run(bin *Binary, in <-chan *lbrBatch) {
	for b := range in {
		b.odd, b.firstKept = b.odd[:0], -1
		for i := range b.Len() {
			var ok bool
			w.lbr, ok = fastLBRCached(b.At(i), bin, b.base, w.lbr[:0], w.cache)
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
		// The cache from the second batch on: a short trace (a fuzzer's
		// input) does not pay for it.
		if w.cache == nil {
			w.cache = new(lbrCache)
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
	if p.order != nil {
		p.combineInOrder(b)
		p.base, p.loadedByMMap = base, loaded
		return
	}
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

// combineInOrder is combine with --show-detailed-warning: every sample of
// the batch, in line order, also goes to noteOrder (the lines the worker
// read are read again here, only with the flag).
func (p *reader) combineInOrder(b *lbrBatch) {
	odd := b.odd
	for i := range b.Len() {
		if len(odd) > 0 && odd[0] == i {
			odd = odd[1:]
			if b.firstKept >= 0 && b.firstKept < i {
				p.warnIfMissingMMap()
			}
			if p.parseLBRLine(b.At(i), b.lines[i]) {
				p.warnIfMissingMMap()
				p.record(b.counts[i])
				p.noteOrder(nil, p.lbr)
			}
			continue
		}
		var ok bool
		if p.order.lbr, ok = fastLBR(b.At(i), p.bin, b.base, p.order.lbr[:0]); ok && len(p.order.lbr) > 0 {
			p.noteOrder(nil, p.order.lbr)
		}
	}
	if b.firstKept >= 0 {
		p.warnIfMissingMMap()
	}
}

// The hybrid parse runs the LBR lines on every core too: this goroutine
// reads each sample's count and stack lines as parseHybridSample does
// (extractCallstack keeps all the per-sample state and counts) and queues
// the stack with a copy of its LBR line; workers parse the lines
// (fastLBR), count their fall-through pairs and hash the samples for the
// distinct set. Batches come back in order, and each sample then goes
// through the rest of parseHybridSample here, in trace order: the
// missing-mmap warning, the general path for the lines fastLBR declined,
// the distinct set and the HybridSample callback.

// hybridParallel turns the parallel hybrid parse on (off in a test, which
// compares it with parseHybridSample's sequential path).
var hybridParallel = true

type hybridBatch struct {
	lbrBatch
	stacks    []uint64 // the samples' stacks back to back
	stackEnds []int
	// The samples' repeat-cache keys, where keyed (repeats.go).
	rkeys [][2]uint64
	keyed []bool

	// Set by the worker, per sample.
	ok        []bool // fastLBR read the line
	entries   []Branch
	entryEnds []int
	hashes    [][2]uint64 // sampleHash of the kept samples fastLBR read
	enc       Records     // and their encodings (empty for the others)
}

func (b *hybridBatch) stack(i int) []uint64 { return b.stacks[prevEnd(b.stackEnds, i):b.stackEnds[i]] }
func (b *hybridBatch) lbr(i int) []Branch   { return b.entries[prevEnd(b.entryEnds, i):b.entryEnds[i]] }

func prevEnd(ends []int, i int) int {
	if i == 0 {
		return 0
	}
	return ends[i-1]
}

type hybridWorker struct {
	fallThrough BranchCounts
	cache       *lbrCache
}

func (w *hybridWorker) run(p *reader, in <-chan *hybridBatch) {
	for b := range in {
		b.ok, b.entries, b.entryEnds, b.hashes = b.ok[:0], b.entries[:0], b.entryEnds[:0], b.hashes[:0]
		b.enc.Reset()
		for i := range b.Len() {
			start := len(b.entries)
			var ok bool
			if b.entries, ok = fastLBRCached(b.At(i), p.bin, b.base, b.entries, w.cache); !ok {
				b.entries = b.entries[:start]
			}
			b.ok = append(b.ok, ok)
			b.entryEnds = append(b.entryEnds, len(b.entries))
			var h [2]uint64
			if lbr := b.entries[start:]; ok && len(lbr) > 0 {
				stack := b.stack(i)
				stack[0] = lbr[0].Target
				start := len(b.enc.Buf)
				b.enc.Buf = AppendHybridSample(b.enc.Buf, stack, lbr)
				rec := b.enc.Buf[start:]
				h = [2]uint64{maphash.Bytes(p.seed, rec), maphash.Bytes(p.seed2, rec)}
				countFallThrough(&w.fallThrough, lbr, b.counts[i])
			}
			b.enc.End()
			b.hashes = append(b.hashes, h)
		}
		if w.cache == nil {
			w.cache = new(lbrCache) // from the second batch on, as lbrWorker's
		}
		close(b.done)
	}
}

// hybridPipe is the state of the parallel hybrid parse.
type hybridPipe struct {
	workers []hybridWorker
	in      chan *hybridBatch
	pending []*hybridBatch // sent, in order
	free    []*hybridBatch
	cur     *hybridBatch
	// The large buffers of the batches, one hybridMem each, from a
	// huge-page mapping (hugemem): filled again for every batch, and as
	// fresh heap memory (grown by append) they were ~1,500 page faults of
	// ~15 µs on the benchmarks' VMs. used are taken; a batch beyond them
	// grows on the heap.
	mem        []hybridMem
	used       int
	nmem, made int // batches mem is for; batches made
}

// hybridMem is room for a batch of batchBytes of lines: the lines, their
// samples' encodings and their LBR entries (a line of 32 entries is ~1,100
// bytes; its encoding ~600, its entries 512). A batch that needs more
// grows on the heap.
type hybridMem struct {
	lines   [batchBytes + 4<<10]byte
	enc     [batchBytes]byte
	entries [batchBytes / 32]Branch
}

func (p *reader) startHybrid() {
	nw := max(runtime.GOMAXPROCS(0), 1)
	// At most 2*nw batches are pending, one is filled, one may be free.
	h := &hybridPipe{workers: make([]hybridWorker, nw), in: make(chan *hybridBatch, nw), nmem: 2*nw + 2}
	for i := range h.workers {
		go h.workers[i].run(p, h.in)
	}
	p.hyb = h
}

// queueHybrid queues the sample whose stack is in p.stack and whose LBR
// line is the current one (its repeat-cache key k, if keyed), and
// advances.
func (p *reader) queueHybrid(count uint64, k [2]uint64, keyed bool) {
	h, s := p.hyb, p.s
	if h.cur == nil {
		if n := len(h.free); n > 0 {
			h.cur, h.free = h.free[n-1], h.free[:n-1]
			b := h.cur
			b.Reset()
			b.counts, b.lines, b.stacks, b.stackEnds = b.counts[:0], b.lines[:0], b.stacks[:0], b.stackEnds[:0]
			b.rkeys, b.keyed = b.rkeys[:0], b.keyed[:0]
		} else {
			h.cur = &hybridBatch{}
			if h.made++; h.made > 1 && h.mem == nil {
				// From the second batch on (a short trace, a fuzzer's
				// input, does not map it).
				h.mem = hugemem.Make[hybridMem](h.nmem)
			}
			if h.used < len(h.mem) {
				m := &h.mem[h.used]
				h.used++
				h.cur.Buf, h.cur.enc.Buf, h.cur.entries = m.lines[:0], m.enc[:0], m.entries[:0]
			}
		}
		h.cur.base, h.cur.loaded = p.base, p.loadedByMMap
	}
	b := h.cur
	b.Buf = append(b.Buf, s.line...)
	b.End()
	b.counts = append(b.counts, count)
	b.lines = append(b.lines, s.lineNo)
	b.stacks = append(b.stacks, p.stack...)
	b.stackEnds = append(b.stackEnds, len(b.stacks))
	b.rkeys, b.keyed = append(b.rkeys, k), append(b.keyed, keyed)
	s.advance()
	if len(b.Buf) >= lbrBatchBytes {
		p.sendHybrid()
	}
}

func (p *reader) sendHybrid() {
	h := p.hyb
	b := h.cur
	if b == nil || b.Len() == 0 {
		return
	}
	b.done = make(chan struct{})
	h.in <- b
	h.pending = append(h.pending, b)
	h.cur = nil
	for len(h.pending) > 2*len(h.workers) {
		p.finishHybrid()
	}
}

// drainHybrid finishes every queued sample (before the state they were
// read in changes, or an error).
func (p *reader) drainHybrid() {
	if p.hyb == nil {
		return
	}
	p.sendHybrid()
	for len(p.hyb.pending) > 0 {
		p.finishHybrid()
	}
}

// stopHybrid drains the queue, stops the workers and adds their counters.
func (p *reader) stopHybrid() {
	h := p.hyb
	if h == nil {
		return
	}
	p.drainHybrid()
	p.flushRepeats()
	close(h.in)
	// No batch is in a worker's hands now; none is used again.
	h.free, h.cur = nil, nil
	hugemem.Free(h.mem)
	h.mem = nil
	for i := range h.workers {
		w := &h.workers[i].fallThrough
		for j, k := range w.keys {
			p.fallThrough.Add(k, w.counts[j])
		}
	}
	p.hyb = nil
}

// finishHybrid does the rest of parseHybridSample for the oldest batch.
func (p *reader) finishHybrid() {
	h := p.hyb
	b := h.pending[0]
	h.pending = h.pending[1:]
	<-b.done
	base, loaded := p.base, p.loadedByMMap
	p.base, p.loadedByMMap = b.base, b.loaded
	for i := range b.Len() {
		p.warnIfMissingMMap()
		stack, lbr, k, rec := b.stack(i), b.lbr(i), b.hashes[i], b.enc.At(i)
		if !b.ok[i] {
			if !p.parseLBRLine(b.At(i), b.lines[i]) {
				continue
			}
			lbr = p.lbr
			stack[0] = lbr[0].Target
			k, p.key = p.sampleHash(p.key, stack, lbr)
			rec = p.key
			countFallThrough(&p.fallThrough, lbr, b.counts[i])
		} else if len(lbr) == 0 {
			continue
		}
		p.noteOrder(stack, lbr)
		first := p.insertDistinct(k)
		p.hybridSample(stack, lbr, rec, b.counts[i], first)
		if b.keyed[i] && b.ok[i] {
			p.insertRepeat(b.rkeys[i], stack, lbr)
		}
	}
	p.base, p.loadedByMMap = base, loaded
	h.free = append(h.free, b)
}
