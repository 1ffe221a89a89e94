package elfsym

// Subprogram is a DW_TAG_subprogram with address ranges: its linkage
// name, else its short name (through DW_AT_specification and
// DW_AT_abstract_origin), and its ranges [lo, hi) as DWARF lists them.
type Subprogram struct {
	Name   string
	Ranges [][2]uint64
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
		tu := st.tu
		for i := range st.subs {
			s := &st.subs[i]
			if s.tag != tagSubprogram {
				continue
			}
			si := st.info(int32(i), u)
			name := si.linkage
			if !si.hasLinkage || name == "" {
				name = si.name
			}
			if name == "" {
				continue
			}
			d, ok := tu.dieAtOwn(s.off)
			if !ok {
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
	}
	return subs, missing
}
