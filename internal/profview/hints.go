// Package profview shows MemProf profiles the way a user reads them before
// rebuilding: the allocation type (hint) clang will derive for every
// allocation context with a release's thresholds and the numbers that
// decided it (Hints, WriteHints), the profile as a pprof profile
// (Profile), and a self-contained HTML report with a flame graph
// (WriteHTML). Sample profiles have a pprof view too (SampleProfile).
//
// The classification is llvm::memprof::getAllocType of the release:
// LLVM 16 (MemoryProfileInfo.cpp): cold when MaxAccessCount/MinSize <
// -memprof-accesses-per-byte-cold-threshold and MinLifetime >=
// -memprof-min-lifetime-cold-threshold s; LLVM 17–19: cold when the
// average lifetime access density (TotalLifetimeAccessDensity/AllocCount/
// 100, accesses per byte per second) is below
// -memprof-lifetime-access-density-cold-threshold and the average
// lifetime (TotalLifetime/AllocCount, ms) is at least
// -memprof-ave-lifetime-cold-threshold s, else hot when the density is
// above -memprof-min-ave-lifetime-access-density-hot-threshold; LLVM 20+
// (MemProfCommon.cpp) the same, but hot only with -memprof-use-hot-hints.
// Arithmetic is single precision, as LLVM's (float) casts make it.
package profview

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"lukechampine.com/blake3"
)

// AllocType is llvm::memprof::AllocationType.
type AllocType uint8

const (
	NotCold AllocType = 1
	Cold    AllocType = 2
	Hot     AllocType = 4
)

// AllocTypes lists the types in the order reports print them.
var AllocTypes = []AllocType{Cold, NotCold, Hot}

// String is the spelling of !memprof metadata and the "memprof" attribute.
func (t AllocType) String() string {
	switch t {
	case Cold:
		return "cold"
	case Hot:
		return "hot"
	case NotCold:
		return "notcold"
	}
	return fmt.Sprintf("AllocType(%d)", t)
}

// Thresholds are the -memprof-* options of clang (passed with -mllvm)
// that classify a context, for one LLVM release.
type Thresholds struct {
	Release llvmrelease.Release

	// LLVM 17+.
	LifetimeAccessDensityCold      float32 // -memprof-lifetime-access-density-cold-threshold (0.05)
	AveLifetimeCold                uint32  // -memprof-ave-lifetime-cold-threshold, seconds (200)
	MinAveLifetimeAccessDensityHot uint32  // -memprof-min-ave-lifetime-access-density-hot-threshold (1000)
	UseHotHints                    bool    // -memprof-use-hot-hints (LLVM 20+; LLVM 19 always hints hot)

	// LLVM 16.
	AccessesPerByteCold float32 // -memprof-accesses-per-byte-cold-threshold (10.0)
	MinLifetimeCold     uint32  // -memprof-min-lifetime-cold-threshold, seconds (200)
}

// DefaultThresholds returns release's defaults.
func DefaultThresholds(release llvmrelease.Release) Thresholds {
	return Thresholds{
		Release:                        release,
		LifetimeAccessDensityCold:      0.05,
		AveLifetimeCold:                200,
		MinAveLifetimeAccessDensityHot: 1000,
		AccessesPerByteCold:            10,
		MinLifetimeCold:                200,
	}
}

// ParseThresholds returns release's defaults with the clang options opts
// applied in order (see Set).
func ParseThresholds(release llvmrelease.Release, opts []string) (Thresholds, error) {
	t := DefaultThresholds(release)
	for _, o := range opts {
		if err := t.Set(o); err != nil {
			return t, err
		}
	}
	return t, nil
}

// flagsOf returns the option names release's clang knows, in print order.
func flagsOf(release llvmrelease.Release) []string {
	switch {
	case !release.MemProfColdByDensity():
		return []string{"memprof-accesses-per-byte-cold-threshold", "memprof-min-lifetime-cold-threshold"}
	case !release.MemProfHotHintsNeedFlag():
		return []string{"memprof-lifetime-access-density-cold-threshold", "memprof-ave-lifetime-cold-threshold",
			"memprof-min-ave-lifetime-access-density-hot-threshold"}
	}
	return []string{"memprof-lifetime-access-density-cold-threshold", "memprof-ave-lifetime-cold-threshold",
		"memprof-min-ave-lifetime-access-density-hot-threshold", "memprof-use-hot-hints"}
}

// FlagNames lists every option Set accepts (without dashes).
func FlagNames() []string {
	return append(flagsOf(16), flagsOf(22)...)
}

// Set applies one clang option, spelled as clang's -mllvm takes it:
// "-memprof-ave-lifetime-cold-threshold=0" (one or two leading dashes;
// "-memprof-use-hot-hints" alone means true). An option the release's
// clang does not have is an error, as it is for clang.
func (t *Thresholds) Set(opt string) error {
	name, value, hasValue := strings.Cut(strings.TrimLeft(opt, "-"), "=")
	known := false
	for _, n := range flagsOf(t.Release) {
		known = known || n == name
	}
	if !known {
		return fmt.Errorf("clang %d has no option -%s (it knows -%s)", t.Release, name, strings.Join(flagsOf(t.Release), ", -"))
	}
	bad := func(err error) error {
		return fmt.Errorf("-%s=%s: %v", name, value, err)
	}
	switch name {
	case "memprof-use-hot-hints":
		if !hasValue {
			t.UseHotHints = true
			return nil
		}
		switch value {
		case "true", "TRUE", "True", "1":
			t.UseHotHints = true
		case "false", "FALSE", "False", "0":
			t.UseHotHints = false
		default:
			return bad(fmt.Errorf("not a boolean (true, false, 1, 0)"))
		}
		return nil
	case "memprof-lifetime-access-density-cold-threshold", "memprof-accesses-per-byte-cold-threshold":
		// cl::opt<float> parses a double and narrows it.
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || !hasValue {
			return bad(fmt.Errorf("not a number"))
		}
		if name == "memprof-accesses-per-byte-cold-threshold" {
			t.AccessesPerByteCold = float32(v)
		} else {
			t.LifetimeAccessDensityCold = float32(v)
		}
		return nil
	}
	v, err := strconv.ParseUint(value, 0, 32)
	if err != nil || !hasValue {
		return bad(fmt.Errorf("not an unsigned 32-bit integer"))
	}
	switch name {
	case "memprof-ave-lifetime-cold-threshold":
		t.AveLifetimeCold = uint32(v)
	case "memprof-min-ave-lifetime-access-density-hot-threshold":
		t.MinAveLifetimeAccessDensityHot = uint32(v)
	case "memprof-min-lifetime-cold-threshold":
		t.MinLifetimeCold = uint32(v)
	}
	return nil
}

// Flags returns the options as clang spells them (-mllvm values), all of
// them, defaults included.
func (t Thresholds) Flags() []string {
	var out []string
	for _, n := range flagsOf(t.Release) {
		var v string
		switch n {
		case "memprof-accesses-per-byte-cold-threshold":
			v = fmtFloat(t.AccessesPerByteCold)
		case "memprof-min-lifetime-cold-threshold":
			v = strconv.FormatUint(uint64(t.MinLifetimeCold), 10)
		case "memprof-lifetime-access-density-cold-threshold":
			v = fmtFloat(t.LifetimeAccessDensityCold)
		case "memprof-ave-lifetime-cold-threshold":
			v = strconv.FormatUint(uint64(t.AveLifetimeCold), 10)
		case "memprof-min-ave-lifetime-access-density-hot-threshold":
			v = strconv.FormatUint(uint64(t.MinAveLifetimeAccessDensityHot), 10)
		case "memprof-use-hot-hints":
			v = strconv.FormatBool(t.UseHotHints)
		}
		out = append(out, "-"+n+"="+v)
	}
	return out
}

func fmtFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// Decision is the classification of one context with the numbers that
// decided it.
type Decision struct {
	Type AllocType
	// Density is the average lifetime access density (accesses per byte
	// per second) and Lifetime the average lifetime in ms, as LLVM 17+
	// computes them; LLVM 16 compares AccessesPerByte
	// (MaxAccessCount/MinSize) and MinLifetime (ms) instead.
	Density, Lifetime float32
	AccessesPerByte   float32
	MinLifetime       uint32
	// WouldBeHot is set when LLVM 20+ gives NotCold only because hot
	// hints are off (-memprof-use-hot-hints).
	WouldBeHot bool
	// Why says which comparison decided, with both sides.
	Why string
}

// Classify is getAllocType of t.Release for one MemInfoBlock.
func (t Thresholds) Classify(m *memprof.MemInfoBlock) Decision {
	if !t.Release.MemProfColdByDensity() {
		d := Decision{AccessesPerByte: float32(m.MaxAccessCount) / float32(m.MinSize), MinLifetime: m.MinLifetime}
		limit := t.MinLifetimeCold * 1000 // unsigned arithmetic, as in LLVM
		apb := fmtFloat(d.AccessesPerByte)
		switch {
		case !(d.AccessesPerByte < t.AccessesPerByteCold):
			d.Type, d.Why = NotCold, fmt.Sprintf("accesses per byte %s >= %s", apb, fmtFloat(t.AccessesPerByteCold))
		case m.MinLifetime < limit:
			d.Type, d.Why = NotCold, fmt.Sprintf("min lifetime %d ms < %d ms", m.MinLifetime, limit)
		default:
			d.Type, d.Why = Cold, fmt.Sprintf("accesses per byte %s < %s and min lifetime %d ms >= %d ms",
				apb, fmtFloat(t.AccessesPerByteCold), m.MinLifetime, limit)
		}
		return d
	}
	d := Decision{
		Density:  float32(m.TotalLifetimeAccessDensity) / float32(m.AllocCount) / 100,
		Lifetime: float32(m.TotalLifetime) / float32(m.AllocCount),
	}
	coldLife := float32(t.AveLifetimeCold * 1000) // unsigned product, then float
	dens, life := fmtFloat(d.Density), fmtFloat(d.Lifetime)
	hot := d.Density > float32(t.MinAveLifetimeAccessDensityHot)
	switch {
	case d.Density < t.LifetimeAccessDensityCold && d.Lifetime >= coldLife:
		d.Type, d.Why = Cold, fmt.Sprintf("density %s < %s and lifetime %s ms >= %s ms",
			dens, fmtFloat(t.LifetimeAccessDensityCold), life, fmtFloat(coldLife))
	case hot && (!t.Release.MemProfHotHintsNeedFlag() || t.UseHotHints):
		d.Type, d.Why = Hot, fmt.Sprintf("density %s > %d", dens, t.MinAveLifetimeAccessDensityHot)
	default:
		d.Type = NotCold
		if d.Density < t.LifetimeAccessDensityCold {
			d.Why = fmt.Sprintf("lifetime %s ms < %s ms", life, fmtFloat(coldLife))
		} else {
			d.Why = fmt.Sprintf("density %s >= %s", dens, fmtFloat(t.LifetimeAccessDensityCold))
		}
		if hot {
			d.WouldBeHot = true
			d.Why += fmt.Sprintf("; density > %d: hot with -memprof-use-hot-hints", t.MinAveLifetimeAccessDensityHot)
		}
	}
	return d
}

// Context is one allocation context of a profile: a distinct call stack
// (leaf first) with its statistics and the hint it gets.
type Context struct {
	Frames []memprof.Frame
	Info   *memprof.MemInfoBlock
	// ID is LLVM's full context id (computeFullStackId: the first 8 bytes
	// of BLAKE3 over Function, LineOffset, Column of every frame), what
	// clang's -memprof-print-match-info prints.
	ID uint64
	// Decision is getAllocType's answer for the context alone (what
	// -memprof-print-match-info prints).
	Decision Decision
	// Hint is the type clang attaches to the context's allocation call.
	// It differs from Decision.Type in one case: from LLVM 20 on, hot is
	// only hinted for unambiguously hot allocations, so a hot context of
	// an allocation call that also has other contexts becomes notcold
	// (CallStackTrie's convertHotToNotCold); HintNote then says so.
	Hint     AllocType
	HintNote string
}

// Contexts returns the distinct allocation call stacks of p (an alloc
// site is recorded under every function of its inline chain; it counts
// once), classified with t, largest TotalSize first (ties by ID).
func Contexts(p *memprof.Profile, t Thresholds) []Context {
	seen := map[uint64]bool{}
	var out []Context
	for _, r := range p.Records {
		for i := range r.AllocSites {
			a := &r.AllocSites[i]
			id := FullStackID(a.CallStack)
			if seen[id] {
				continue
			}
			seen[id] = true
			d := t.Classify(&a.Info)
			out = append(out, Context{Frames: a.CallStack, Info: &a.Info, ID: id, Decision: d, Hint: d.Type})
		}
	}
	if t.Release.MemProfHintsPerInlineChain() {
		// The contexts of one allocation call share the inline chain of
		// the allocation's PC: the frames up to the first one not inlined.
		types := map[string]AllocType{}
		for i := range out {
			types[callKey(out[i].Frames)] |= out[i].Decision.Type
		}
		for i := range out {
			c := &out[i]
			if c.Hint == Hot && types[callKey(c.Frames)] != Hot {
				c.Hint = NotCold
				c.HintNote = "hot, but its allocation call has other contexts too: clang hints hot only for unambiguously hot allocations"
			}
		}
	}
	sortContexts(out, func(c *Context) uint64 { return c.Info.TotalSize })
	return out
}

// callKey identifies the allocation call of a context: its leaf frames up
// to the first that is not inlined.
func callKey(frames []memprof.Frame) string {
	if g := machineFrames(frames); len(g) > 0 {
		return fmt.Sprint(g[0])
	}
	return ""
}

// FullStackID is memprof::computeFullStackId.
func FullStackID(frames []memprof.Frame) uint64 {
	b := make([]byte, 0, 16*len(frames))
	for _, f := range frames {
		b = binary.LittleEndian.AppendUint64(b, f.Function)
		b = binary.LittleEndian.AppendUint32(b, f.LineOffset)
		b = binary.LittleEndian.AppendUint32(b, f.Column)
	}
	sum := blake3.Sum256(b)
	return binary.LittleEndian.Uint64(sum[:8])
}

// StackID is the id of one frame in !memprof and !callsite metadata
// (computeStackId); column is 0 when the function's profile has no
// columns.
func StackID(f memprof.Frame, column uint32) uint64 {
	return FullStackID([]memprof.Frame{{Function: f.Function, LineOffset: f.LineOffset, Column: column}})
}

// Summary counts contexts and bytes per allocation type.
type Summary struct {
	Contexts, Bytes, Allocs map[AllocType]uint64
	TotalContexts           uint64
	TotalBytes, TotalAllocs uint64
}

// Summarize sums ctxs per hint (the type clang attaches).
func Summarize(ctxs []Context) Summary {
	s := Summary{Contexts: map[AllocType]uint64{}, Bytes: map[AllocType]uint64{}, Allocs: map[AllocType]uint64{}}
	for i := range ctxs {
		c := &ctxs[i]
		t := c.Hint
		s.Contexts[t]++
		s.Bytes[t] += c.Info.TotalSize
		s.Allocs[t] += uint64(c.Info.AllocCount)
		s.TotalContexts++
		s.TotalBytes += c.Info.TotalSize
		s.TotalAllocs += uint64(c.Info.AllocCount)
	}
	return s
}
