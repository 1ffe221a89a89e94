package instrprof

// Temporal profiling traces, kept as llvm-profdata merge keeps them. Two
// algorithms, both drawing from the writer's std::mt19937, default-seeded
// (5489), through libstdc++'s std::uniform_int_distribution<uint64_t>, so
// one llvm-profdata writer (--num-threads=1, inputs added in the order
// given) is deterministic:
//
// LLVM 19 (InstrProfWriter::addTemporalProfileTrace and
// addTemporalProfileTraces as released in 19.1): the first ReservoirSize
// traces are kept in order; after that, trace number S of the stream
// (0-based) draws a slot uniformly from [0, S] and replaces the kept trace
// there if the slot is below the reservoir size (reservoir sampling). A
// sampled indexed input draws a slot per trace of its stream and fills
// the slots with its traces shuffled (addTraces19).
//
// LLVM 22 (what libLLVM.so.22.1's addTemporalProfileTraces does; its
// addTemporalProfileTrace is gone): every input, a raw profile's single
// trace (stream size 1) as an indexed profile's traces, goes through one
// routine that first fills the reservoir with the source's traces in
// order, shuffles the rest, and then, for I from the number kept up to
// the source's stream size, draws a slot in [0, I] and puts the next
// shuffled trace there if the slot is below the number kept. The stream
// size only grows by the source's. A raw trace arriving once the
// reservoir is full is therefore dropped (its stream size, 1, is never
// above the number kept): of 150 raws, llvm-profdata-22 keeps the first
// 100 (addTraces22).
//
// Both reproduce llvm-profdata-N --num-threads=1 byte for byte
// (TestTemporalReservoir). With more threads llvm-profdata samples per
// thread and merges the writers, so its output depends on the thread
// count and the machine; ours is always the one-writer result over the
// inputs in canonical (sorted path) order, whatever their order on the
// command line or -j.

// maxTraceLength is the --temporal-profile-max-trace-length in effect.
func (p *FuncProfile) maxTraceLength() uint64 {
	if p.MaxTraceLength == 0 {
		return MaxTraceLength
	}
	return p.MaxTraceLength
}

func (p *FuncProfile) reservoirSize() uint64 {
	if p.ReservoirSize == 0 {
		return TraceReservoirSize
	}
	return p.ReservoirSize
}

// draw is std::uniform_int_distribution<uint64_t>(0, hi)(RNG).
func (p *FuncProfile) draw(hi uint64) uint64 {
	if p.rng == nil {
		p.rng = newMT19937(5489)
	}
	return p.rng.uniform(hi)
}

// addTrace is addTemporalProfileTrace: a non-empty trace (at most the
// maximum length) joins the reservoir, or replaces a random one once it
// is full.
func (p *FuncProfile) addTrace(t TemporalTrace) {
	if p.TraceStreamSize < p.reservoirSize() {
		p.Traces = append(p.Traces, t)
	} else if i := p.draw(p.TraceStreamSize); i < uint64(len(p.Traces)) {
		p.Traces[i] = t
	}
	p.TraceStreamSize++
}

// addTraces adds the traces of a source that saw srcStream traces (an
// indexed input's, or a raw profile's one trace with srcStream 1), the
// traces already cut to the maximum length and the empty ones dropped.
func (p *FuncProfile) addTraces(src []TemporalTrace, srcStream uint64) {
	if p.Traces22 {
		p.addTraces22(src, srcStream)
		return
	}
	p.addTraces19(src, srcStream)
}

// addTraces22 is LLVM 22's addTemporalProfileTraces (see the top of this
// file): fill the reservoir in order, shuffle the rest of the source,
// then replace at random for the rest of the source's stream.
func (p *FuncProfile) addTraces22(src []TemporalTrace, srcStream uint64) {
	res := p.reservoirSize()
	if uint64(len(p.Traces)) > res {
		p.Traces = p.Traces[:res]
	}
	if len(src) == 0 {
		return
	}
	i := 0
	for ; uint64(len(p.Traces)) < res && i < len(src); i++ {
		p.Traces = append(p.Traces, src[i])
	}
	rest := p.shuffle(src[i:])
	for n := uint64(len(p.Traces)); n < srcStream && len(rest) > 0; n++ {
		if j := p.draw(n); j < uint64(len(p.Traces)) {
			p.Traces[j] = rest[0]
			rest = rest[1:]
		}
	}
	p.TraceStreamSize += srcStream
}

// addTraces19 is LLVM 19's addTemporalProfileTraces: the traces of a
// source (an indexed input) that saw srcStream traces. If only the source was
// sampled (its stream exceeds the reservoir) the two swap roles. An
// unsampled source adds its traces one by one; a sampled one draws, for
// each trace of its stream, the slot it would have replaced, and fills the
// distinct slots drawn, in the order first drawn, with its traces shuffled
// (llvm::shuffle).
func (p *FuncProfile) addTraces19(src []TemporalTrace, srcStream uint64) {
	res := p.reservoirSize()
	dstSampled, srcSampled := p.TraceStreamSize > res, srcStream > res
	if !dstSampled && srcSampled {
		p.Traces, src = src, p.Traces
		p.TraceStreamSize, srcStream = srcStream, p.TraceStreamSize
		srcSampled = false
	}
	if !srcSampled {
		for _, t := range src {
			p.addTrace(t)
		}
		return
	}
	var slots []uint64
	seen := map[uint64]bool{}
	for range srcStream {
		if i := p.draw(p.TraceStreamSize); i < uint64(len(p.Traces)) && !seen[i] {
			seen[i] = true
			slots = append(slots, i)
		}
		p.TraceStreamSize++
	}
	src = p.shuffle(src)
	for j := range min(len(slots), len(src)) {
		p.Traces[slots[j]] = src[j]
	}
}

// shuffle returns a copy of ts in llvm::shuffle's order over the writer's
// generator: for each position but the last, swap with one g() % n ahead.
func (p *FuncProfile) shuffle(ts []TemporalTrace) []TemporalTrace {
	ts = append([]TemporalTrace(nil), ts...)
	for n := uint64(len(ts)); n > 1; n-- {
		k := uint64(len(ts)) - n
		if off := uint64(p.rngNext()) % n; off != 0 {
			ts[k], ts[k+off] = ts[k+off], ts[k]
		}
	}
	return ts
}

func (p *FuncProfile) rngNext() uint32 {
	if p.rng == nil {
		p.rng = newMT19937(5489)
	}
	return p.rng.next()
}

// mt19937 is std::mt19937, the 32-bit Mersenne Twister.
type mt19937 struct {
	s [624]uint32
	i int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{i: 624}
	m.s[0] = seed
	for i := 1; i < 624; i++ {
		m.s[i] = 1812433253*(m.s[i-1]^m.s[i-1]>>30) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.i >= 624 {
		for k := range 624 {
			y := m.s[k]&0x80000000 | m.s[(k+1)%624]&0x7fffffff
			v := m.s[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.s[k] = v
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// uniform is libstdc++'s uniform_int_distribution<uint64_t>(0, hi) over a
// 32-bit generator: below 2^32-1, Lemire's nearly divisionless
// downscaling (_S_nd, libstdc++ 11 and later); above, upscaling by
// 2^32-wide digits with rejection; 2^32-1, the raw output.
func (m *mt19937) uniform(hi uint64) uint64 {
	const rngRange = 1<<32 - 1
	switch {
	case hi < rngRange:
		r := uint32(hi) + 1
		prod := uint64(m.next()) * uint64(r)
		if low := uint32(prod); low < r {
			threshold := -r % r
			for low < threshold {
				prod = uint64(m.next()) * uint64(r)
				low = uint32(prod)
			}
		}
		return prod >> 32
	case hi > rngRange:
		for {
			tmp := (rngRange + 1) * m.uniform(hi/(rngRange+1))
			ret := tmp + uint64(m.next())
			if ret <= hi && ret >= tmp {
				return ret
			}
		}
	default:
		return uint64(m.next())
	}
}
