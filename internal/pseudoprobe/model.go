// Package pseudoprobe decodes the pseudo probes that clang's
// -fpseudo-probe-for-profiling leaves in an ELF binary, as llvm-profgen's
// MCPseudoProbeDecoder reads them:
//
//   - .pseudo_probe_desc: one descriptor per function (GUID, CFG hash,
//     name), decodeDescs;
//   - .pseudo_probe: per outlined function a record of its probes
//     (block and call-site probes with their addresses) and, nested, one
//     record per inlined callee: the inline tree, decodeProbes.
//
// The layout (MCPseudoProbe.h) is drawn beside the decoders in decode.go.
// clang 19 and clang 22 emit the same encoding: address deltas (SLEB128)
// from the previous probe, the first probe of a function relative to the
// function's symbol (a sentinel probe only starts the body of a split
// function), discriminators when attribute 4 is set.
//
// Security: sections are untrusted; every count is checked against the
// bytes that remain before anything is allocated from it, and errors are
// *decode.Error values naming the section and offset. Probe addresses are
// whatever the section says; callers look them up, never index by them.
package pseudoprobe

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Type is PseudoProbeType.
type Type uint8

const (
	Block        Type = 0
	IndirectCall Type = 1
	DirectCall   Type = 2
)

func (t Type) String() string {
	switch t {
	case Block:
		return "Block"
	case IndirectCall:
		return "IndirectCall"
	case DirectCall:
		return "DirectCall"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Attributes are PseudoProbeAttributes (3 bits).
const (
	AttrReserved         = 1
	AttrSentinel         = 2
	AttrHasDiscriminator = 4
)

// FuncDesc is MCPseudoProbeFuncDesc: a function's GUID (MD5 of its name),
// the hash of its CFG (the profile's !CFGChecksum) and its name.
type FuncDesc struct {
	GUID, Hash uint64
	Name       string
}

// Probe is MCDecodedPseudoProbe: a probe of the function of its inline
// tree node, at a code address.
type Probe struct {
	Address       uint64
	Index         uint32
	Discriminator uint32
	Attributes    uint8
	Type          Type
	Node          *InlineTree
	// Seq is the probe's position among the decoded probes, in section
	// order (its index in MCPseudoProbeDecoder's PseudoProbeVec).
	Seq int
}

// GUID is the GUID of the function the probe belongs to.
func (p *Probe) GUID() uint64 { return p.Node.GUID }

// IsEntry: the probe is its function's first block (index 1).
func (p *Probe) IsEntry() bool { return p.Index == 1 }

// IsCall: a direct or indirect call-site probe.
func (p *Probe) IsCall() bool { return p.Type == DirectCall || p.Type == IndirectCall }

// IsBlock: a block probe.
func (p *Probe) IsBlock() bool { return p.Type == Block }

// InlineTree is MCDecodedPseudoProbeInlineTree: an outlined function (a
// child of the root) or a function inlined into its parent at the
// call-site probe ProbeID.
type InlineTree struct {
	GUID     uint64
	ProbeID  uint32
	Parent   *InlineTree
	Children []*InlineTree
	Probes   []*Probe
}

// IsRoot reports whether t is the dummy root (GUID 0).
func (t *InlineTree) IsRoot() bool { return t.Parent == nil }

// HasInlineSite: t is an inlined function (its parent is not the root).
func (t *InlineTree) HasInlineSite() bool { return t.Parent != nil && t.Parent.Parent != nil }

// Probes is what the decoder knows of a binary: the descriptors by GUID,
// the inline forest and every probe by address.
type Probes struct {
	// Descs are sorted by GUID.
	Descs []FuncDesc
	// Root is the dummy root; its children are the outlined functions in
	// section order.
	Root InlineTree
	// ByAddr holds every probe sorted by address (probes of one address in
	// section order).
	ByAddr []*Probe
}

// Desc returns the descriptor of guid, or nil.
func (p *Probes) Desc(guid uint64) *FuncDesc {
	// slices.BinarySearchFunc's comparison through a closure cost five
	// times this loop (CS generation looks a GUID up per context frame).
	d := p.Descs
	lo, hi := 0, len(d)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d[m].GUID < guid {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d) && d[lo].GUID == guid {
		return &d[lo]
	}
	return nil
}

// Name is getProbeFNameForGUID: the name of guid's descriptor ("" for a
// GUID without one).
func (p *Probes) Name(guid uint64) string {
	if d := p.Desc(guid); d != nil {
		return d.Name
	}
	return ""
}

// At returns the probes at addr, in section order.
func (p *Probes) At(addr uint64) []*Probe {
	i, _ := slices.BinarySearchFunc(p.ByAddr, addr, func(q *Probe, a uint64) int { return cmp.Compare(q.Address, a) })
	j := i
	for j < len(p.ByAddr) && p.ByAddr[j].Address == addr {
		j++
	}
	return p.ByAddr[i:j]
}

// InRange returns the probes with from ≤ address < to.
func (p *Probes) InRange(from, to uint64) []*Probe {
	i, _ := slices.BinarySearchFunc(p.ByAddr, from, func(q *Probe, a uint64) int { return cmp.Compare(q.Address, a) })
	j, _ := slices.BinarySearchFunc(p.ByAddr, to, func(q *Probe, a uint64) int { return cmp.Compare(q.Address, a) })
	if j < i {
		j = i
	}
	return p.ByAddr[i:j]
}

// CallProbeAt is getCallProbeForAddr: the first call probe at addr, or nil.
func (p *Probes) CallProbeAt(addr uint64) *Probe {
	for _, q := range p.At(addr) {
		if q.IsCall() {
			return q
		}
	}
	return nil
}

// Frame is MCPseudoProbeFrameLocation: a function and a probe index in it.
type Frame struct {
	Name  string
	Index uint32
}

// InlineContext is getInlineContextForProbe: the inline frames of probe
// q root first, each the caller's name and the call-site probe id, and
// with includeLeaf the probe's own function and index last. It appends to
// ctx.
func (p *Probes) InlineContext(ctx []Frame, q *Probe, includeLeaf bool) []Frame {
	begin := len(ctx)
	for n := q.Node; n.HasInlineSite(); n = n.Parent {
		ctx = append(ctx, Frame{p.Name(n.Parent.GUID), n.ProbeID})
	}
	slices.Reverse(ctx[begin:])
	if includeLeaf {
		ctx = append(ctx, Frame{p.Name(q.GUID()), q.Index})
	}
	return ctx
}

// InlinerDesc is getInlinerDescForProbe: the descriptor of the function q
// was inlined into, or nil for a probe of an outlined function.
func (p *Probes) InlinerDesc(q *Probe) *FuncDesc {
	if !q.Node.HasInlineSite() {
		return nil
	}
	return p.Desc(q.Node.Parent.GUID)
}

// AppendProbe appends the probe as MCDecodedPseudoProbe::print with names
// prints it: "FUNC: name Index: 3  [Discriminator: 2  ]Type: Block  [Inlined: @ f:1 @ g:2]".
func (p *Probes) AppendProbe(b []byte, q *Probe) []byte {
	b = append(b, "FUNC: "...)
	b = append(b, p.Name(q.GUID())...)
	b = append(b, " Index: "...)
	b = strconv.AppendUint(b, uint64(q.Index), 10)
	b = append(b, "  "...)
	if q.Discriminator != 0 {
		b = append(b, "Discriminator: "...)
		b = strconv.AppendUint(b, uint64(q.Discriminator), 10)
		b = append(b, "  "...)
	}
	b = append(b, "Type: "...)
	b = append(b, q.Type.String()...)
	b = append(b, "  "...)
	ctx := p.InlineContext(nil, q, false)
	if len(ctx) > 0 {
		b = append(b, "Inlined: @ "...)
		for i, f := range ctx {
			if i > 0 {
				b = append(b, " @ "...)
			}
			b = append(b, f.Name...)
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(f.Index), 10)
		}
	}
	return b
}

// DescString is printGUID2FuncDescMap: "Pseudo Probe Desc:" and two lines
// per descriptor, in GUID order.
func (p *Probes) DescString() string {
	var sb strings.Builder
	sb.WriteString("Pseudo Probe Desc:\n")
	for _, d := range p.Descs {
		sb.WriteString("GUID: " + strconv.FormatUint(d.GUID, 10) + " Name: " + d.Name + "\n")
		sb.WriteString("Hash: " + strconv.FormatUint(d.Hash, 10) + "\n")
	}
	return sb.String()
}

// String is the canonical dump: the descriptors, then every address with
// its probes (printProbesForAllAddresses).
func (p *Probes) String() string {
	var b []byte
	b = append(b, p.DescString()...)
	prev := ^uint64(0)
	for i, q := range p.ByAddr {
		if i == 0 || q.Address != prev {
			prev = q.Address
			b = append(b, "Address:\t"...)
			b = strconv.AppendUint(b, q.Address, 10)
			b = append(b, '\n')
		}
		b = append(b, " [Probe]:\t"...)
		b = p.AppendProbe(b, q)
		b = append(b, '\n')
	}
	return string(b)
}
