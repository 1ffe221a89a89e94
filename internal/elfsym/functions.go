package elfsym

// Function is one DW_TAG_subprogram of the binary's DWARF (a definition,
// an abstract instance of an inlined function or a declaration) with the
// names and decl attributes a frame of it carries: found through
// DW_AT_abstract_origin and DW_AT_specification, as Symbolize finds them.
type Function struct {
	// Name is DW_AT_name; LinkageName is DW_AT_linkage_name, falling back
	// to Name, as in Frame.
	Name, LinkageName string
	// StartFile and StartLine are DW_AT_decl_file (a path as Frame.File
	// spells it) and DW_AT_decl_line, empty or 0 when absent.
	StartFile string
	StartLine uint32
	// HasCode is set when the DIE itself has DW_AT_low_pc or DW_AT_ranges
	// (an out-of-line definition); abstract instances of inlined functions
	// and declarations have none.
	HasCode bool
}

// Functions calls yield for every subprogram DIE of the binary's units
// (their split units included), unit by unit in DIE order, until it
// returns false. It loads every unit's DIE tree: it is for views that
// name a profile's functions by their linkage names (MemProf GUIDs), not
// for address lookups. A unit that cannot be read is skipped; Symbolize
// would report its problem.
func (b *Binary) Functions(yield func(Function) bool) {
	if b.dw == nil {
		return
	}
	for _, u := range b.dw.units {
		st, _ := u.load()
		if st == nil || st.tu == nil {
			continue
		}
		for i := range st.subs {
			if st.subs[i].tag != tagSubprogram {
				continue
			}
			fi := st.info(int32(i), u)
			f := Function{Name: fi.name, LinkageName: fi.linkage, StartFile: fi.declFile, StartLine: fi.declLine}
			if !fi.hasLinkage {
				f.LinkageName = fi.name
			}
			if d, ok := st.tu.dieAtOwn(st.subs[i].off); ok {
				f.HasCode = d.lowPC.set || d.ranges.set
			}
			if !yield(f) {
				return
			}
		}
	}
}
