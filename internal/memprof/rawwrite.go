package memprof

import (
	"encoding/binary"
	"fmt"
	"io"
)

// writeRaw writes p as a single raw dump of the given raw version (1–5), laid
// out as the compiler-rt runtime lays it out (section sizes rounded up to 8,
// v5 MIB section reserved as roundup8(8+N×152) + roundup8(2×ΣHistogram)),
// with zero padding. MIBs are written in p.MIBs order and stacks in
// p.StackIDs order (ids without a stack are skipped).
//
// Fields a version lacks are dropped; v5 histogram counters are encoded
// (lossy above 4095, see EncodeHistogramCount). Concatenating the output
// of several calls with the same segments gives a multi-dump file.
func (p *RawProfile) writeRaw(w io.Writer, version uint64) error {
	if version < minRawVersion || version > maxRawVersion {
		return fmt.Errorf("memprof: writeRaw: unsupported raw version %d", version)
	}
	segSize := segmentSizeV3
	if version < 3 {
		segSize = segmentSizeV1
	}
	segBytes := 8 + len(p.Segments)*segSize

	mibFixed := 8 + rawMIBSize[version]
	mibBytes := 8 + len(p.MIBs)*mibFixed
	var histCount int
	if version >= 4 {
		for i := range p.MIBs {
			histCount += len(p.MIBs[i].Info.Histogram)
		}
	}
	switch {
	case version == 5:
		mibBytes = roundUp8(mibBytes) + roundUp8(2*histCount)
	case version == 4:
		mibBytes = roundUp8(mibBytes + 8*histCount)
	default:
		mibBytes = roundUp8(mibBytes)
	}

	stackBytes := 8
	var nstacks int
	for _, id := range p.StackIDs {
		if pcs, ok := p.Stack(id); ok {
			stackBytes += 16 + 8*len(pcs)
			nstacks++
		}
	}
	stackBytes = roundUp8(stackBytes)

	total := rawHeaderSize + segBytes + mibBytes + stackBytes
	buf := make([]byte, 0, total)
	le := binary.LittleEndian
	buf = le.AppendUint64(buf, RawMagic)
	buf = le.AppendUint64(buf, version)
	buf = le.AppendUint64(buf, uint64(total))
	buf = le.AppendUint64(buf, rawHeaderSize)
	buf = le.AppendUint64(buf, uint64(rawHeaderSize+segBytes))
	buf = le.AppendUint64(buf, uint64(rawHeaderSize+segBytes+mibBytes))

	buf = le.AppendUint64(buf, uint64(len(p.Segments)))
	for _, s := range p.Segments {
		buf = le.AppendUint64(buf, s.Start)
		buf = le.AppendUint64(buf, s.End)
		buf = le.AppendUint64(buf, s.Offset)
		switch {
		case version >= 3:
			buf = le.AppendUint64(buf, min(s.BuildIDSize, buildIDMaxSize))
			buf = append(buf, s.BuildID[:]...)
		case s.BuildIDSize == 0:
			buf = append(buf, s.BuildID[:]...) // v1/v2 bytes as read
		default:
			// The v1/v2 runtime never filled build ids.
			buf = append(buf, make([]byte, buildIDMaxSize)...)
		}
	}

	mibStart := len(buf)
	buf = le.AppendUint64(buf, uint64(len(p.MIBs)))
	var packed [PackedMIBSize]byte
	for i := range p.MIBs {
		e := &p.MIBs[i]
		m := e.Info
		m.AccessHistogramSize = uint32(len(m.Histogram))
		m.PutPacked(&packed)
		buf = le.AppendUint64(buf, e.StackID)
		buf = append(buf, packed[:rawMIBSize[version]]...)
		if version >= 4 {
			for _, c := range m.Histogram {
				if version == 5 {
					buf = le.AppendUint16(buf, EncodeHistogramCount(c))
				} else {
					buf = le.AppendUint64(buf, c)
				}
			}
		}
	}
	buf = append(buf, make([]byte, mibStart+mibBytes-len(buf))...)

	buf = le.AppendUint64(buf, uint64(nstacks))
	for _, id := range p.StackIDs {
		pcs, ok := p.Stack(id)
		if !ok {
			continue
		}
		buf = le.AppendUint64(buf, id)
		buf = le.AppendUint64(buf, uint64(len(pcs)))
		for _, pc := range pcs {
			buf = le.AppendUint64(buf, pc)
		}
	}
	buf = append(buf, make([]byte, total-len(buf))...)
	_, err := w.Write(buf)
	return err
}

func roundUp8(n int) int { return (n + 7) &^ 7 }
