package symbolizer

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rules-pgo/rules_pgo/internal/cli"
)

// Requests are answered in parallel: the input is cut into batches, each
// batch is answered by one of GOMAXPROCS workers into its own buffers
// (stdout bytes, stderr messages, JSON list entries), and a writer emits
// the batches in input order. The output is therefore byte-for-byte what
// a sequential run prints. A batch is cut early whenever stdin has no more
// buffered input, and the writer flushes after such a batch, so a client
// that writes one request and waits for the answer is served at once.

const batchLines = 256

type batch struct {
	lines []string
	flush bool          // flush stdout after writing this batch
	out   *bytes.Buffer // from pipeline.bufs; returned once written
	errb  bytes.Buffer
	list  []string // JSON objects, in list mode
	done  chan struct{}
}

type pipeline struct {
	sh      *shared
	mainP   *printer // the run's printer: list mode collects into it
	out     *bufio.Writer
	stderr  io.Writer
	jobs    chan *batch
	order   chan *batch
	wg      sync.WaitGroup
	written chan error
	// bufs recycles batch output buffers: a batch's answers take a few
	// hundred KiB, and growing a fresh buffer per batch costs more than
	// writing into it.
	bufs sync.Pool
	// prefetched is set once the first full batch went to shared.prefetch,
	// which runs under pwg.
	prefetched bool
	pwg        sync.WaitGroup
}

func newPipeline(sh *shared, mainP *printer, out *bufio.Writer, stderr io.Writer) *pipeline {
	workers := max(runtime.GOMAXPROCS(0), 1)
	pl := &pipeline{
		sh: sh, mainP: mainP, out: out, stderr: stderr,
		jobs:    make(chan *batch, 2*workers),
		order:   make(chan *batch, 4*workers),
		written: make(chan error, 1),
	}
	for range workers {
		pl.wg.Add(1)
		go pl.work()
	}
	go pl.write()
	return pl
}

func (pl *pipeline) work() {
	defer pl.wg.Done()
	var w *bufio.Writer
	for b := range pl.jobs {
		// About what a line's answer takes. A new buffer is made, not
		// grown: Grow clears the whole allocation (128 KiB a batch, most
		// of it never written on short answers), make leaves memory fresh
		// from the OS untouched.
		want := len(b.lines) * 512
		if o, ok := pl.bufs.Get().(*bytes.Buffer); ok {
			b.out = o
			b.out.Grow(want)
		} else {
			b.out = bytes.NewBuffer(make([]byte, 0, want))
		}
		if w == nil {
			w = bufio.NewWriter(b.out)
		} else {
			w.Reset(b.out)
		}
		rep := cli.NewReporter(tool, &b.errb)
		s := pl.sh.newSession(w, rep)
		s.p.inList = pl.mainP.inList
		for _, l := range b.lines {
			s.handle(l)
		}
		w.Flush()
		b.list = s.p.list
		close(b.done)
	}
}

func (pl *pipeline) write() {
	var err error
	for b := range pl.order {
		<-b.done
		if b.errb.Len() > 0 {
			pl.out.Flush() // keep stdout and stderr in step on a terminal
			pl.sh.mu.Lock()
			pl.stderr.Write(b.errb.Bytes())
			pl.sh.mu.Unlock()
		}
		if pl.mainP.inList {
			pl.mainP.list = append(pl.mainP.list, b.list...)
		} else if _, werr := pl.out.Write(b.out.Bytes()); werr != nil && err == nil {
			err = werr
		}
		b.out.Reset()
		pl.bufs.Put(b.out)
		b.out = nil
		if b.flush {
			if ferr := pl.out.Flush(); ferr != nil && err == nil {
				err = ferr
			}
		}
	}
	pl.written <- err
}

// submit queues one batch; batches are written in submission order.
func (pl *pipeline) submit(lines []string, flush bool) {
	if len(lines) == 0 && !flush {
		return
	}
	if !pl.prefetched && len(lines) == batchLines && runtime.GOMAXPROCS(0) > 1 {
		// Bulk input: decode the units the first batch needs on all
		// cores, while the workers start on it.
		pl.prefetched = true
		pl.pwg.Add(1)
		go func() {
			defer pl.pwg.Done()
			pl.sh.prefetch(lines)
		}()
	}
	b := &batch{lines: lines, flush: flush, done: make(chan struct{})}
	pl.order <- b
	pl.jobs <- b
}

// finish waits for every batch to be written.
func (pl *pipeline) finish() error {
	close(pl.jobs)
	close(pl.order)
	pl.wg.Wait()
	pl.pwg.Wait()
	return <-pl.written
}

// runArgs answers the command-line addresses.
func (pl *pipeline) runArgs(args []string) error {
	for len(args) > 0 {
		n := min(len(args), batchLines)
		pl.submit(args[:n], false)
		args = args[n:]
	}
	return pl.finish()
}

// maxRequest is the most llvm-symbolizer reads as one request: it reads
// stdin with fgets into a buffer of 1024 bytes (kMaxInputStringLength),
// so a longer line is several requests of 1023 bytes, the last ending at
// the newline.
const maxRequest = 1023

// readRequest reads the next request as fgets does: up to and including
// a '\n', at most maxRequest bytes. It returns io.EOF only with nothing
// read.
func readRequest(in *bufio.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < maxRequest {
		if in.Buffered() == 0 {
			if _, err := in.Peek(1); err != nil {
				if err == io.EOF && len(buf) > 0 {
					err = nil
				}
				return buf, err
			}
		}
		chunk, _ := in.Peek(min(in.Buffered(), maxRequest-len(buf)))
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			buf = append(buf, chunk[:i+1]...)
			in.Discard(i + 1)
			break
		}
		buf = append(buf, chunk...)
		in.Discard(len(chunk))
	}
	return buf, nil
}

// requestString is the request llvm-symbolizer makes of what fgets read:
// the C string (up to a NUL byte), without its '\r' and '\n' bytes.
func requestString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	// strings.Map also turns invalid UTF-8 into U+FFFD: only a plain
	// ASCII line without '\r' or '\n' (every address line) skips it.
	for _, c := range b {
		if c >= utf8.RuneSelf || c == '\r' || c == '\n' {
			return strings.Map(dropCRLF, string(b))
		}
	}
	return string(b)
}

// runStdin answers stdin request by request (readRequest): memory stays
// bounded whatever the input's lines, as llvm-symbolizer's does.
func (pl *pipeline) runStdin(stdin io.Reader) error {
	in := bufio.NewReaderSize(stdin, 64<<10)
	var cur []string
	var rerr error
	var buf []byte
	for {
		b, err := readRequest(in, buf)
		buf = b
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
		cur = append(cur, requestString(b))
		// Cut the batch when it is full, or when reading on would block:
		// then also flush, so an interactive client sees its answers.
		if dry := in.Buffered() == 0; dry || len(cur) == batchLines {
			pl.submit(cur, dry)
			cur = nil
		}
	}
	pl.submit(cur, true)
	if err := pl.finish(); err != nil {
		return err
	}
	return rerr
}
