package pseudoprobe

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// Section names.
const (
	DescSection  = ".pseudo_probe_desc"
	ProbeSection = ".pseudo_probe"
)

// The .pseudo_probe_desc section is a sequence of descriptors:
//
//	GUID       u64 (little-endian)
//	HASH       u64
//	NAME_SIZE  ULEB128 (≤ 2^32−1)
//	NAME       NAME_SIZE bytes
//
// The .pseudo_probe section is a sequence of outlined-function records,
// each a FUNCTION BODY:
//
//	GUID        u64: the function's GUID
//	NPROBES     ULEB128
//	NINLINEES   ULEB128: first-level inlinees
//	PROBE × NPROBES:
//	  INDEX     ULEB128
//	  KIND      u8: type (bits 0-3) | attributes (bits 4-6) | address delta (bit 7)
//	  ADDRESS   SLEB128 delta from the previous probe's address (bit 7 set),
//	            else u64: an absolute address, or for a sentinel probe the
//	            GUID of the split function whose start it stands for
//	  DISC      ULEB128, if attribute HasDiscriminator (4)
//	INLINEE × NINLINEES:
//	  PROBE_ID  ULEB128: the call-site probe in the caller
//	  FUNCTION BODY
//
// The address of a function's first probe is relative to the function's
// start (FuncStartAddrs, by the GUID of the symbol's name) unless an
// absolute probe address was seen (the old encoding).
const (
	minDescSize   = 8 + 8 + 1
	minProbeSize  = 1 + 1 + 1
	minInlineSize = 1 + 8 + 1 + 1
)

// Options restrict decoding as llvm-profgen's decodePseudoProbe does.
type Options struct {
	// GUIDFilter, if not nil, keeps only the outlined functions whose GUID
	// it holds (llvm-profgen keeps the profiled functions).
	GUIDFilter map[uint64]bool
	// FuncStartAddrs maps the GUID of a symbol's name to its address: the
	// base of the first probe of an outlined function and of sentinel
	// probes.
	FuncStartAddrs map[uint64]uint64
}

// Decode decodes both sections; file names the binary in errors.
func Decode(file string, desc, probes []byte, opts Options) (*Probes, error) {
	p := &Probes{}
	if err := p.decodeDescs(file, desc); err != nil {
		return nil, err
	}
	if err := p.decodeProbes(file, probes, opts); err != nil {
		return nil, err
	}
	return p, nil
}

// decodeDescs is buildGUID2FuncDescMap: descriptors sorted by GUID (the
// first of a repeated GUID is kept).
func (p *Probes) decodeDescs(file string, data []byte) error {
	c := decode.NewCursor("pseudoprobe", file, DescSection, data, 0)
	for c.Remaining() > 0 {
		guid, hash := c.U64(), c.U64()
		at := c.Off()
		n := c.Uleb()
		if c.Err() == nil && n > math.MaxUint32 {
			c.FailAt(int64(at), decode.ErrMalformed, "name size %d exceeds 32 bits", n)
		}
		name := c.Bytes(n)
		if c.Err() != nil {
			return c.Err()
		}
		p.Descs = append(p.Descs, FuncDesc{GUID: guid, Hash: hash, Name: string(name)})
	}
	slices.SortStableFunc(p.Descs, func(a, b FuncDesc) int { return cmp.Compare(a.GUID, b.GUID) })
	p.Descs = slices.CompactFunc(p.Descs, func(a, b FuncDesc) bool { return a.GUID == b.GUID })
	return nil
}

type probeDecoder struct {
	c         decode.Cursor
	p         *Probes
	opts      Options
	lastAddr  uint64
	addrBased bool
}

// decodeProbes is buildAddress2ProbeMap.
func (p *Probes) decodeProbes(file string, data []byte, opts Options) error {
	d := &probeDecoder{c: decode.NewCursor("pseudoprobe", file, ProbeSection, data, 0), p: p, opts: opts}
	for d.c.Remaining() > 0 {
		d.function(&p.Root, uint32(len(p.Root.Children)), true)
	}
	if err := d.c.Err(); err != nil {
		return err
	}
	slices.SortStableFunc(p.ByAddr, func(a, b *Probe) int { return cmp.Compare(a.Address, b.Address) })
	return nil
}

func (d *probeDecoder) u32(what string) uint32 {
	at := d.c.Off()
	v := d.c.Uleb()
	if d.c.Err() == nil && v > math.MaxUint32 {
		d.c.FailAt(int64(at), decode.ErrMalformed, "%s %d exceeds 32 bits", what, v)
	}
	return uint32(v)
}

// count reads a ULEB128 count of elements of at least min bytes.
func (d *probeDecoder) count(min int, what string) int {
	at := d.c.Off()
	n := d.u32(what)
	if d.c.Err() == nil && uint64(n)*uint64(min) > uint64(d.c.Remaining()) {
		d.c.FailAt(int64(at), decode.ErrTruncated, "%s %d need at least %d bytes, have %d", what, n, uint64(n)*uint64(min), d.c.Remaining())
		return 0
	}
	return int(n)
}

// function decodes one FUNCTION BODY (after its PROBE_ID for inlinees)
// under parent; a nil parent discards the record and its inlinees.
func (d *probeDecoder) function(parent *InlineTree, site uint32, top bool) {
	c := &d.c
	guid := c.U64()
	if c.Err() != nil {
		return
	}
	var cur *InlineTree
	if parent != nil && !(top && d.opts.GUIDFilter != nil && !d.opts.GUIDFilter[guid]) {
		cur = &InlineTree{GUID: guid, ProbeID: site, Parent: parent}
		parent.Children = append(parent.Children, cur)
		if top && !d.addrBased {
			if a := d.opts.FuncStartAddrs[guid]; a != 0 {
				d.lastAddr = a
			}
		}
	}
	nprobes := d.count(minProbeSize, "probe count")
	ninl := d.count(minInlineSize, "inlinee count")
	for range nprobes {
		index := d.u32("probe index")
		v := c.U8()
		kind, attr := Type(v&0xf), v>>4&7
		var addr uint64
		if v&0x80 != 0 {
			addr = d.lastAddr + uint64(c.Sleb())
		} else {
			addr = c.U64()
			if attr&AttrSentinel != 0 {
				if a := d.opts.FuncStartAddrs[addr]; a != 0 {
					addr = a
				}
			} else {
				d.addrBased = true
			}
		}
		var disc uint32
		if attr&AttrHasDiscriminator != 0 {
			disc = d.u32("discriminator")
		}
		if c.Err() != nil {
			return
		}
		if cur != nil && attr&AttrSentinel == 0 {
			if kind > DirectCall {
				c.Fail(decode.ErrMalformed, "probe type %d (want 0-2)", kind)
				return
			}
			q := &Probe{Address: addr, Index: index, Discriminator: disc, Attributes: attr, Type: kind, Node: cur, Seq: len(d.p.ByAddr)}
			cur.Probes = append(cur.Probes, q)
			d.p.ByAddr = append(d.p.ByAddr, q)
		}
		d.lastAddr = addr
	}
	for range ninl {
		id := d.u32("inline site")
		if c.Err() != nil {
			return
		}
		d.function(cur, id, false)
	}
}

// Check reports an error unless every probe's function has a descriptor
// (llvm-profgen asserts it).
func (p *Probes) Check(file string) error {
	var walk func(t *InlineTree) error
	walk = func(t *InlineTree) error {
		if !t.IsRoot() && p.Desc(t.GUID) == nil {
			return &decode.Error{Format: "pseudoprobe", File: file, Section: ProbeSection, Msg: fmt.Sprintf("function GUID %d has no descriptor in %s", t.GUID, DescSection), Err: decode.ErrMalformed}
		}
		for _, c := range t.Children {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&p.Root)
}

// Symbol is a symbol of the binary's .symtab for the probes: its address
// and its name (a section symbol's is its section's name).
type Symbol struct {
	Addr uint64
	Name string
}

// SymbolStarts is llvm-profgen's SymbolStartAddrs: the GUID of every
// symbol's name to its address (the last of a repeated name).
func SymbolStarts(syms []Symbol) map[uint64]uint64 {
	m := map[uint64]uint64{}
	for _, s := range syms {
		m[llvmname.GUID(s.Name)] = s.Addr
	}
	return m
}

// SymbolsAt is llvm-profgen's StartAddrToSymMap: the GUIDs of the names
// of the symbols at each address.
func SymbolsAt(syms []Symbol) map[uint64][]uint64 {
	m := map[uint64][]uint64{}
	for _, s := range syms {
		m[s.Addr] = append(m[s.Addr], llvmname.GUID(s.Name))
	}
	return m
}
