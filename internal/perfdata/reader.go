package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// The file header (perf_file_header), little-endian:
//
//	0   magic       "PERFILE2"
//	8   size        of this header: 104 in a file, 16 in a pipe (which ends here)
//	16  attr_size   of one perf_file_attr (perf_event_attr + ids section)
//	24  attrs       section {offset, size} of the perf_file_attr array
//	40  data        section of the records
//	56  event_types section (unused since 2012)
//	72  adds_features  256-bit map; the features' sections follow the data
//	                   section, one {offset, size} per set bit, in bit order
//
// perf_file_attr: perf_event_attr (attr.size bytes; 0 means 64) then an
// {offset, size} section of the event's u64 sample ids.
// Magic is the first 8 bytes of a perf.data file or pipe, little-endian:
// "PERFILE2".
const Magic = 0x32454c4946524550

const (
	magicSwapped = 0x50455246494c4532
	magicV1      = 0x454c494646524550 // "PERFFILE", perf before 2010
	fileHeaderSz = 104
	pipeHeaderSz = 16
	attrSizeVer0 = 64
	// attrRead is how much of an attribute this package reads (up to
	// sample_regs_intr); the rest, when present, is skipped.
	attrRead = 104
	// maxDecompressed bounds one PERF_RECORD_COMPRESSED's decompressed
	// data (perf's own bound is the mmap size of the recording, 512 KiB
	// by default).
	maxDecompressed = 64 << 20
)

// Reader reads a perf.data file or pipe, record by record.
type Reader struct {
	Name string
	// Pipe reports pipe mode (perf record -o -): the attributes and
	// features arrive as records, read as the stream reaches them.
	Pipe bool
	// Attrs are the events, in the file's order; in pipe mode they grow as
	// PERF_RECORD_HEADER_ATTR records are read.
	Attrs []*Attr
	// Features is the header's adds_features bitmap (file mode).
	Features [4]uint64
	// BuildIDs is the build-id table: the feature section of a file, or
	// the PERF_RECORD_HEADER_BUILD_ID records a pipe has delivered so far.
	BuildIDs []BuildID
	// UnknownIDs counts samples whose id names no event (perf counts and
	// skips them too); they are not returned.
	UnknownIDs int
	// SkipSamples leaves samples undecoded (Type, Misc, Offset, Raw and
	// Sample.Attr only): for a pass that wants the other records.
	SkipSamples bool

	byID map[uint64]*Attr
	src  *bufio.Reader
	off  int64 // file offset of src's next byte
	end  int64 // the data section's end; -1 in a pipe
	rec  []byte

	z     *zstream
	zbuf  []byte // decompressed records not yet returned
	zpos  int
	zoff  int64 // the offset of the compressed record zbuf came from
	zbase int   // the decompressed offset of zbuf[0] within that record's data
	zkeep []byte

	closer io.Closer
	// ownBuffers makes Next copy Raw into the record (Ordered).
	ownBuffers bool
}

func (r *Reader) errorf(section string, off int64, kind error, format string, args ...any) error {
	return &decode.Error{Format: "perfdata", File: r.Name, Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: kind}
}

// Open opens a perf.data file (either mode). Close closes it.
func Open(name string) (*Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, name)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Close closes the file Open opened; it does nothing for NewReader's.
func (r *Reader) Close() error {
	if r.z != nil {
		r.z.close()
		r.z = nil
	}
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// NewReader reads the header of perf.data from f; name is what errors call
// it. A file in pipe mode is read as a stream; a file in file mode must
// also be an io.ReaderAt and an io.Seeker (an *os.File, a *bytes.Reader),
// since its attributes and features lie at offsets.
func NewReader(f io.Reader, name string) (*Reader, error) {
	r := &Reader{Name: name, byID: map[uint64]*Attr{}, end: -1}
	var h [pipeHeaderSz]byte
	if n, err := io.ReadFull(f, h[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, r.errorf("header", int64(n), decode.ErrTruncated, "truncated: need %d bytes, have %d", pipeHeaderSz, n)
		}
		return nil, err
	}
	switch m := binary.LittleEndian.Uint64(h[:]); m {
	case Magic:
	case magicSwapped:
		return nil, r.errorf("header", 0, decode.ErrUnsupportedVersion, "byte-swapped magic %#x: a big-endian perf.data, which this reader does not read", m)
	case magicV1:
		return nil, r.errorf("header", 0, decode.ErrUnsupportedVersion, "magic \"PERFFILE\": the first perf.data version (before 2010), not read")
	default:
		return nil, r.errorf("header", 0, decode.ErrBadMagic, "bad magic %#x, want \"PERFILE2\" (%#x)", m, uint64(Magic))
	}
	size := binary.LittleEndian.Uint64(h[8:])
	if size == pipeHeaderSz {
		r.Pipe = true
		size := 1 << 16
		if br, ok := f.(*bytes.Reader); ok {
			size = int(min(br.Size(), 1<<16)) // small inputs: tests, fuzzing
		}
		r.src = bufio.NewReaderSize(f, size)
		r.off = pipeHeaderSz
		return r, nil
	}
	if size < fileHeaderSz {
		return nil, r.errorf("header", 8, decode.ErrMalformed, "header size %d, want %d (a file) or %d (a pipe)", size, fileHeaderSz, pipeHeaderSz)
	}
	ra, ok1 := f.(io.ReaderAt)
	sk, ok2 := f.(io.Seeker)
	if !ok1 || !ok2 {
		return nil, r.errorf("header", 8, decode.ErrMalformed, "a perf.data file in file mode (not pipe mode) must be read from a seekable file")
	}
	fileSize, err := sk.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	if err := r.readFileHeader(ra, fileSize); err != nil {
		return nil, err
	}
	return r, nil
}

type section struct{ off, size uint64 }

func (r *Reader) readAt(ra io.ReaderAt, fileSize int64, what string, sec section) ([]byte, error) {
	if sec.off > uint64(fileSize) || sec.size > uint64(fileSize)-sec.off {
		return nil, r.errorf(what, int64(min(sec.off, uint64(fileSize))), decode.ErrTruncated, "section [%#x, +%#x) lies past the end of the file (%#x bytes)", sec.off, sec.size, fileSize)
	}
	if sec.size == 0 {
		return nil, nil
	}
	b := make([]byte, sec.size)
	// io.ReaderAt may say io.EOF with every byte read, at the end.
	if n, err := ra.ReadAt(b, int64(sec.off)); err != nil && !(err == io.EOF && n == len(b)) {
		return nil, err
	}
	return b, nil
}

func (r *Reader) readFileHeader(ra io.ReaderAt, fileSize int64) error {
	if fileSize < fileHeaderSz {
		return r.errorf("header", fileSize, decode.ErrTruncated, "truncated: the file header needs %d bytes, the file has %d", fileHeaderSz, fileSize)
	}
	hb, err := r.readAt(ra, fileSize, "header", section{0, fileHeaderSz})
	if err != nil {
		return err
	}
	c := decode.NewCursor("perfdata", r.Name, "header", hb, 16)
	attrSize := c.U64()
	attrs := section{c.U64(), c.U64()}
	data := section{c.U64(), c.U64()}
	c.Skip(16)
	for i := range r.Features {
		r.Features[i] = c.U64()
	}
	if err := c.Err(); err != nil {
		return err
	}
	if attrSize < 16+attrSizeVer0 {
		return r.errorf("header", 16, decode.ErrMalformed, "attr_size %d, want at least %d", attrSize, 16+attrSizeVer0)
	}
	ab, err := r.readAt(ra, fileSize, "attrs", attrs)
	if err != nil {
		return err
	}
	// As perf reads them: attrs.size/attr_size attributes, each attr.size
	// bytes and its ids section, one after the other.
	nattr := attrs.size / attrSize
	ac := decode.NewCursor("perfdata", r.Name, "attrs", ab, 0)
	for i := uint64(0); i < nattr; i++ {
		at := ac.Off()
		a := r.parseAttr(&ac)
		ids := section{ac.U64(), ac.U64()}
		if err := ac.Err(); err != nil {
			return r.relocate(err, int64(attrs.off))
		}
		if ids.size%8 != 0 {
			return r.errorf("attrs", int64(attrs.off)+int64(at), decode.ErrMalformed, "attribute %d: ids section size %d is not a multiple of 8", i, ids.size)
		}
		ib, err := r.readAt(ra, fileSize, fmt.Sprintf("ids of attribute %d", i), ids)
		if err != nil {
			return err
		}
		for j := 0; j < len(ib); j += 8 {
			a.IDs = append(a.IDs, binary.LittleEndian.Uint64(ib[j:]))
		}
		if err := r.addAttr(a, int64(attrs.off)+int64(at)); err != nil {
			return err
		}
	}
	if len(r.Attrs) == 0 {
		return r.errorf("header", 24, decode.ErrMalformed, "no event attributes (attrs size %d, attr_size %d)", attrs.size, attrSize)
	}
	if data.off > uint64(fileSize) || data.size > uint64(fileSize)-data.off {
		return r.errorf("header", 40, decode.ErrTruncated, "data section [%#x, +%#x) lies past the end of the file (%#x bytes)", data.off, data.size, fileSize)
	}
	if err := r.readFeatures(ra, fileSize, data.off+data.size); err != nil {
		return err
	}
	r.off = int64(data.off)
	r.end = int64(data.off + data.size)
	r.src = bufio.NewReaderSize(io.NewSectionReader(ra, int64(data.off), int64(data.size)), int(min(data.size, 1<<20)))
	return nil
}

// relocate moves a cursor's error, whose offset is within a buffer read
// from base, to the file's offsets.
func (r *Reader) relocate(err error, base int64) error {
	var de *decode.Error
	if errors.As(err, &de) {
		e := *de
		e.Offset += base
		return &e
	}
	return err
}

// parseAttr reads a perf_event_attr: its size field says how long it is.
func (r *Reader) parseAttr(c *decode.Cursor) *Attr {
	start := c.Off()
	var fixed [attrRead]byte
	head := c.Bytes(attrSizeVer0)
	if head == nil {
		return &Attr{}
	}
	copy(fixed[:], head)
	size := uint64(binary.LittleEndian.Uint32(fixed[4:]))
	if size == 0 {
		size = attrSizeVer0
	}
	if size < attrSizeVer0 {
		c.FailAt(int64(start)+4, decode.ErrMalformed, "perf_event_attr size %d, less than the first version's %d", size, attrSizeVer0)
		return &Attr{}
	}
	more := c.Bytes(size - attrSizeVer0)
	copy(fixed[attrSizeVer0:], more)
	le := binary.LittleEndian
	return &Attr{
		Type:             le.Uint32(fixed[0:]),
		Size:             le.Uint32(fixed[4:]),
		Config:           le.Uint64(fixed[8:]),
		SamplePeriod:     le.Uint64(fixed[16:]),
		SampleType:       SampleType(le.Uint64(fixed[24:])),
		ReadFormat:       ReadFormat(le.Uint64(fixed[32:])),
		Flags:            le.Uint64(fixed[40:]),
		BranchSampleType: le.Uint64(fixed[72:]),
		SampleRegsUser:   le.Uint64(fixed[80:]),
		SampleStackUser:  le.Uint32(fixed[88:]),
		SampleRegsIntr:   le.Uint64(fixed[96:]),
	}
}

// addAttr checks an attribute against the others and indexes its ids.
func (r *Reader) addAttr(a *Attr, off int64) error {
	if a.SampleType&^sampleTypeKnownBits != 0 {
		return r.errorf("attrs", off+24, decode.ErrUnsupportedVersion, "sample_type %#x has bits this reader does not know (%#x)", uint64(a.SampleType), uint64(a.SampleType&^sampleTypeKnownBits))
	}
	if len(r.Attrs) > 0 {
		// perf requires what lets it find the id of any record before it
		// knows the event: the same id position and sample_id_all.
		f := r.Attrs[0]
		if idPos(f.SampleType) != idPos(a.SampleType) || trailerIDPos(f.SampleType) != trailerIDPos(a.SampleType) {
			return r.errorf("attrs", off+24, decode.ErrMalformed, "sample_type %#x places the sample id elsewhere than the first event's %#x", uint64(a.SampleType), uint64(f.SampleType))
		}
		if a.SampleIDAll() != f.SampleIDAll() {
			return r.errorf("attrs", off+40, decode.ErrMalformed, "sample_id_all differs from the first event's")
		}
	}
	r.Attrs = append(r.Attrs, a)
	for _, id := range a.IDs {
		if _, ok := r.byID[id]; !ok {
			r.byID[id] = a
		}
	}
	return nil
}

// idPos is the index (in u64s) of a sample's id, -1 if it has none.
func idPos(t SampleType) int {
	if t&SampleIdentifier != 0 {
		return 0
	}
	if t&SampleID == 0 {
		return -1
	}
	n := 0
	for _, b := range []SampleType{SampleIP, SampleTID, SampleTime, SampleAddr} {
		if t&b != 0 {
			n++
		}
	}
	return n
}

// trailerIDPos is the index of the id counted back from a non-sample
// record's end (1 is the last u64), 0 if the trailer has none.
func trailerIDPos(t SampleType) int {
	if t&SampleIdentifier != 0 {
		return 1
	}
	if t&SampleID == 0 {
		return 0
	}
	n := 1
	if t&SampleCPU != 0 {
		n++
	}
	if t&SampleStreamID != 0 {
		n++
	}
	return n
}

// trailerSize is the size of the sample_id trailer for t.
func trailerSize(t SampleType) int {
	n := 0
	for _, b := range []SampleType{SampleTID, SampleTime, SampleID, SampleStreamID, SampleCPU, SampleIdentifier} {
		if t&b != 0 {
			n += 8
		}
	}
	return n
}

// readFeatures reads the feature sections' table at off and the build-id
// section.
func (r *Reader) readFeatures(ra io.ReaderAt, fileSize int64, off uint64) error {
	n := 0
	for bit := 0; bit < 256; bit++ {
		if r.Features[bit/64]&(1<<(bit%64)) == 0 {
			continue
		}
		// Every feature's {offset, size}: the table and the sections it
		// points to lie within the file.
		tb, err := r.readAt(ra, fileSize, "feature sections", section{off + uint64(n)*16, 16})
		if err != nil {
			return err
		}
		sec := section{binary.LittleEndian.Uint64(tb), binary.LittleEndian.Uint64(tb[8:])}
		if sec.off > uint64(fileSize) || sec.size > uint64(fileSize)-sec.off {
			return r.errorf(fmt.Sprintf("feature %d's section", bit), int64(off)+int64(n)*16, decode.ErrTruncated, "section [%#x, +%#x) lies past the end of the file (%#x bytes)", sec.off, sec.size, fileSize)
		}
		if bit == FeatureBuildID {
			if err := r.readBuildIDs(bufio.NewReaderSize(io.NewSectionReader(ra, int64(sec.off), int64(sec.size)), 4096), int64(sec.off), int64(sec.size)); err != nil {
				return err
			}
		}
		n++
	}
	return nil
}

// A build_id_event: header, pid (s32), build_id[24] (20 bytes of id, its
// size in byte 20 when misc has MiscBuildIDSize), filename (NUL-padded to
// header.size).
const buildIDEventFixed = 8 + 4 + 24

func (r *Reader) readBuildIDs(br *bufio.Reader, base, size int64) error {
	buf := make([]byte, 8, 256)
	for at := int64(0); at < size; {
		h := buf[:8]
		if _, err := io.ReadFull(br, h); err != nil {
			return r.errorf("build-id feature", base+at, decode.ErrTruncated, "truncated build-id record header")
		}
		n := int64(binary.LittleEndian.Uint16(h[6:]))
		if n < buildIDEventFixed || n > size-at {
			return r.errorf("build-id feature", base+at, decode.ErrMalformed, "build-id record size %d, want %d to %d", n, buildIDEventFixed, size-at)
		}
		if int(n) > cap(buf) {
			buf = append(buf[:8], make([]byte, int(n)-8)...)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf[8:n]); err != nil {
			return r.errorf("build-id feature", base+at, decode.ErrTruncated, "truncated build-id record")
		}
		r.BuildIDs = append(r.BuildIDs, parseBuildID(buf[:n]))
		at += n
	}
	return nil
}

func parseBuildID(b []byte) BuildID {
	misc := binary.LittleEndian.Uint16(b[4:])
	id := b[12:32]
	if misc&MiscBuildIDSize != 0 && int(b[32]) <= len(id) {
		id = id[:b[32]]
	}
	name := b[buildIDEventFixed:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	return BuildID{
		PID:      int32(binary.LittleEndian.Uint32(b[8:])),
		CPUMode:  misc & MiscCPUModeMask,
		BuildID:  bytes.Clone(id),
		Filename: string(name),
	}
}

// Sniff reports whether b, a file's first bytes, starts as perf.data does
// (the magic in either byte order: a byte-swapped file is perf.data this
// package refuses with its own error).
func Sniff(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	m := binary.LittleEndian.Uint64(b)
	return m == Magic || m == bits.ReverseBytes64(Magic)
}
