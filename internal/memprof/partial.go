package memprof

// Partial state: what makes a sharded merge of allocation contexts exact.
//
// Merging contexts (MemInfoBlock.Merge) is a sequential fold whose cross
// terms compare the block merged so far with the next block: its
// AllocTimestamp (NumLifetimeOverlaps), AllocCpuId (NumSameAllocCpu) and
// DeallocCpuId (NumSameDeallocCpu). The counters themselves are not summed:
// the merged block keeps its first block's and adds one per cross term. A
// partial profile (the merge of a contiguous run of the inputs) keeps only
// its last block's timestamps and CPU ids, so merging it on as a plain
// block would compare with its last block instead of its first, and would
// drop its own cross terms. The fold is associative when a partial also
// carries, per allocation context, its first block's AllocTimestamp,
// AllocCpuId, DeallocCpuId and its three counters (PartialState):
// MergePartial then applies the cross terms against the first block, adds
// the partial's own (its counters minus the first block's, modulo 2^32
// as the counters wrap) and takes its last block's state.
//
// The states of a partial profile travel in a sidecar file (merge
// --memprof-partial-state-output writes it, --memprof-partial-input reads
// it back with its profile), not inside the indexed profile: clang reads
// the partial unchanged, and the final profile has the one-action bytes.
// The sidecar format, version 1, little-endian:
//
//	magic   "RPGOMPST" (8 bytes)
//	version u32 = 1
//	count   u32: number of entries
//	profile [32]byte: the SHA-256 of the partial profile file it belongs
//	        to (a state given with another profile is refused)
//	entries count × 32 bytes, in strictly increasing key order:
//	  key u64: StackKey of the context's call stack
//	  AllocTimestamp, AllocCpuId, DeallocCpuId,
//	  NumLifetimeOverlaps, NumSameAllocCpu, NumSameDeallocCpu u32
//
// A call stack is one context whichever records list it (the converter
// merges a stack's sites into one block), so the key is the stack alone.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// PartialState is what a partial profile's merged block needs besides
// itself to be merged on exactly: its first block's cross-term inputs and
// counters.
type PartialState struct {
	AllocTimestamp, AllocCpuId, DeallocCpuId                uint32
	NumLifetimeOverlaps, NumSameAllocCpu, NumSameDeallocCpu uint32
}

// FirstState returns the state of a block that is its own first block.
func FirstState(b *MemInfoBlock) PartialState {
	return PartialState{b.AllocTimestamp, b.AllocCpuId, b.DeallocCpuId,
		b.NumLifetimeOverlaps, b.NumSameAllocCpu, b.NumSameDeallocCpu}
}

// MergePartial folds p, the merge of a run of blocks whose first block has
// state first, into m: the result is what folding the run's blocks one by
// one (Merge) gives.
func (m *MemInfoBlock) MergePartial(p *MemInfoBlock, first PartialState) {
	q := *p // Merge only reads q (it copies a longer histogram)
	q.AllocTimestamp, q.AllocCpuId, q.DeallocCpuId = first.AllocTimestamp, first.AllocCpuId, first.DeallocCpuId
	m.Merge(&q)
	m.AllocTimestamp, m.AllocCpuId, m.DeallocCpuId = p.AllocTimestamp, p.AllocCpuId, p.DeallocCpuId
	m.NumLifetimeOverlaps += p.NumLifetimeOverlaps - first.NumLifetimeOverlaps
	m.NumSameAllocCpu += p.NumSameAllocCpu - first.NumSameAllocCpu
	m.NumSameDeallocCpu += p.NumSameDeallocCpu - first.NumSameDeallocCpu
}

// StackKey is the sidecar key of a call stack: the first 8 bytes of the
// SHA-256 of its frames. EncodePartialStates refuses two stacks with one
// key, so a key names one stack of its partial profile.
func StackKey(frames []Frame) uint64 {
	h := sha256.New()
	b := make([]byte, 0, 17)
	for _, f := range frames {
		// The 17 bytes of a Frame (function, line offset, column, inline).
		b, _ = binary.Append(b[:0], binary.LittleEndian, f)
		h.Write(b)
	}
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

const (
	partialMagic     = "RPGOMPST"
	partialVersion   = 1
	partialEntrySize = 32
	partialHeader    = 48
)

// SetPartialProfile records in an encoded sidecar the SHA-256 of the
// partial profile file it belongs to (EncodePartialStates leaves it zero:
// the profile is written after it).
func SetPartialProfile(side []byte, profile []byte) {
	sum := sha256.Sum256(profile)
	SetPartialSum(side, sum[:])
}

// SetPartialSum is SetPartialProfile given the profile's SHA-256.
func SetPartialSum(side []byte, sum []byte) {
	copy(side[16:partialHeader], sum)
}

// PartialStates maps StackKey to the state of that context.
type PartialStates map[uint64]PartialState

// EncodePartialStates encodes the states of the contexts of p, looked up
// by call stack with state (which is called once per distinct stack).
func EncodePartialStates(p *Profile, state func(stack []Frame) PartialState) ([]byte, error) {
	c := Intern(p)
	c.First = make([]PartialState, c.NumStacks())
	for _, a := range c.AllocSites {
		c.First[a.Stack] = state(c.StackFrameList(a.Stack))
	}
	return c.EncodePartialStates()
}

// EncodePartialStates encodes the states of c's contexts: c.First (zero
// states if it is nil).
func (c *Compact) EncodePartialStates() ([]byte, error) {
	type entry struct {
		key uint64
		st  PartialState
	}
	done := make([]bool, c.NumStacks())
	seen := map[uint64]bool{}
	var es []entry
	for _, a := range c.AllocSites {
		if done[a.Stack] {
			continue
		}
		done[a.Stack] = true
		k := StackKey(c.StackFrameList(a.Stack))
		if seen[k] { // the stacks of a Compact are distinct
			return nil, fmt.Errorf("two call stacks share the partial-state key %#x", k)
		}
		seen[k] = true
		var st PartialState
		if int(a.Stack) < len(c.First) {
			st = c.First[a.Stack]
		}
		es = append(es, entry{k, st})
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.key < b.key {
			return -1
		}
		if a.key > b.key {
			return 1
		}
		return 0
	})
	out := make([]byte, 0, partialHeader+partialEntrySize*len(es))
	out = append(out, partialMagic...)
	out = binary.LittleEndian.AppendUint32(out, partialVersion)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(es)))
	out = append(out, make([]byte, 32)...) // SetPartialProfile
	for _, e := range es {
		out = binary.LittleEndian.AppendUint64(out, e.key)
		for _, v := range []uint32{e.st.AllocTimestamp, e.st.AllocCpuId, e.st.DeallocCpuId,
			e.st.NumLifetimeOverlaps, e.st.NumSameAllocCpu, e.st.NumSameDeallocCpu} {
			out = binary.LittleEndian.AppendUint32(out, v)
		}
	}
	return out, nil
}

// DecodePartialStates decodes a sidecar written by EncodePartialStates
// and returns its states and the SHA-256 of the profile it belongs to;
// file names it in errors (*decode.Error).
func DecodePartialStates(file string, data []byte) (PartialStates, [32]byte, error) {
	var sum [32]byte
	st, err := decodePartialStates(file, data, &sum)
	return st, sum, err
}

func decodePartialStates(file string, data []byte, sum *[32]byte) (PartialStates, error) {
	c := decode.NewCursor("memprof", file, "partial state", data, 0)
	if string(c.Bytes(8)) != partialMagic {
		if c.Err() != nil {
			return nil, c.Err()
		}
		return nil, c.Errorf(0, decode.ErrBadMagic, "want %q (a MemProf partial state from merge --memprof-partial-state-output)", partialMagic)
	}
	if v := c.U32(); c.Err() == nil && v != partialVersion {
		return nil, c.Errorf(8, decode.ErrUnsupportedVersion, "version %d, want %d", v, partialVersion)
	}
	n := c.U32()
	copy(sum[:], c.Bytes(32))
	if c.Err() != nil {
		return nil, c.Err()
	}
	if uint64(n)*partialEntrySize != uint64(c.Remaining()) {
		return nil, c.Errorf(12, decode.ErrMalformed, "%d entries need %d bytes, have %d", n, uint64(n)*partialEntrySize, c.Remaining())
	}
	out := make(PartialStates, n)
	var last uint64
	for i := range n {
		at := c.Off()
		k := c.U64()
		if i > 0 && k <= last {
			return nil, c.Errorf(int64(at), decode.ErrMalformed, "key %#x after %#x: keys must increase", k, last)
		}
		last = k
		out[k] = PartialState{c.U32(), c.U32(), c.U32(), c.U32(), c.U32(), c.U32()}
	}
	if c.Err() != nil {
		return nil, c.Err()
	}
	return out, nil
}
