package elfsym

import (
	"fmt"
	"sync"
)

// subroutine is a DW_TAG_subprogram or DW_TAG_inlined_subroutine DIE of a
// unit's tree, with its nearest subroutine ancestor.
type subroutine struct {
	u      *unit // unit holding the DIE (the split unit for split DWARF)
	d      subDIE
	parent int32 // index into cuState.subs, -1 for none
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
	subs    []subroutine
	addrs   []amEntry // sorted by lo
	treeErr error

	mu    sync.Mutex
	names map[nameKey]*funcInfo
}

type nameKey struct {
	df  *dwarfFile
	off uint64
}

// funcInfo is what findRecursively yields for a subroutine DIE.
type funcInfo struct {
	name, linkage       string
	hasName, hasLinkage bool
	declLine            uint32
	declFile            string
}

// load builds (once) the unit's line table and subroutine map.
func (u *unit) load() (*cuState, error) {
	u.once.Do(func() {
		st := &cuState{names: make(map[nameKey]*funcInfo)}
		if u.hasStmtList {
			st.lt, st.ltErr = u.parseLineTable(u.stmtList)
		}
		tu := u
		if u.hasDWOName && u.hasDWOID {
			if s, err := u.splitUnit(); err == nil && s != nil {
				tu = s
			} else if err != nil {
				st.treeErr = err
			}
		}
		if st.treeErr == nil {
			st.treeErr = st.buildTree(tu)
		}
		u.state = st
	})
	return u.state, u.err
}

// buildTree walks the unit's DIEs, collects subroutines and builds the
// address map with LLVM's updateAddressDieMap splitting rules (parents are
// inserted before children).
func (st *cuState) buildTree(u *unit) error {
	df := u.df
	b := makeBuf(df.file, df.secName(".debug_info"), df.sec.info[:u.end], u.dieOff, df.order)
	// Stack of nearest subroutine index for each open DIE with children.
	stack := make([]int32, 0, 32)
	cur := int32(-1)
	var d die
	maxDIEs := int(u.end-u.dieOff) + 1
	for n := 0; b.remaining() > 0; n++ {
		if n > maxDIEs {
			b.errorf("too many DIEs")
			break
		}
		// Peek at the abbreviation: only subroutines are decoded.
		start := b.off
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
			b.off = start
			if !u.readDIE(&b, &d) {
				break
			}
			idx := int32(len(st.subs))
			st.subs = append(st.subs, subroutine{u: u, d: d.sub(), parent: cur})
			self = idx
			rs, err := u.dieRanges(&d)
			if err == nil {
				for _, r := range rs {
					st.insert(r, idx)
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
	return b.err
}

// insert adds [r.lo, r.hi) -> sub following LLVM's AddrDieMap update.
func (st *cuState) insert(r addrRange, sub int32) {
	if r.lo == r.hi {
		return
	}
	m := st.addrs
	// b = upper_bound(lo) - 1: the last entry with key <= lo.
	ub := upperBound(len(m), func(i int) bool { return r.lo < m[i].lo })
	if ub > 0 && r.lo < m[ub-1].hi {
		prev := m[ub-1]
		if r.hi < prev.hi {
			st.put(amEntry{lo: r.hi, hi: prev.hi, sub: prev.sub})
		}
		if r.lo > prev.lo {
			i := st.find(prev.lo)
			st.addrs[i].hi = r.lo
		}
	}
	st.put(amEntry{lo: r.lo, hi: r.hi, sub: sub})
}

// find returns the index of the entry keyed lo (which must exist).
func (st *cuState) find(lo uint64) int {
	m := st.addrs
	i := upperBound(len(m), func(i int) bool { return lo < m[i].lo }) - 1
	return i
}

// put sets map[e.lo] = e, inserting or overwriting.
func (st *cuState) put(e amEntry) {
	m := st.addrs
	n := len(m)
	if n == 0 || m[n-1].lo < e.lo {
		st.addrs = append(m, e)
		return
	}
	i := upperBound(n, func(i int) bool { return e.lo < m[i].lo })
	if i > 0 && m[i-1].lo == e.lo {
		m[i-1] = e
		return
	}
	m = append(m, amEntry{})
	copy(m[i+1:], m[i:])
	m[i] = e
	st.addrs = m
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

// funcInfo resolves names and decl attributes of a subroutine through
// DW_AT_abstract_origin / DW_AT_specification, as LLVM's findRecursively.
func (st *cuState) funcInfo(s *subroutine, lt *lineTable, skel *unit) *funcInfo {
	key := nameKey{s.u.df, s.d.off}
	st.mu.Lock()
	fi, ok := st.names[key]
	st.mu.Unlock()
	if ok {
		return fi
	}
	fi = &funcInfo{}
	type item struct {
		u *unit
		d subDIE
	}
	// Each attribute group is searched separately, like LLVM's separate
	// findRecursively calls.
	find := func(pick func(*subDIE) *attrVal, alt func(*subDIE) *attrVal) (*unit, attrVal, bool) {
		work := []item{{s.u, s.d}}
		seen := map[uint64]bool{s.d.off: true}
		for steps := 0; len(work) > 0 && steps < 64; steps++ {
			it := work[len(work)-1]
			work = work[:len(work)-1]
			if v := pick(&it.d); v.set {
				return it.u, *v, true
			}
			if alt != nil {
				if v := alt(&it.d); v.set {
					return it.u, *v, true
				}
			}
			for _, ref := range []attrVal{it.d.abstractOrigin, it.d.specification} {
				if !ref.set || !isRefForm(ref.form) || seen[ref.val] {
					continue
				}
				seen[ref.val] = true
				tu, td, ok := it.u.dieAt(ref.val)
				if ok {
					work = append(work, item{tu, td.sub()})
				}
			}
		}
		return nil, attrVal{}, false
	}
	// LLVM asks for {DW_AT_MIPS_linkage_name, DW_AT_linkage_name} in one find.
	if u, v, ok := find(func(d *subDIE) *attrVal { return &d.mipsLinkageName }, func(d *subDIE) *attrVal { return &d.linkageName }); ok {
		fi.linkage, fi.hasLinkage = u.str(v)
	}
	if u, v, ok := find(func(d *subDIE) *attrVal { return &d.name }, nil); ok {
		fi.name, fi.hasName = u.str(v)
	}
	if _, v, ok := find(func(d *subDIE) *attrVal { return &d.declLine }, nil); ok {
		if c, ok := v.constant(); ok {
			fi.declLine = uint32(c)
		}
	}
	if u, v, ok := find(func(d *subDIE) *attrVal { return &d.declFile }, nil); ok {
		if c, ok := v.constant(); ok {
			// The file index refers to the line table of the unit the
			// attribute was found in (its skeleton for split units).
			flt := lt
			su := u
			if u.skeleton != nil {
				su = u.skeleton
			}
			if su != skel {
				if sst, err := su.load(); err == nil {
					flt = sst.lt
				} else {
					flt = nil
				}
			}
			if flt != nil {
				fi.declFile, _ = flt.fileName(c)
			}
		}
	}
	st.mu.Lock()
	st.names[key] = fi
	st.mu.Unlock()
	return fi
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
	b := makeBuf(tu.df.file, tu.df.secName(".debug_info"), tu.df.sec.info[:tu.end], off, tu.df.order)
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
