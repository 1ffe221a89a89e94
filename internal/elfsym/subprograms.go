package elfsym

// Subprogram is a DW_TAG_subprogram with address ranges: its linkage
// name, else its short name (through DW_AT_specification and
// DW_AT_abstract_origin), and its ranges [lo, hi) as DWARF lists them.
type Subprogram struct {
	Name   string
	Ranges [][2]uint64
}

// Subprograms returns the subprograms of the binary's own compile units
// (not those of a separate debug file found through .gnu_debuglink or the
// build id), unit by unit, each in DIE order, as llvm-profgen's
// loadSymbolsFromDWARFUnit reads them; split reports that a unit is a
// skeleton (DW_TAG_skeleton_unit, or a DW_AT_dwo_name / DW_AT_GNU_dwo_name
// on its unit DIE), whose split unit SplitSubprograms reads. Subprograms
// without a name or ranges are left out, as are units whose DIE tree
// cannot be read.
func (b *Binary) Subprograms() (subs []Subprogram, split bool) {
	if b.dw == nil || b.dw.file != b.path {
		return nil, false
	}
	for _, u := range b.dw.units {
		if !u.isCompile() {
			continue
		}
		if u.cuDIE.tag == tagSkeletonUnit || u.hasDWOName {
			split = true
			// The skeleton's own DIEs (no subprograms as clang writes
			// them) are not walked: its tree is the split unit's.
			continue
		}
		st, err := u.load()
		if err != nil || st.treeErr != nil && len(st.subs) == 0 {
			continue
		}
		subs = appendSubprograms(subs, st, u)
	}
	return subs, split
}

// appendSubprograms appends the named subprograms with ranges of st's
// tree (the unit's, or the split unit of the skeleton u).
func appendSubprograms(subs []Subprogram, st *cuState, u *unit) []Subprogram {
	tu := st.tu
	for i := range st.subs {
		s := &st.subs[i]
		if s.tag != tagSubprogram {
			continue
		}
		d, ok := tu.dieAtOwn(s.off)
		if !ok {
			continue
		}
		name := st.subName(int32(i), &d)
		if name == "" {
			continue
		}
		rs, err := tu.appendDIERanges(nil, &d)
		if err != nil || len(rs) == 0 {
			continue
		}
		sp := Subprogram{Name: name}
		for _, r := range rs {
			sp.Ranges = append(sp.Ranges, [2]uint64{r.lo, r.hi})
		}
		subs = append(subs, sp)
	}
	return subs
}

// SplitSubprograms returns the subprograms of the split units (.dwo files
// or the .dwp package) of the binary's skeleton units, unit by unit, each
// in DIE order, as llvm-profgen's loadSymbolsFromDWARF reads them after
// the units of the binary itself; missing counts the skeleton units whose
// split unit could not be loaded (its "DWO debug information was not
// loaded for N modules" warning). Subprograms without a name or ranges
// are left out.
func (b *Binary) SplitSubprograms() (subs []Subprogram, missing int) {
	if b.dw == nil {
		return nil, 0
	}
	for _, u := range b.dw.units {
		if !u.hasDWOID {
			continue
		}
		if !u.hasDWOName {
			missing++
			continue
		}
		st, err := u.load()
		if err != nil || st.tu == u || st.treeErr != nil {
			missing++
			continue
		}
		subs = appendSubprograms(subs, st, u)
	}
	return subs, missing
}

// subName is DWARFDie::getName(LinkageName) of subs[i], whose DIE is d:
// the linkage name, else the short name (through DW_AT_specification and
// DW_AT_abstract_origin). A walk over every subprogram does not fill the
// symbolizer's per-subroutine cache (st.info): most are never asked for.
func (st *cuState) subName(i int32, d *die) string {
	si := st.infos[i].Load()
	if si == nil {
		n := st.tu.nameInfo(st.subs[i].off, d)
		si = &n
	}
	if si.hasLinkage && si.linkage != "" {
		return si.linkage
	}
	return si.name
}
