package container

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rules-pgo/rules_pgo/internal/atomicfile"
)

var le = binary.LittleEndian

var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Output receives an indexed profile front to back. The writers run twice
// over the same plan: a sizing pass (count set) that only advances off and
// records every offset the file refers to (mark), then a writing pass that
// either fills buf, allocated once at the size the first pass found, or
// streams to w through a small staging buffer, so a large file is never
// held in memory. Bulk payloads (record bodies, call-stack table entries)
// go through items, which fills them on all workers.
type Output struct {
	off   int  // absolute offset of the next byte
	count bool // sizing pass
	buf   []byte
	w     io.Writer
	pw    io.WriterAt // streaming by position (set with w)
	stage []byte
	mu    sync.Mutex // guards err while workers write through pw
	err   error

	workers int
}

const stageSize = 256 << 10 // staging buffer for small writes when streaming

// Variables so that tests can cut small profiles into many pieces.
var (
	BatchSize = 256 << 10 // bytes of items filled per batch when streaming
	ChunkMin  = 64 << 10  // smallest share of items worth handing to a worker
)

// ForceWorkers, if positive, replaces GOMAXPROCS as the number of
// goroutines the writer uses; tests set it to check that the serial and
// parallel paths write the same bytes.
var ForceWorkers = 0

func NumWorkers() int {
	if ForceWorkers > 0 {
		return ForceWorkers
	}
	return max(runtime.GOMAXPROCS(0), 1)
}

// at stores the current offset in *p in the sizing pass and, in the
// writing pass, checks that it is the stored one: both passes provably lay
// out the same file, and offsets that the file records before the place
// they point to (headers) are read from *p in the writing pass.
func (o *Output) At(p *uint64) {
	if o.count {
		*p = uint64(o.off)
	} else if *p != uint64(o.off) {
		panic(fmt.Sprintf("instrprof: internal error: writing pass at %#x, sizing pass at %#x", o.off, *p))
	}
}

func (o *Output) Write(p []byte) {
	switch {
	case o.count:
	case o.buf != nil:
		copy(o.buf[o.off:], p)
	default:
		if len(o.stage)+len(p) > cap(o.stage) {
			o.flush()
			if len(p) >= cap(o.stage) {
				o.writeRaw(p, o.off)
				break
			}
		}
		o.stage = append(o.stage, p...)
	}
	o.off += len(p)
}

// flush writes the staging buffer out (streaming only).
func (o *Output) flush() {
	if len(o.stage) > 0 {
		o.writeRaw(o.stage, o.off-len(o.stage))
		o.stage = o.stage[:0]
	}
}

// writeRaw writes p, the file's bytes at off. Through o.w the calls come
// in file order; through o.pw they may come in any order and from several
// goroutines at once.
func (o *Output) writeRaw(p []byte, off int) {
	if o.pw == nil {
		if o.err == nil {
			_, o.err = o.w.Write(p)
		}
		return
	}
	if _, err := o.pw.WriteAt(p, int64(off)); err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
}

func (o *Output) U64(v uint64) {
	var b [8]byte
	le.PutUint64(b[:], v)
	o.Write(b[:])
}

func (o *Output) U32(v uint32) {
	var b [4]byte
	le.PutUint32(b[:], v)
	o.Write(b[:])
}

func (o *Output) Zeros(n int) {
	var z [64]byte
	for n > 0 {
		k := min(n, len(z))
		o.Write(z[:k])
		n -= k
	}
}

func (o *Output) Pad8() { o.Zeros((8 - o.off%8) % 8) }

// u64s writes vs as little-endian u64s.
func (o *Output) U64s(vs []uint64) {
	if o.count {
		o.off += 8 * len(vs)
		return
	}
	var b [4096]byte
	for len(vs) > 0 {
		n := min(len(vs), len(b)/8)
		for i, v := range vs[:n] {
			le.PutUint64(b[8*i:], v)
		}
		o.Write(b[:8*n])
		vs = vs[n:]
	}
}

// u32s writes vs as little-endian u32s.
func (o *Output) U32s(vs []uint32) {
	if o.count {
		o.off += 4 * len(vs)
		return
	}
	if nativeLittleEndian && len(vs) > 0 {
		// The in-memory form is the file's: write it as it is.
		o.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vs))), 4*len(vs)))
		return
	}
	var b [4096]byte
	for len(vs) > 0 {
		n := min(len(vs), len(b)/4)
		for i, v := range vs[:n] {
			le.PutUint32(b[4*i:], v)
		}
		o.Write(b[:4*n])
		vs = vs[n:]
	}
}

// items writes len(sizes) consecutive items; put(b, k) fills item k, and
// len(b) == sizes[k]. put may run on several goroutines at once, each item
// exactly once.
func (o *Output) Items(sizes []int, put func(b []byte, k int)) {
	total := 0
	for _, s := range sizes {
		total += s
	}
	switch {
	case o.count:
	case o.buf != nil:
		fillItems(o.buf[o.off:o.off+total], sizes, put, o.workers)
	default:
		o.flush()
		o.streamItems(sizes, put)
	}
	o.off += total
}

// span is a run of items [lo, hi) taking n bytes.
type span struct{ lo, hi, n int }

// spans cuts items into runs of about target bytes (at least one item).
func spans(sizes []int, target int) []span {
	var out []span
	s := span{}
	for k, n := range sizes {
		s.n += n
		if s.n >= target {
			s.hi = k + 1
			out = append(out, s)
			s = span{lo: k + 1, hi: k + 1}
		}
	}
	if s.lo < len(sizes) {
		s.hi = len(sizes)
		out = append(out, s)
	}
	return out
}

func fillSpan(dst []byte, sizes []int, s span, put func(b []byte, k int)) {
	pos := 0
	for k := s.lo; k < s.hi; k++ {
		put(dst[pos:pos+sizes[k]:pos+sizes[k]], k)
		pos += sizes[k]
	}
}

// fillItems fills dst with the items, sharing them among workers.
func fillItems(dst []byte, sizes []int, put func(b []byte, k int), workers int) {
	if workers <= 1 || len(dst) < 2*ChunkMin {
		fillSpan(dst, sizes, span{0, len(sizes), len(dst)}, put)
		return
	}
	ss := spans(sizes, max(ChunkMin, len(dst)/(8*workers)))
	starts := make([]int, len(ss))
	pos := 0
	for i, s := range ss {
		starts[i] = pos
		pos += s.n
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(ss)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ss) {
					return
				}
				fillSpan(dst[starts[i]:starts[i]+ss[i].n], sizes, ss[i], put)
			}
		})
	}
	wg.Wait()
}

// streamItems fills the items batch by batch on the workers. Through o.pw
// each worker writes its own batches where they belong; otherwise the
// batches are written in order, and at most two per worker are in memory.
func (o *Output) streamItems(sizes []int, put func(b []byte, k int)) {
	ss := spans(sizes, BatchSize)
	starts := make([]int, len(ss))
	pos := o.off
	for i, s := range ss {
		starts[i] = pos
		pos += s.n
	}
	grow := func(b []byte, n int) []byte {
		if cap(b) < n {
			return make([]byte, n)
		}
		return b[:n]
	}
	if o.workers <= 1 || len(ss) == 1 {
		var b []byte
		for i, s := range ss {
			b = grow(b, s.n)
			fillSpan(b, sizes, s, put)
			o.writeRaw(b, starts[i])
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	if o.pw != nil {
		for range o.workers {
			wg.Go(func() {
				var b []byte
				for {
					i := int(next.Add(1) - 1)
					if i >= len(ss) {
						return
					}
					b = grow(b, ss[i].n)
					fillSpan(b, sizes, ss[i], put)
					o.writeRaw(b, starts[i])
				}
			})
		}
		wg.Wait()
		return
	}
	pool := make(chan []byte, 2*o.workers)
	for range cap(pool) {
		pool <- nil
	}
	done := make([]chan []byte, len(ss))
	for i := range done {
		done[i] = make(chan []byte, 1)
	}
	for range o.workers {
		wg.Go(func() {
			for {
				b := <-pool
				i := int(next.Add(1) - 1)
				if i >= len(ss) {
					pool <- b
					return
				}
				b = grow(b, ss[i].n)
				fillSpan(b, sizes, ss[i], put)
				done[i] <- b
			}
		})
	}
	for i := range ss {
		b := <-done[i]
		o.writeRaw(b, starts[i])
		pool <- b
	}
	wg.Wait()
}

// MarshalWith runs emit twice, sizing then writing, and returns the bytes.
func MarshalWith(emit func(o *Output)) []byte {
	sz := &Output{count: true, workers: NumWorkers()}
	emit(sz)
	o := &Output{buf: make([]byte, sz.off), workers: sz.workers}
	emit(o)
	if o.off != sz.off {
		panic(fmt.Sprintf("instrprof: internal error: wrote %d bytes, sized %d", o.off, sz.off))
	}
	return o.buf
}

// StreamWith runs emit twice, sizing then writing to w. The temporary file
// of WriteFileAtomic is written by position, batches straight from the
// workers that filled them.
func StreamWith(w io.Writer, emit func(o *Output)) error {
	sz := &Output{count: true, workers: NumWorkers()}
	emit(sz)
	o := &Output{w: w, stage: make([]byte, 0, stageSize), workers: sz.workers}
	if t, ok := w.(EmptyFile); ok {
		o.pw = t.File
	}
	emit(o)
	o.flush()
	if o.err == nil && o.off != sz.off {
		panic(fmt.Sprintf("instrprof: internal error: wrote %d bytes, sized %d", o.off, sz.off))
	}
	return o.err
}

// EmptyFile is a new, empty file (what atomicfile hands its fill
// functions): given one, the writers (Write, WriteFuncs, WriteCompact)
// write it by position, batches straight from the workers that filled them.
type EmptyFile struct{ *os.File }

// WriteFileAtomic streams a file to name through atomicfile.Create: a
// temporary file in the same directory, renamed over name once complete.
// On error name is untouched and the temporary file removed.
func WriteFileAtomic(name string, perm os.FileMode, fill func(w io.Writer) error) error {
	return atomicfile.Create(name, perm, func(f *os.File) error { return fill(EmptyFile{f}) })
}

// Sizing reports whether this is the sizing pass, in which nothing is
// written and bulk writers only Skip.
func (o *Output) Sizing() bool { return o.count }

// Skip advances over n bytes in the sizing pass.
func (o *Output) Skip(n int) {
	if !o.count {
		panic("container: Skip outside the sizing pass")
	}
	o.off += n
}
