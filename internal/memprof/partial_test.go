package memprof

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// TestMergePartial: folding a run of blocks one by one (Merge) equals
// folding a prefix, then the rest merged on its own as a partial
// (MergePartial with its first block's state), for every cut; blocks with
// overlapping lifetimes and changing CPUs make the cross terms count.
// (internal/profmerge TestShardedMemProf checks the same on real profiles.)
func TestMergePartial(t *testing.T) {
	var blocks []MemInfoBlock
	for i := range 7 {
		blocks = append(blocks, MemInfoBlock{AllocCount: uint32(i + 1), TotalSize: 10,
			AllocTimestamp: uint32(10 * i), DeallocTimestamp: uint32(10*i + 15 - i%3*5),
			AllocCpuId: uint32(i % 3 / 2), DeallocCpuId: uint32(i % 2), NumLifetimeOverlaps: uint32(i % 2),
			NumSameAllocCpu: uint32(i), NumSameDeallocCpu: 1, AccessHistogramSize: uint32(i % 3), Histogram: make([]uint64, i%3)})
	}
	fold := func(bs []MemInfoBlock) *MemInfoBlock {
		m := bs[0].clone()
		for i := range bs[1:] {
			m.Merge(&bs[1+i])
		}
		return m
	}
	want := fmt.Sprintf("%+v", *fold(blocks))
	for cut := 1; cut < len(blocks); cut++ {
		m := fold(blocks[:cut])
		m.MergePartial(fold(blocks[cut:]), FirstState(&blocks[cut]))
		if got := fmt.Sprintf("%+v", *m); got != want {
			t.Errorf("cut at %d:\n got %s\nwant %s", cut, got, want)
		}
	}
}

// TestPartialStatesBad: the sidecar decoder's errors.
func TestPartialStatesBad(t *testing.T) {
	p := &Profile{Records: []*Record{{GUID: 1, AllocSites: []AllocationInfo{
		{CallStack: []Frame{{Function: 1}}}, {CallStack: []Frame{{Function: 2, IsInlineFrame: true}}}}}}}
	good, err := EncodePartialStates(p, func(s []Frame) PartialState { return PartialState{AllocTimestamp: uint32(s[0].Function)} })
	if err != nil {
		t.Fatal(err)
	}
	SetPartialProfile(good, []byte("profile"))
	st, sum, err := DecodePartialStates("s", good)
	if err != nil || sum != sha256.Sum256([]byte("profile")) || len(st) != 2 || st[StackKey(p.Records[0].AllocSites[1].CallStack)].AllocTimestamp != 2 {
		t.Fatalf("round trip: %v, %v", st, err)
	}
	swapped := bytes.Clone(good)
	copy(swapped[48:80], good[80:112])
	copy(swapped[80:112], good[48:80])
	version := bytes.Clone(good)
	binary.LittleEndian.PutUint32(version[8:], 2)
	for _, c := range []struct {
		name string
		data []byte
		kind error
	}{
		{"empty", nil, decode.ErrTruncated},
		{"magic", append([]byte("RPGOMPSX"), good[8:]...), decode.ErrBadMagic},
		{"version", version, decode.ErrUnsupportedVersion},
		{"short", good[:len(good)-1], decode.ErrMalformed},
		{"long", append(bytes.Clone(good), 0), decode.ErrMalformed},
		{"order", swapped, decode.ErrMalformed},
	} {
		_, _, err := DecodePartialStates("s", c.data)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.kind)
			continue
		}
		checkDecodeError(t, err, "memprof", "s")
	}
}

// FuzzDecodePartialStates: the sidecar decoder never panics, its errors
// are *decode.Error values, and what it accepts re-encodes to the same
// bytes.
func FuzzDecodePartialStates(f *testing.F) {
	p := &Profile{Records: []*Record{{GUID: 1, AllocSites: []AllocationInfo{{CallStack: []Frame{{Function: 1}}}}}}}
	seed, err := EncodePartialStates(p, func([]Frame) PartialState { return PartialState{1, 2, 3, 4, 5, 6} })
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		st, _, err := DecodePartialStates("fuzz", data)
		if err != nil {
			checkDecodeError(t, err, "memprof", "fuzz")
			return
		}
		if len(st) != int(binary.LittleEndian.Uint32(data[12:])) {
			t.Fatalf("%d states from a count of %d", len(st), binary.LittleEndian.Uint32(data[12:]))
		}
	})
}
