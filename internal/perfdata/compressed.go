package perfdata

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// perf record -z compresses the ring buffers' records into one zstd
// stream: each PERF_RECORD_COMPRESSED carries what one flush of the
// stream produced (ZSTD_flushStream, not the end of a frame), so a
// record's data decodes only after the ones before it, and a record of
// the decompressed stream may continue in the next PERF_RECORD_COMPRESSED
// (perf's decomp_last_rem). perf keeps one ZSTD_DStream for the session;
// zstream is its equivalent: klauspost's stream decoder, synchronous
// (concurrency 1), in a goroutine that asks for the next record's data
// once it has written out everything the data before it held.
type zstream struct {
	in   chan []byte   // the next compressed data
	want chan struct{} // the decoder waits for data; all output is written
	done chan struct{} // the decoder stopped (err says why)
	err  error
	cur  []byte
	out  *[]byte // where output goes, valid between handoffs
}

func (z *zstream) Read(p []byte) (int, error) {
	for len(z.cur) == 0 {
		z.want <- struct{}{}
		b, ok := <-z.in
		if !ok {
			return 0, io.EOF
		}
		z.cur = b
	}
	n := copy(p, z.cur)
	z.cur = z.cur[n:]
	return n, nil
}

var errTooLarge = errors.New("too large")

// decoders keeps zstd decoders between streams (a decoder's buffers are
// most of a small file's cost).
var decoders sync.Pool

type zout struct{ z *zstream }

func (w zout) Write(p []byte) (int, error) {
	if len(*w.z.out)+len(p) > maxDecompressed {
		return 0, errTooLarge
	}
	*w.z.out = append(*w.z.out, p...)
	return len(p), nil
}

func newZstream() (*zstream, error) {
	z := &zstream{in: make(chan []byte), want: make(chan struct{}), done: make(chan struct{})}
	d, _ := decoders.Get().(*zstd.Decoder)
	if d == nil {
		var err error
		d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxDecompressed), zstd.WithDecoderMaxMemory(1<<40), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
	}
	go func() {
		defer close(z.done)
		// The decoder is kept for the next stream: it is reset there.
		defer decoders.Put(d)
		if err := d.Reset(z); err != nil {
			z.err = err
			return
		}
		_, err := io.Copy(zout{z}, d)
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		z.err = err
	}()
	// Wait for the decoder's first request.
	select {
	case <-z.want:
	case <-z.done:
		return nil, z.err
	}
	return z, nil
}

// decode appends to *out what data decompresses to.
func (z *zstream) decode(data []byte, out *[]byte) error {
	if len(data) == 0 {
		return nil
	}
	z.out = out
	select {
	case z.in <- data:
	case <-z.done:
		return z.failure()
	}
	select {
	case <-z.want:
		return nil
	case <-z.done:
		return z.failure()
	}
}

func (z *zstream) failure() error {
	if errors.Is(z.err, errTooLarge) {
		return fmt.Errorf("decompresses to more than %d bytes", maxDecompressed)
	}
	return z.err
}

// close stops the decoder's goroutine.
func (z *zstream) close() {
	select {
	case <-z.done:
	default:
		close(z.in)
		<-z.done
	}
}
