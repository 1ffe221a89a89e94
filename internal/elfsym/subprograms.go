package elfsym

// This file is the one walk over the subprograms of the binary's units:
// Functions (every subprogram DIE, for views that name a profile's
// functions) and Subprograms/SplitSubprograms (the subprograms with code,
// as llvm-profgen's loadSymbolsFromDWARF reads them) are views of it.

// Function is one DW_TAG_subprogram of the binary's DWARF (a definition,
// an abstract instance of an inlined function or a declaration) with the
// names and decl attributes a frame of it carries: found through
// DW_AT_abstract_origin and DW_AT_specification, as Symbolize finds them.
type Function struct {
	// Name is DW_AT_name; LinkageName is DW_AT_linkage_name, falling back
	// to Name, as in Frame (DWARFDie::getName(LinkageName)).
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

// Subprogram is a DW_TAG_subprogram with address ranges: its linkage
// name, else its short name (through DW_AT_specification and
// DW_AT_abstract_origin), and its ranges [lo, hi) as DWARF lists them.
type Subprogram struct {
	Name   string
	Ranges [][2]uint64
}

// Functions calls yield for every subprogram DIE of the binary's units
// (their split units included), unit by unit in DIE order, until it
// returns false. It loads every unit's DIE tree: it is for views that
// name a profile's functions by their linkage names (MemProf GUIDs), not
// for address lookups. A unit that cannot be read is skipped; Symbolize
// would report its problem.
func (b *Binary) Functions(yield func(Function) bool) {
	b.walkSubprograms(allUnits, false, func(st *cuState, _ *die, f *Function) bool { return yield(*f) })
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
	split = b.walkSubprograms(ownUnits, true, func(st *cuState, d *die, f *Function) bool {
		subs = appendSubprogram(subs, st, d, f)
		return true
	}).split
	return subs, split
}

// SplitSubprograms returns the subprograms of the split units (.dwo files
// or the .dwp package) of the binary's skeleton units, unit by unit, each
// in DIE order, as llvm-profgen's loadSymbolsFromDWARF reads them after
// the units of the binary itself; missing counts the skeleton units whose
// split unit could not be loaded (its "DWO debug information was not
// loaded for N modules" warning). Subprograms without a name or ranges
// are left out.
func (b *Binary) SplitSubprograms() (subs []Subprogram, missing int) {
	missing = b.walkSubprograms(splitUnits, true, func(st *cuState, d *die, f *Function) bool {
		subs = appendSubprogram(subs, st, d, f)
		return true
	}).missing
	return subs, missing
}

// appendSubprogram appends f (the subprogram DIE d of st's tree) if it has
// a name and ranges.
func appendSubprogram(subs []Subprogram, st *cuState, d *die, f *Function) []Subprogram {
	if f.LinkageName == "" {
		return subs
	}
	rs, err := st.tu.appendDIERanges(nil, d)
	if err != nil || len(rs) == 0 {
		return subs
	}
	sp := Subprogram{Name: f.LinkageName, Ranges: make([][2]uint64, len(rs))}
	for i, r := range rs {
		sp.Ranges[i] = [2]uint64{r.lo, r.hi}
	}
	return append(subs, sp)
}

// unitSet says which units walkSubprograms reads.
type unitSet int

const (
	// allUnits: every unit of the DWARF read (a separate debug file's
	// too), a skeleton's split unit in its place.
	allUnits unitSet = iota
	// ownUnits: the compile units of the binary itself, skeletons left
	// out (llvm-profgen's first pass).
	ownUnits
	// splitUnits: the split units of the skeletons (its second pass).
	splitUnits
)

// walkCount is what a walk saw of the units it left out: split, that a
// skeleton unit was met (ownUnits); missing, the skeletons whose split
// unit could not be loaded (splitUnits).
type walkCount struct {
	split   bool
	missing int
}

// walkSubprograms calls yield for every DW_TAG_subprogram DIE of the units
// of set, unit by unit in DIE order, with its names and decl attributes,
// until yield returns false. Names are resolved without filling the
// symbolizer's per-subroutine cache (st.info): most are never asked for.
// With withCode, DIEs without DW_AT_low_pc or DW_AT_ranges (declarations,
// abstract instances: no ranges, so no Subprogram) are passed over before
// their names are resolved.
func (b *Binary) walkSubprograms(set unitSet, withCode bool, yield func(st *cuState, d *die, f *Function) bool) (c walkCount) {
	if b.dw == nil || set == ownUnits && b.dw.file != b.path {
		return c
	}
	for _, u := range b.dw.units {
		switch set {
		case ownUnits:
			if !u.isCompile() {
				continue
			}
			if u.cuDIE.tag == tagSkeletonUnit || u.hasDWOName {
				// The skeleton's own DIEs (no subprograms as clang writes
				// them) are not walked: its tree is the split unit's.
				c.split = true
				continue
			}
		case splitUnits:
			if !u.hasDWOID {
				continue
			}
			if !u.hasDWOName {
				c.missing++
				continue
			}
		}
		st, err := u.load()
		switch {
		case st == nil || st.tu == nil:
			continue
		case set == ownUnits && (err != nil || st.treeErr != nil && len(st.subs) == 0):
			continue
		case set == splitUnits && (err != nil || st.tu == u || st.treeErr != nil):
			c.missing++
			continue
		}
		if !st.eachSubprogram(withCode, yield) {
			return c
		}
	}
	return c
}

// eachSubprogram calls yield for the subprogram DIEs of st's tree (the
// unit's, or the split unit of a skeleton) in DIE order; false when yield
// stopped it.
func (st *cuState) eachSubprogram(withCode bool, yield func(st *cuState, d *die, f *Function) bool) bool {
	var d die
	var n subInfo
	var f Function
	for i := range st.subs {
		s := &st.subs[i]
		if s.tag != tagSubprogram {
			continue
		}
		var ok bool
		if d, ok = st.tu.dieAtOwn(s.off); !ok {
			continue
		}
		hasCode := d.lowPC.set || d.ranges.set
		if withCode && !hasCode {
			continue
		}
		si := st.infos[i].Load()
		if si == nil {
			n = st.tu.nameInfo(s.off, &d)
			si = &n
		}
		f = Function{Name: si.name, LinkageName: si.linkage, StartFile: si.declFile, StartLine: si.declLine,
			HasCode: hasCode}
		if !si.hasLinkage || si.linkage == "" {
			f.LinkageName = si.name
		}
		if !yield(st, &d, &f) {
			return false
		}
	}
	return true
}
