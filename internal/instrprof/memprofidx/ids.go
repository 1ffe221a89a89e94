package memprofidx

import (
	"encoding/binary"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"lukechampine.com/blake3"
)

// FrameID returns LLVM's memprof::FrameId of f as computed by the given
// release: a golden-ratio hash_combine over (Function, LineOffset, Column,
// IsInlineFrame) up to LLVM 19, and the first 8 bytes of BLAKE3 over the
// 17-byte little-endian frame from LLVM 20 on (PR #109501).
func FrameID(release llvmrelease.Release, f memprof.Frame) uint64 {
	if !release.MemProfFrameID17Bytes() {
		var r uint64
		inl := uint64(0)
		if f.IsInlineFrame {
			inl = 1
		}
		for _, v := range [...]uint64{f.Function, uint64(f.LineOffset), uint64(f.Column), inl} {
			r ^= v + 0x9e3779b97f4a7c15 + (r << 6) + (r >> 2)
		}
		return r
	}
	var b [FrameSize]byte
	PutFrame(b[:], f)
	return truncatedBLAKE3(b[:])
}

func truncatedBLAKE3(b []byte) uint64 {
	sum := blake3.Sum256(b)
	return binary.LittleEndian.Uint64(sum[:8])
}

// FrameSize is the serialized size of a memprof::Frame.
const FrameSize = 17

// PutFrame writes f's FrameSize bytes to b: Function, LineOffset, Column
// (little-endian) and IsInlineFrame.
func PutFrame(b []byte, f memprof.Frame) {
	binary.LittleEndian.PutUint64(b[0:], f.Function)
	binary.LittleEndian.PutUint32(b[8:], f.LineOffset)
	binary.LittleEndian.PutUint32(b[12:], f.Column)
	b[16] = 0
	if f.IsInlineFrame {
		b[16] = 1
	}
}

// frameKey is a Frame without its display name, usable as a map key.
type frameKey struct {
	Function   uint64
	LineOffset uint32
	Column     uint32
	Inline     bool
}

func keyOf(f memprof.Frame) frameKey {
	return frameKey{f.Function, f.LineOffset, f.Column, f.IsInlineFrame}
}

var le = binary.LittleEndian

// GetFrame reads the frame PutFrame wrote at b (FrameSize bytes).
func GetFrame(b []byte) memprof.Frame {
	return memprof.Frame{
		Function:      binary.LittleEndian.Uint64(b),
		LineOffset:    binary.LittleEndian.Uint32(b[8:]),
		Column:        binary.LittleEndian.Uint32(b[12:]),
		IsInlineFrame: b[16] != 0,
	}
}
