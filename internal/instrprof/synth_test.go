package instrprof

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// TestMergeSyntheticDifferential merges raws built in memory (encodeRaw)
// that clang rarely or never writes, with us and with llvm-profdata-N:
// counter-count, value-site and bitmap mismatches, pseudo counts,
// saturation, many hashes under one name (SmallDenseMap growth), many
// names (StringMap growth), unmapped indirect-call targets, sites merged
// past 255 values.
func TestMergeSyntheticDifferential(t *testing.T) {
	sites := func(vs ...ValueData) [][]ValueData { return [][]ValueData{vs} }
	rec := func(name string, hash uint64, counts ...uint64) FuncRecord {
		return FuncRecord{Name: name, Hash: hash, Counts: counts}
	}
	withVals := func(r FuncRecord, kind int, s [][]ValueData) FuncRecord {
		r.Values[kind] = s
		return r
	}
	withBitmap := func(r FuncRecord, b ...byte) FuncRecord {
		r.Bitmap = b
		return r
	}
	many := func(n int) []FuncRecord {
		var rs []FuncRecord
		for i := range n {
			rs = append(rs, rec(fmt.Sprintf("_Z%dfunction_with_a_name%d", i%7, i), uint64(i), uint64(i), 1))
		}
		return rs
	}
	// Three inputs of 200 memop sizes each at one site, overlapping: the
	// merged site passes 255 values and is cut after each merge step.
	wide := func(i int) []FuncRecord {
		var vs []ValueData
		for j := range 200 {
			vs = append(vs, ValueData{uint64(i*100 + j), uint64((j*7+i)%13 + 1)})
		}
		return []FuncRecord{withVals(rec("f", 1, 1), IPVKMemOPSize, sites(vs...))}
	}
	var hashes []FuncRecord
	for i := range 70 {
		hashes = append(hashes, rec("main", uint64(i)*0x9e3779b97f4a7c15, uint64(i)))
	}
	cases := []struct {
		name    string
		inputs  [][]FuncRecord
		weights []uint64
		bitmaps bool // needs raw v9+ (not LLVM 16)
	}{
		{name: "count-mismatch", inputs: [][]FuncRecord{{rec("f", 1, 1, 2)}, {rec("f", 1, 5)}, {rec("f", 1, 3, 4)}}},
		{name: "pseudo", inputs: [][]FuncRecord{{rec("f", 1, ^uint64(0)-1, 2)}, {rec("f", 1, ^uint64(0), 0)}, {rec("g", 2, ^uint64(0), 9)}, {rec("g", 2, 4, 4)}}},
		{name: "saturation", inputs: [][]FuncRecord{{rec("f", 1, 1<<63, 5, ^uint64(0)-5)}, {rec("f", 1, 1<<63, 5, 3)}}, weights: []uint64{3, 1 << 62}},
		{name: "hashes", inputs: [][]FuncRecord{hashes[:3], hashes[3:5], hashes[5:]}},
		{name: "names", inputs: [][]FuncRecord{many(300), many(40)}},
		{name: "values", inputs: [][]FuncRecord{
			{withVals(rec("f", 1, 3), IPVKMemOPSize, sites(ValueData{8, 2}, ValueData{16, 2}, ValueData{4, 9}, ValueData{8, 1})), rec("g", 2, 1)},
			{withVals(rec("f", 1, 1), IPVKMemOPSize, sites(ValueData{16, 5}, ValueData{32, 2})), rec("g", 2, 1)},
			{withVals(rec("f", 1, 1), IPVKMemOPSize, [][]ValueData{{{8, 1}}, nil}), rec("g", 2, 1)},
			{withVals(rec("f", 1, 1), IPVKIndirectCallTarget, sites(ValueData{llvmname.GUID("g"), 4}, ValueData{0x1234, 1}, ValueData{0x5678, 7})), rec("g", 2, 1)},
		}, weights: []uint64{1, 3, 1, 2}},
		{name: "many-values", inputs: [][]FuncRecord{wide(0), wide(1), wide(2)}},
		{name: "bitmaps", bitmaps: true, inputs: [][]FuncRecord{
			{withBitmap(rec("f", 1, 1), 1, 0), withBitmap(rec("g", 2, 1), 4)},
			{withBitmap(rec("f", 1, 2), 2, 8), withBitmap(rec("g", 2, 1), 1, 1)},
		}},
	}
	dir := t.TempDir()
	for _, rel := range instrproftest.Releases {
		version := 10
		if rel == 16 {
			version = 8
		}
		for _, c := range cases {
			if c.bitmaps && version < 9 {
				continue
			}
			t.Run(fmt.Sprintf("llvm%d/%s", rel, c.name), func(t *testing.T) {
				var paths, args []string
				for i, rs := range c.inputs {
					p := &RawProfile{Variant: VariantIRProf, Records: rs}
					seen := map[string]bool{}
					for _, r := range rs {
						if !seen[r.Name] {
							seen[r.Name] = true
							p.Names = append(p.Names, r.Name)
						}
					}
					path := filepath.Join(dir, fmt.Sprintf("%d-%s-%d.profraw", rel, c.name, i))
					if err := os.WriteFile(path, encodeRaw(p, version), 0o644); err != nil {
						t.Fatal(err)
					}
					paths = append(paths, path)
					w := uint64(1)
					if c.weights != nil {
						w = c.weights[i]
					}
					args = append(args, fmt.Sprintf("--weighted-input=%d,%s", w, path))
				}
				// Counters above 2^56 make llvm-profdata count the input as
				// bad ("excessively large counter value") yet merge it; warn
				// mode keeps it from failing the run.
				// LLVM 16 has no warn mode; all fails only when the errors
				// number the inputs, which no case here does.
				args = append(args, map[bool]string{true: "--failure-mode=all", false: "--failure-mode=warn"}[rel == 16])
				compareFuncs(t, rel, mergeWeighted(t, rel, paths, c.weights), llvmMerge(t, rel, args...))
			})
		}
	}
}
