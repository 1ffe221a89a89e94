package elfsym

import (
	"fmt"
	"sync/atomic"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// subroutine is a DW_TAG_subprogram or DW_TAG_inlined_subroutine DIE of a
// unit's tree, with its nearest subroutine ancestor. Attributes are decoded
// again from the section when an address needs them, then cached.
type subroutine struct {
	off    uint64
	parent int32 // index into cuState.subs, -1 for none
	tag    uint16
}

// subInfo is what a frame needs from a subroutine DIE: names and decl
// attributes found through DW_AT_abstract_origin / DW_AT_specification (as
// LLVM's findRecursively), its DW_AT_low_pc and its call-site attributes.
type subInfo struct {
	name, linkage       string
	hasName, hasLinkage bool
	declLine            uint32
	declFile            string
	lowPC               uint64
	callFile, callLine  uint64
	callCol, callDisc   uint64
}

// amEntry maps [lo, hi) to a subroutine, as LLVM's DWARFUnit::AddrDieMap.
type amEntry struct {
	lo, hi uint64
	sub    int32
}

// cuState is what a unit needs to answer lookups, built on first use.
type cuState struct {
	lt      *lineTable // nil when the unit has no line table
	ltErr   error
	tu      *unit        // unit holding the DIE tree (the split unit for split DWARF)
	subs    []subroutine // pointer-free, so the GC does not scan it
	addrs   []amEntry    // sorted by lo
	treeErr error
	// infos[i] caches the decoded subInfo of subs[i]. A slot per
	// subroutine (not a sync.Map: the cache is write-heavy) filled lock-free;
	// two racing decoders store equal values.
	infos []atomic.Pointer[subInfo]
}

// load builds (once) the unit's line table and subroutine map.
func (u *unit) load() (*cuState, error) {
	u.once.Do(func() {
		st := &cuState{}
		st.lt, st.ltErr = u.lineTable()
		tu := u
		if u.hasDWOName && u.hasDWOID {
			if s, err := u.splitUnit(); err == nil && s != nil {
				tu = s
			} else if err != nil {
				st.treeErr = err
			}
		}
		st.tu = tu
		if st.treeErr == nil {
			st.treeErr = st.buildTree(tu)
		}
		st.infos = make([]atomic.Pointer[subInfo], len(st.subs))
		u.state = st
	})
	return u.state, u.err
}

// buildTree walks the unit's DIEs, collects subroutines and builds the
// address map with LLVM's updateAddressDieMap splitting rules (parents are
// inserted before children).
func (st *cuState) buildTree(u *unit) error {
	df := u.df
	b := newCursor(df.file, df.secName(".debug_info"), df.sec.info[:u.end], u.dieOff, df.order)
	// Stack of nearest subroutine index for each open DIE with children.
	stack := make([]int32, 0, 32)
	cur := int32(-1)
	var m amap
	var rs []addrRange
	// Sizes seen on clang output: ~30 bytes of DIEs per subroutine.
	st.subs = make([]subroutine, 0, min((u.end-u.dieOff)/32+16, 1<<20))
	var d die
	maxDIEs := int(u.end-u.dieOff) + 1
	for n := 0; b.Remaining() > 0; n++ {
		if n > maxDIEs {
			b.Fail(decode.ErrMalformed, "too many DIEs")
			break
		}
		// Peek at the abbreviation: only subroutines are decoded.
		start := uint64(b.Off())
		a, ok := u.skipDIE(&b)
		if !ok {
			break
		}
		if a == nil {
			// End of a sibling list.
			if len(stack) == 0 {
				break
			}
			cur = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			continue
		}
		self := cur
		if a.tag == tagSubprogram || a.tag == tagInlinedSubroutine {
			idx := int32(len(st.subs))
			st.subs = append(st.subs, subroutine{off: start, parent: cur, tag: a.tag})
			self = idx
			if a.hasRanges {
				end := uint64(b.Off())
				b.Seek(start)
				if !u.readRangeAttrs(&b, &d) {
					break
				}
				b.Seek(end)
				var err error
				rs, err = u.appendDIERanges(rs[:0], &d)
				if err == nil {
					for _, r := range rs {
						m.insert(r, idx)
					}
				}
			}
		}
		if a.children {
			stack = append(stack, cur)
			cur = self
		}
		if len(stack) == 0 && start == u.dieOff && !a.children {
			break
		}
	}
	st.addrs = m.flatten()
	return b.Err()
}

// amap is an ordered map from range start to amEntry, kept as a list of
// sorted blocks so inserting in the middle moves at most one block.
type amap struct {
	blocks [][]amEntry
	// hb, he is the position findLE returned last: inserts cluster (a
	// subroutine's children fall inside it), so it is checked first.
	hb, he int
}

const amapBlock = 64

// findLE returns the position of the last entry with lo <= x.
func (m *amap) findLE(x uint64) (bi, ei int, ok bool) {
	bs := m.blocks
	if m.hb < len(bs) {
		blk := bs[m.hb]
		for ei := m.he; ei <= m.he+1 && ei < len(blk); ei++ {
			if blk[ei].lo > x {
				break
			}
			if m.covers(m.hb, ei, x) {
				m.he = ei
				return m.hb, ei, true
			}
		}
	}
	bi = upperBound(len(bs), func(i int) bool { return x < bs[i][0].lo }) - 1
	if bi < 0 {
		return 0, 0, false
	}
	blk := bs[bi]
	ei = upperBound(len(blk), func(i int) bool { return x < blk[i].lo }) - 1
	m.hb, m.he = bi, ei
	return bi, ei, true
}

// covers reports whether the entry after (bi, ei), if any, starts above x.
func (m *amap) covers(bi, ei int, x uint64) bool {
	if blk := m.blocks[bi]; ei+1 < len(blk) {
		return blk[ei+1].lo > x
	}
	if bi+1 < len(m.blocks) {
		return m.blocks[bi+1][0].lo > x
	}
	return true
}

// put sets map[e.lo] = e.
func (m *amap) put(e amEntry) {
	if len(m.blocks) == 0 {
		// Small first: most units of a many-unit binary have a few
		// subroutines; append grows the block up to its split.
		m.blocks = append(m.blocks, append(make([]amEntry, 0, 8), e))
		return
	}
	bi, ei, ok := m.findLE(e.lo)
	if ok && m.blocks[bi][ei].lo == e.lo {
		m.blocks[bi][ei] = e
		return
	}
	if !ok {
		bi, ei = 0, -1
	}
	blk := append(m.blocks[bi], amEntry{})
	copy(blk[ei+2:], blk[ei+1:])
	blk[ei+1] = e
	m.blocks[bi] = blk
	if len(blk) >= 2*amapBlock {
		// Split; the halves get their own arrays.
		lo := blk[: amapBlock : 2*amapBlock]
		hi := append(make([]amEntry, 0, 2*amapBlock), blk[amapBlock:]...)
		m.blocks = append(m.blocks, nil)
		copy(m.blocks[bi+2:], m.blocks[bi+1:])
		m.blocks[bi], m.blocks[bi+1] = lo, hi
	}
}

// insert adds [r.lo, r.hi) -> sub following LLVM's
// DWARFUnit::updateAddressDieMap: a range starting inside an existing one
// splits it (parents are inserted before their children).
func (m *amap) insert(r addrRange, sub int32) {
	if r.lo == r.hi {
		return
	}
	if bi, ei, ok := m.findLE(r.lo); ok {
		prev := m.blocks[bi][ei]
		if r.lo < prev.hi {
			if r.hi < prev.hi {
				m.put(amEntry{lo: r.hi, hi: prev.hi, sub: prev.sub})
			}
			if r.lo > prev.lo {
				// put may have moved prev; find it again.
				bi, ei, _ = m.findLE(prev.lo)
				m.blocks[bi][ei].hi = r.lo
			}
		}
	}
	m.put(amEntry{lo: r.lo, hi: r.hi, sub: sub})
}

func (m *amap) flatten() []amEntry {
	n := 0
	for _, b := range m.blocks {
		n += len(b)
	}
	out := make([]amEntry, 0, n)
	for _, b := range m.blocks {
		out = append(out, b...)
	}
	return out
}

// subroutineFor is LLVM's getSubroutineForAddress.
func (st *cuState) subroutineFor(addr uint64) int32 {
	m := st.addrs
	i := upperBound(len(m), func(i int) bool { return addr < m[i].lo })
	if i == 0 {
		return -1
	}
	e := m[i-1]
	if addr >= e.hi {
		return -1
	}
	return e.sub
}

// info returns the cached subInfo of subs[i], decoding it on first use.
// skel is the unit whose line table the frame uses.
func (st *cuState) info(i int32, skel *unit) *subInfo {
	if si := st.infos[i].Load(); si != nil {
		return si
	}
	si := st.decodeInfo(&st.subs[i], skel)
	st.infos[i].Store(si)
	return si
}

func (st *cuState) decodeInfo(s *subroutine, skel *unit) *subInfo {
	u := st.tu
	first, ok := u.dieAtOwn(s.off)
	if !ok {
		return &subInfo{}
	}
	si := u.nameInfo(s.off, &first)
	si.lowPC, _ = u.addr(first.lowPC)
	si.callFile, _ = first.callFile.constant()
	si.callLine, _ = first.callLine.constant()
	si.callCol, _ = first.callColumn.constant()
	si.callDisc, _ = first.discriminator.constant()
	return &si
}

// nameInfo resolves the name and decl attributes of the DIE first (at off
// in u). A DIE with none of them and a single reference (the usual inlined
// or out-of-line instance) takes its target's, which are cached per file:
// many instances share one abstract origin.
func (u *unit) nameInfo(off uint64, first *die) subInfo {
	d := first
	if !d.mipsLinkageName.set && !d.linkageName.set && !d.name.set && !d.declLine.set && !d.declFile.set &&
		d.abstractOrigin.set != d.specification.set {
		ref := d.abstractOrigin
		if !ref.set {
			ref = d.specification
		}
		if isRefForm(ref.form) && ref.val != off {
			if c, ok := u.df.names.Load(ref.val); ok {
				return *c.(*subInfo)
			}
			if tu, td, ok := u.dieAt(ref.val); ok {
				si := tu.walkNames(ref.val, &td)
				u.df.names.Store(ref.val, &si)
				return si
			}
			return subInfo{}
		}
	}
	return u.walkNames(off, first)
}

// walkNames is findRecursively for the name and decl attributes.
func (u *unit) walkNames(off uint64, first *die) subInfo {
	var si subInfo
	s := struct{ off uint64 }{off}

	// One walk in findRecursively's order (a stack: the DIE, then its
	// abstract origin and specification, most recent first); for each
	// attribute group the first DIE that has it wins, as each separate
	// findRecursively call in LLVM would find.
	type item struct {
		u *unit
		d die
	}
	var seen [16]uint64
	nseen := 0
	seen[nseen] = s.off
	nseen++
	work := []item{{u, *first}}
	var linkU, nameU, fileU *unit
	var link, name, declLine, declFile attrVal
	for steps := 0; len(work) > 0 && steps < len(seen); steps++ {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		d := &it.d
		if linkU == nil {
			if d.mipsLinkageName.set {
				linkU, link = it.u, d.mipsLinkageName
			} else if d.linkageName.set {
				linkU, link = it.u, d.linkageName
			}
		}
		if nameU == nil && d.name.set {
			nameU, name = it.u, d.name
		}
		if !declLine.set && d.declLine.set {
			declLine = d.declLine
		}
		if fileU == nil && d.declFile.set {
			fileU, declFile = it.u, d.declFile
		}
		for _, ref := range [2]attrVal{d.abstractOrigin, d.specification} {
			if !ref.set || !isRefForm(ref.form) || nseen == len(seen) {
				continue
			}
			dup := false
			for _, o := range seen[:nseen] {
				dup = dup || o == ref.val
			}
			if dup {
				continue
			}
			seen[nseen] = ref.val
			nseen++
			if tu, td, ok := it.u.dieAt(ref.val); ok {
				work = append(work, item{tu, td})
			}
		}
	}
	if linkU != nil {
		si.linkage, si.hasLinkage = linkU.str(link)
	}
	if nameU != nil {
		si.name, si.hasName = nameU.str(name)
	}
	if c, ok := declLine.constant(); ok {
		si.declLine = uint32(c)
	}
	if fileU != nil {
		if c, ok := declFile.constant(); ok {
			// The index refers to the line table of the unit the attribute
			// was found in (its skeleton for split units).
			su := fileU
			if fileU.skeleton != nil {
				su = fileU.skeleton
			}
			if flt, _ := su.lineTable(); flt != nil {
				si.declFile, _ = flt.fileName(c)
			}
		}
	}
	return si
}

// lineTable parses (once) the unit's line table; nil without one.
func (u *unit) lineTable() (*lineTable, error) {
	u.ltOnce.Do(func() {
		if u.hasStmtList {
			u.lt, u.ltErr = u.parseLineTable(u.stmtList)
		}
	})
	return u.lt, u.ltErr
}

// dieAtOwn decodes the DIE at off, which lies in u.
func (u *unit) dieAtOwn(off uint64) (die, bool) {
	b := newCursor(u.df.file, u.df.secName(".debug_info"), u.df.sec.info[:u.end], off, u.df.order)
	var d die
	ok := u.readDIE(&b, &d)
	return d, ok
}

// dieAt decodes the DIE at the absolute .debug_info offset off of u's file.
func (u *unit) dieAt(off uint64) (*unit, die, bool) {
	tu := u
	if off < u.dieOff || off >= u.end {
		tu = u.df.unitAt(off)
		if tu == nil {
			return nil, die{}, false
		}
		if tu != u {
			// A unit reached by DW_AT_ref_addr needs its bases.
			if err := tu.ensureUnitDIE(); err != nil {
				return nil, die{}, false
			}
		}
	}
	b := newCursor(tu.df.file, tu.df.secName(".debug_info"), tu.df.sec.info[:tu.end], off, tu.df.order)
	var d die
	if !tu.readDIE(&b, &d) {
		return nil, die{}, false
	}
	return tu, d, true
}

// ensureUnitDIE makes sure the unit DIE and bases were read (units of the
// main file are read at Open; this covers split files).
func (u *unit) ensureUnitDIE() error {
	if u.cuDIE.tag != 0 {
		return nil
	}
	return fmt.Errorf("unit at %#x not indexed", u.off)
}
