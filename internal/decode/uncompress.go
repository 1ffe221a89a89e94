package decode

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Every compressed stream of the formats we read (zlib in extbinary sample
// profiles and in instrumented profiles' name sections, zlib and zstd in
// ELF debug sections) comes with the size it claims to decompress to. The
// one size rule, checked before anything is allocated:
//
//   - the claim is at most MaxUncompressed(compressed size): deflate cannot
//     expand more than 1032:1 (zstd can, but no compiler's output comes near
//     it), plus 64 KiB for headers, and never more than 4 GiB;
//   - the buffer starts small and grows only as decompressed bytes arrive,
//     so memory follows the data, not the claim;
//   - the stream is read to its end, its checksum verified (zlib's adler32
//     always, zstd's frame checksum when the frame has one), and it must
//     decompress to exactly the size claimed, no byte more or less.
//
// LLVM is laxer in two ways, which we do not copy: it allocates whatever
// size is claimed (llvm-symbolizer takes 4.2 GB of memory for a debug
// section claiming 4 GiB and aborts on a larger claim), and where a stream
// decompresses to less than claimed it pads with zeros (ELF sections),
// reads uninitialized memory (extbinary sections) or keeps what there is
// (instrprof names).

// MaxUncompressed is the most a stream of n compressed bytes may claim.
func MaxUncompressed(n uint64) uint64 {
	const maxRatio, slack, ceiling = 1032, 64 << 10, 4 << 30
	if n > (ceiling-slack)/maxRatio {
		return ceiling
	}
	return n*maxRatio + slack
}

// Codec names a compression format by the name LLVM's messages use.
type Codec string

const (
	Zlib Codec = "zlib"
	Zstd Codec = "zstd"
)

// Uncompress decompresses the zlib stream in the next n bytes at the cursor,
// which must decompress to exactly size bytes, and moves past the n bytes.
// Bytes after the end of the stream and before n are ignored, as zlib's
// uncompress ignores them. On failure it records an *Error at the offset of
// the problem whose message starts with fail, the container's word for it
// (LLVM's where it has one: "Uncompress failure" in sample profiles), and
// returns nil.
func (c *Cursor) Uncompress(n, size uint64, fail string) []byte {
	start := c.off
	z := c.Bytes(n)
	if c.err != nil {
		return nil
	}
	if !c.checkClaim(start, n, size, Zlib, fail) {
		return nil
	}
	br := bytes.NewReader(z)
	zr, err := zlib.NewReader(br)
	if err != nil {
		c.uncompressFailed(start, z, br, Zlib, fail, err)
		return nil
	}
	out, err := readExactly(zr, n, size)
	if err != nil {
		c.uncompressFailed(start, z, br, Zlib, fail, err)
		return nil
	}
	return out
}

// UncompressReader is Uncompress for a stream the caller decodes: r is the
// decompressor reading the next n bytes at the cursor (the standard library
// decodes zstd only inside debug/elf, which hands out such a reader).
func (c *Cursor) UncompressReader(codec Codec, r io.Reader, n, size uint64, fail string) []byte {
	start := c.off
	c.Bytes(n)
	if c.err != nil {
		return nil
	}
	if !c.checkClaim(start, n, size, codec, fail) {
		return nil
	}
	out, err := readExactly(r, n, size)
	if err != nil {
		c.uncompressFailed(start, nil, nil, codec, fail, err)
		return nil
	}
	return out
}

func (c *Cursor) checkClaim(start int, n, size uint64, codec Codec, fail string) bool {
	if msg := claimProblem(codec, n, size); msg != "" {
		c.FailAt(int64(start), ErrMalformed, "%s: %s", fail, msg)
		return false
	}
	return true
}

// claimProblem applies the size rule.
func claimProblem(codec Codec, n, size uint64) string {
	if limit := MaxUncompressed(n); size > limit {
		return fmt.Sprintf("%s stream of %d bytes claims %d bytes, more than the %d allowed (1032:1 plus 64 KiB, at most 4 GiB)", codec, n, size, limit)
	}
	return ""
}

// Errors of readExactly that are not the decompressor's.
var (
	errShort = errors.New("short")
	errLong  = errors.New("long")
)

type sizeError struct {
	kind      error
	got, want uint64
}

func (e *sizeError) Error() string { return e.kind.Error() }
func (e *sizeError) Unwrap() error { return e.kind }

// readExactly reads r to its end, which must come after exactly size bytes.
func readExactly(r io.Reader, n, size uint64) ([]byte, error) {
	// Start at what the compressed bytes usually give (a quarter of the
	// claim for debug info is typical) and grow as bytes arrive.
	out := make([]byte, 0, min(size, 4*n+4096))
	for {
		if uint64(len(out)) == size {
			break
		}
		if len(out) == cap(out) {
			out = slices.Grow(out, int(min(size-uint64(len(out)), uint64(len(out)))))
		}
		k, err := r.Read(out[len(out):min(uint64(cap(out)), size)])
		out = out[:len(out)+k]
		if err == io.EOF {
			if uint64(len(out)) < size {
				return nil, &sizeError{errShort, uint64(len(out)), size}
			}
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
	// The claim is met: the stream must end here, after its checksum.
	var extra [1]byte
	for {
		k, err := r.Read(extra[:])
		if k > 0 {
			return nil, &sizeError{errLong, size + 1, size}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// uncompressFailed records err of a stream at start: for zlib, z is the
// compressed bytes and br the reader the decompressor consumed them from,
// which locate the problem.
func (c *Cursor) uncompressFailed(start int, z []byte, br *bytes.Reader, codec Codec, fail string, err error) {
	delta, reason := describe(z, br, codec, err)
	c.FailAt(int64(start)+delta, ErrMalformed, "%s: %s", fail, reason)
}

// describe says what err of a decompressor means, in zlib's or zstd's
// words as LLVM prints them plus ours, and where in the stream it is
// (z and br, for zlib, locate it; else 0).
func describe(z []byte, br *bytes.Reader, codec Codec, err error) (int64, string) {
	var se *sizeError
	var ce flate.CorruptInputError
	switch {
	case errors.As(err, &se) && se.kind == errShort:
		off := int64(0)
		if br != nil {
			off = int64(len(z) - br.Len())
		}
		return off, fmt.Sprintf("the %s stream ends after %d of the %d bytes claimed", codec, se.got, se.want)
	case errors.As(err, &se):
		return 0, fmt.Sprintf("the %s stream decompresses to more than the %d bytes claimed", codec, se.want)
	case codec != Zlib:
		// ZSTD_getErrorName's words for what LLVM reports, then Go's
		// message, which says where.
		word := "Data corruption detected"
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			word = "Src size is incorrect"
		case strings.Contains(err.Error(), "checksum"):
			word = "Restored data doesn't match checksum"
		}
		return 0, fmt.Sprintf("zstd error: %s (%v)", word, err)
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, zlib.ErrDictionary):
		return 0, fmt.Sprintf("zlib error: Z_DATA_ERROR (%v)", err)
	case errors.As(err, &ce):
		// The offset counts from the deflate data, after the 2-byte header.
		return 2 + int64(ce), "zlib error: Z_DATA_ERROR (invalid deflate data)"
	case errors.Is(err, zlib.ErrChecksum):
		end := len(z) - br.Len()
		return int64(end) - 4, fmt.Sprintf("zlib error: Z_DATA_ERROR (adler32 checksum %#08x does not match the data's)", trailer(z, end))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return int64(len(z)), "zlib error: Z_DATA_ERROR (the stream is cut short)"
	}
	return 0, fmt.Sprintf("%s: %v", codec, err)
}

func trailer(z []byte, end int) uint32 {
	if end < 4 || end > len(z) {
		return 0
	}
	t := z[end-4 : end]
	return uint32(t[0])<<24 | uint32(t[1])<<16 | uint32(t[2])<<8 | uint32(t[3])
}
