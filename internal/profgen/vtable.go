package profgen

import (
	"cmp"
	"slices"

	"github.com/rules-pgo/rules_pgo/internal/perfscript"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
)

// typeSamples is populateTypeSamplesForAllFunctions: each vtable counted
// at a load is added to the type counts at the load's location in the leaf
// profile of its inline stack (totals unchanged; a profile is created for
// a function that had no other samples).
func (g *generator) typeSamples(counter map[perfscript.DataAccess]uint64) error {
	keys := make([]perfscript.DataAccess, 0, len(counter))
	for k := range counter {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b perfscript.DataAccess) int {
		if c := cmp.Compare(a.IP, b.IP); c != 0 {
			return c
		}
		return cmp.Compare(a.VTable, b.VTable)
	})
	for _, k := range keys {
		s, err := g.stack(k.IP)
		if err != nil {
			return err
		}
		if len(s) == 0 {
			continue
		}
		fs := g.leafProfile(s, 0)
		leaf := s[len(s)-1]
		addTypeSamples(fs.VTablesAt(sampleprof.LineLocation{Line: leaf.line, Disc: g.baseDisc(leaf.disc)}), g.id(k.VTable), counter[k])
	}
	return nil
}

// addTypeSamples is FunctionSamples::addTypeSamplesAt's count update
// (saturating).
func addTypeSamples(site *sampleprof.VTableSite, t sampleprof.FunctionID, n uint64) {
	i, found := slices.BinarySearchFunc(site.Types, t, func(c sampleprof.TypeCount, f sampleprof.FunctionID) int { return c.Type.Compare(f) })
	if !found {
		site.Types = slices.Insert(site.Types, i, sampleprof.TypeCount{Type: t})
	}
	site.Types[i].Count = satAdd(site.Types[i].Count, n)
}
