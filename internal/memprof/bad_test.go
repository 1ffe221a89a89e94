package memprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// smallRaw builds a small v4 profile: one segment, two MIBs (one with a
// 4-entry histogram), two stacks.
func smallRaw() *RawProfile {
	seg := SegmentEntry{Start: 0x200000, End: 0x2aeda0, BuildIDSize: 20}
	copy(seg.BuildID[:], "0123456789abcdefghij")
	p := &RawProfile{
		Name:     "small",
		Version:  4,
		Segments: []SegmentEntry{seg},
		MIBs: []MIBEntry{
			{StackID: 1, Info: MemInfoBlock{AllocCount: 1, TotalSize: 10, MinSize: 10, MaxSize: 10, TotalLifetimeAccessDensity: 20000,
				AccessHistogramSize: 4, Histogram: []uint64{1, 2, 3, 255}}},
			{StackID: 2, Info: MemInfoBlock{AllocCount: 3, TotalSize: 30, TotalLifetime: 5, AllocCpuId: 1, DeallocCpuId: 1}},
		},
	}
	p.setStack(1, []uint64{0x2839cf, 0x2aea4f})
	p.setStack(2, []uint64{0x2839d0, 0x2aea50, 0x7f0000001234})
	return p
}

func smallRawBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := smallRaw().writeRaw(&b, 4); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Layout of smallRawBytes: header 0..48, segments 48..120 (count at 48,
// BuildIdSize at 48+8+24), MIBs 120..464 (count at 120, first histogram
// size at 120+8+8+132), stacks 464..544 (count at 464, first NumPCs at 480).
const (
	smallSegOff   = 48
	smallMIBOff   = 120
	smallHistOff  = smallMIBOff + 8 + 8 + 132
	smallStackOff = 464
	smallSize     = 544
)

func put64(b []byte, off int, v uint64) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(c[off:], v)
	return c
}

func put32(b []byte, off int, v uint32) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func TestSmallRawLayout(t *testing.T) {
	b := smallRawBytes(t)
	if len(b) != smallSize {
		t.Fatalf("len = %d, want %d", len(b), smallSize)
	}
	le := binary.LittleEndian
	if got := le.Uint64(b[32:]); got != smallMIBOff {
		t.Errorf("MIBOffset = %d, want %d", got, smallMIBOff)
	}
	if got := le.Uint64(b[40:]); got != smallStackOff {
		t.Errorf("StackOffset = %d, want %d", got, smallStackOff)
	}
	if got := le.Uint32(b[smallHistOff:]); got != 4 {
		t.Errorf("histogram size at %d = %d, want 4", smallHistOff, got)
	}
	p, err := ReadRaw("small", b)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, p)
}

func TestReadRawBadInput(t *testing.T) {
	good := smallRawBytes(t)
	other := smallRaw()
	other.Segments[0].End++
	var otherBytes bytes.Buffer
	other.writeRaw(&otherBytes, 4)
	diffStack := smallRaw()
	diffStack.setStack(2, []uint64{0x2839d0, 0x99})
	var diffStackBytes bytes.Buffer
	diffStack.writeRaw(&diffStackBytes, 4)

	tests := []struct {
		name string
		data []byte
		kind error
		want []string
	}{
		{"empty", nil, decode.ErrBadMagic, []string{"header at offset 0x0", "shorter than 8 bytes"}},
		{"short", good[:7], decode.ErrBadMagic, []string{"shorter than 8 bytes"}},
		{"bad magic", put64(good, 0, 0x1234), decode.ErrBadMagic, []string{"want magic 0xff6d70726f667281, found 0x1234"}},
		{"magic only", good[:8], decode.ErrTruncated, []string{"need 48 bytes, have 8"}},
		{"version 0", put64(good, 8, 0), decode.ErrUnsupportedVersion, []string{"offset 0x8", "unsupported version 0"}},
		{"version 6", put64(good, 8, 6), decode.ErrUnsupportedVersion, []string{"unsupported version 6 (supported: 1 to 5)"}},
		{"total size too big", put64(good, 16, smallSize+8), decode.ErrMalformed, []string{"offset 0x10", "TotalSize 552", "544 bytes left"}},
		{"total size zero", put64(good, 16, 0), decode.ErrMalformed, []string{"TotalSize 0"}},
		{"trailing bytes", append(append([]byte(nil), good...), 1, 2, 3, 4, 5, 6, 7, 8), decode.ErrTruncated, []string{"offset 0x220", "need 48 bytes, have 8"}},
		{"second dump bad magic", append(append([]byte(nil), good...), make([]byte, 48)...), decode.ErrBadMagic, []string{"offset 0x220", "found 0x0"}},
		{"MIB offset past end", put64(good, 32, smallSize), decode.ErrMalformed, []string{"offset 0x20", "MIBOffset 544"}},
		{"segment count 2^40", put64(good, smallSegOff, 1<<40), decode.ErrTruncated, []string{"segment section at offset 0x30", "segment count 1099511627776 needs at least 70368744177664 bytes"}},
		{"MIB count 2^40", put64(good, smallMIBOff, 1<<40), decode.ErrTruncated, []string{"MIB section at offset 0x78", "MIB count 1099511627776"}},
		{"MIB count 2^64-1", put64(good, smallMIBOff, ^uint64(0)), decode.ErrTruncated, []string{"2^64 or more"}},
		{"MIB count one too many", put64(good, smallMIBOff, 3), decode.ErrTruncated, []string{"MIB section"}},
		{"histogram size huge", put32(good, smallHistOff, 1<<31), decode.ErrTruncated, []string{"AccessHistogramSize 2147483648 needs 17179869184 bytes"}},
		{"build id size 33", put64(good, smallSegOff+8+24, 33), decode.ErrMalformed, []string{"BuildIdSize 33, want at most 32"}},
		{"stack count 2^40", put64(good, smallStackOff, 1<<40), decode.ErrTruncated, []string{"stack section at offset 0x1d0"}},
		{"NumPCs 2^40", put64(good, smallStackOff+16, 1<<40), decode.ErrTruncated, []string{"stack section", "1099511627776 PCs"}},
		{"different segments", append(append([]byte(nil), good...), otherBytes.Bytes()...), decode.ErrMalformed, []string{"memprof raw profile has different segment information", "0x2aeda1"}},
		{"different call stack", append(append([]byte(nil), good...), diffStackBytes.Bytes()...), decode.ErrMalformed, []string{"memprof raw profile got different call stack for same id 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ReadRaw("bad.memprofraw", tt.data)
			if err == nil {
				t.Fatalf("ReadRaw succeeded (%d MIBs), want error", len(p.MIBs))
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			var fe *decode.Error
			if !errors.As(err, &fe) || fe.File != "bad.memprofraw" || fe.Format != "memprof" {
				t.Errorf("error %q is not a memprof *decode.Error naming the file", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestReadRawHugeCountsAllocateNothing: a 4 KB file claiming 2^40 MIBs
// fails without allocating for them.
func TestReadRawHugeCountsAllocateNothing(t *testing.T) {
	data := make([]byte, 4096)
	copy(data, put64(put64(smallRawBytes(t), smallMIBOff, 1<<40), 16, 4096))
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := ReadRaw("huge", data); err == nil {
			t.Fatal("ReadRaw succeeded")
		}
	})
	if allocs > 40 {
		t.Errorf("ReadRaw made %v allocations on a 4 KB file, want few", allocs)
	}
}

func TestMultiDumpMerge(t *testing.T) {
	a := smallRaw()
	b := smallRaw()
	// Second dump: stack 2 seen again with new statistics, stack 3 new.
	b.MIBs = []MIBEntry{
		{StackID: 3, Info: MemInfoBlock{AllocCount: 1, TotalSize: 7}},
		{StackID: 2, Info: MemInfoBlock{AllocCount: 2, TotalSize: 20, MinSize: 4, TotalLifetime: 1, AllocTimestamp: 3, DeallocTimestamp: 9, AllocCpuId: 1, DeallocCpuId: 2}},
		{StackID: 1, Info: MemInfoBlock{AllocCount: 1, AccessHistogramSize: 6, Histogram: []uint64{10, 10, 10, 10, 10, 10}}},
	}
	s1, _ := b.Stack(1)
	s2, _ := b.Stack(2)
	b.StackIDs, b.stacks, b.stackIdx = nil, nil, nil
	b.setStack(3, []uint64{0x2839d8})
	b.setStack(2, s2)
	b.setStack(1, s1)
	var buf bytes.Buffer
	a.writeRaw(&buf, 4)
	b.writeRaw(&buf, 4)
	p, err := ReadRaw("multi", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, m := range p.MIBs {
		ids = append(ids, m.StackID)
	}
	if want := []uint64{1, 2, 3}; !slices.Equal(ids, want) {
		t.Errorf("MIB order = %v, want %v (first seen)", ids, want)
	}
	m2 := p.MIBs[1].Info
	if m2.AllocCount != 5 || m2.TotalSize != 50 || m2.NumSameAllocCpu != 1 || m2.NumSameDeallocCpu != 0 ||
		m2.DeallocCpuId != 2 || m2.AllocTimestamp != 3 || m2.MinSize != 0 || m2.NumLifetimeOverlaps != 0 {
		t.Errorf("merged MIB 2 = %+v", m2)
	}
	if h := p.MIBs[0].Info.Histogram; !slices.Equal(h, []uint64{11, 12, 13, 265, 10, 10}) || p.MIBs[0].Info.AccessHistogramSize != 6 {
		t.Errorf("merged histogram = %v (size %d), want [11 12 13 265 10 10]", h, p.MIBs[0].Info.AccessHistogramSize)
	}
	if !slices.Equal(p.StackIDs, []uint64{1, 2, 3}) {
		t.Errorf("StackIDs = %v", p.StackIDs)
	}
}

func TestHistogramEncoding(t *testing.T) {
	for _, v := range []uint64{0, 1, 100, 4095, 4096, 5000, 8191, 65535, 1000000, 134213640, 200000000} {
		enc := EncodeHistogramCount(v)
		dec := DecodeHistogramCount(enc)
		want := min(v, HistogramMaxRepresentable)
		diff := int64(dec) - int64(want)
		if diff < 0 {
			diff = -diff
		}
		if uint64(diff) > want/1024 {
			t.Errorf("decode(encode(%d)) = %d (encoded %#x), error above value/1024", v, dec, enc)
		}
		if v <= 4095 && dec != v {
			t.Errorf("decode(encode(%d)) = %d, want exact", v, dec)
		}
		if again := DecodeHistogramCount(EncodeHistogramCount(dec)); again != dec {
			t.Errorf("re-encoding %d gives %d", dec, again)
		}
	}
	if got := EncodeHistogramCount(4096); got != 1<<12|2048 {
		t.Errorf("EncodeHistogramCount(4096) = %#x, want %#x", got, 1<<12|2048)
	}
	if got := EncodeHistogramCount(1 << 40); DecodeHistogramCount(got) != HistogramMaxRepresentable {
		t.Errorf("EncodeHistogramCount(2^40) does not saturate: %#x", got)
	}
}
