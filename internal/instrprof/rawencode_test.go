package instrprof

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// encodeRaw writes p as a raw profile of the given raw version (8, 9 or
// 10), little-endian, names stored uncompressed: the tests' and fuzz
// targets' way to build raw profiles in memory. Every record gets its
// NameRef as function pointer, so indirect-call values that are NameRefs of
// records (or 0) decode as they were. With VariantTemporalProf, the
// functions of p.Trace get timestamps 1, 2, ... in trace order (a
// function's nth entry stamps its nth record).
func encodeRaw(p *RawProfile, version int) []byte {
	var b []byte
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	recSize := uint64(48)
	numKinds := 2
	if version >= 9 {
		recSize = 64
	}
	if version >= 10 {
		numKinds = 3
	}
	byte1 := p.Variant&VariantByteCoverage != 0
	temporal := p.Variant&VariantTemporalProf != 0
	// Each trace entry stamps one record of its function, records in
	// order: so that two records of one name come back as they were.
	stamps := map[uint64][]uint64{}
	for i, ref := range p.Trace {
		stamps[ref] = append(stamps[ref], uint64(i+1))
	}
	stamp := func(ref uint64) uint64 {
		q := stamps[ref]
		if len(q) == 0 {
			return 0
		}
		stamps[ref] = q[1:]
		return q[0]
	}
	// Counters and bitmaps, record by record.
	var ctrs, bitmap []byte
	ctrOff := make([]uint64, len(p.Records))
	bmOff := make([]uint64, len(p.Records))
	for i, r := range p.Records {
		ctrOff[i] = uint64(len(ctrs))
		if temporal {
			ctrs = binary.LittleEndian.AppendUint64(ctrs, stamp(llvmname.GUID(r.Name)))
		}
		for _, c := range r.Counts {
			switch {
			case !byte1:
				ctrs = binary.LittleEndian.AppendUint64(ctrs, c)
			case c != 0:
				ctrs = append(ctrs, 0)
			default:
				ctrs = append(ctrs, 0xff)
			}
		}
		bmOff[i] = uint64(len(bitmap))
		bitmap = append(bitmap, r.Bitmap...)
	}
	var ids []byte
	for _, id := range p.BinaryIDs {
		ids = binary.LittleEndian.AppendUint64(ids, uint64(len(id)))
		ids = append(ids, id...)
		ids = append(ids, make([]byte, pad8(uint64(len(id))))...)
	}
	// One zero-size vtable per vtable-target value, at that value.
	var vtabs []uint64
	for _, r := range p.Records {
		for _, site := range r.Values[IPVKVTableTarget] {
			for _, v := range site {
				if v.Value != 0 && !slices.Contains(vtabs, v.Value) {
					vtabs = append(vtabs, v.Value)
				}
			}
		}
	}
	names := rawNames(p.Names)
	vnames := []byte(nil)
	if len(p.VTableNames) > 0 {
		vnames = rawNames(p.VTableNames)
	}
	padCtr := pad8(uint64(len(ctrs)))
	padBm := pad8(uint64(len(bitmap)))
	dataSize := recSize * uint64(len(p.Records))
	// CountersDelta and BitmapDelta: the sections' distance from the data.
	ctrDelta := dataSize
	bmDelta := dataSize + uint64(len(ctrs)) + padCtr

	u64(RawMagic)
	u64(p.Variant | uint64(version))
	u64(uint64(len(ids)))
	u64(uint64(len(p.Records)))
	u64(0)
	u64(uint64(len(ctrs)) / map[bool]uint64{true: 1, false: 8}[byte1])
	u64(padCtr)
	if version >= 9 {
		u64(uint64(len(bitmap)))
		u64(padBm)
	}
	u64(uint64(len(names)))
	u64(ctrDelta)
	if version >= 9 {
		u64(bmDelta)
	}
	u64(0) // NamesDelta
	if version >= 10 {
		u64(uint64(len(vtabs)))
		u64(uint64(len(vnames)))
	}
	u64(uint64(numKinds - 1))
	b = append(b, ids...)
	for i, r := range p.Records {
		at := uint64(i) * recSize
		start := len(b)
		ref := llvmname.GUID(r.Name)
		u64(ref)
		u64(r.Hash)
		u64(ctrOff[i] + ctrDelta - at)
		if version >= 9 {
			u64(bmOff[i] + bmDelta - at)
		}
		u64(ref) // FunctionPointer
		u64(0)   // Values
		n := len(r.Counts)
		if temporal {
			n += map[bool]int{true: 8, false: 1}[byte1]
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		for k := range numKinds {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Values[k])))
		}
		if version >= 9 {
			b = append(b, make([]byte, (4-(len(b)-start)%4)%4)...)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(r.Bitmap)))
		}
		b = append(b, make([]byte, start+int(recSize)-len(b))...)
	}
	b = append(b, ctrs...)
	b = append(b, make([]byte, padCtr)...)
	if version >= 9 {
		b = append(b, bitmap...)
		b = append(b, make([]byte, padBm)...)
	}
	b = append(b, names...)
	b = append(b, make([]byte, pad8(uint64(len(names))))...)
	if version >= 10 {
		for _, v := range vtabs {
			u64(v)
			u64(v)
			u64(0) // size 0, padding
		}
	}
	b = append(b, vnames...)
	b = append(b, make([]byte, pad8(uint64(len(vnames))))...)
	for _, r := range p.Records {
		has := false
		for k := range numKinds {
			has = has || len(r.Values[k]) > 0
		}
		if !has {
			continue
		}
		start := len(b)
		b = append(b, make([]byte, 8)...)
		kinds := 0
		for k := range numKinds {
			sites := r.Values[k]
			if len(sites) == 0 {
				continue
			}
			kinds++
			b = binary.LittleEndian.AppendUint32(b, uint32(k))
			b = binary.LittleEndian.AppendUint32(b, uint32(len(sites)))
			for _, s := range sites {
				b = append(b, uint8(len(s)))
			}
			b = append(b, make([]byte, pad8(uint64(8+len(sites))))...)
			for _, s := range sites {
				for _, v := range s {
					b = binary.LittleEndian.AppendUint64(b, v.Value)
					b = binary.LittleEndian.AppendUint64(b, v.Count)
				}
			}
		}
		binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start))
		binary.LittleEndian.PutUint32(b[start+4:], uint32(kinds))
	}
	return b
}

// rawNames is a stored (uncompressed) name block.
func rawNames(names []string) []byte {
	s := strings.Join(names, "\x01")
	b := binary.AppendUvarint(nil, uint64(len(s)))
	b = append(b, 0)
	return append(b, s...)
}
