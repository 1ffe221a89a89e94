package instrprof

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// refMergeSite and refSortSite are mergeSite and sortValues as LLVM
// words them (stable sorts, one insert at a time): the faster ones must
// give the same lists.
func refMergeSite(dst, in []ValueData, w uint64) []ValueData {
	byValue := func(a, b ValueData) int { return cmp.Compare(a.Value, b.Value) }
	slices.SortStableFunc(dst, byValue)
	in = slices.Clone(in)
	slices.SortStableFunc(in, byValue)
	i := 0
	for _, j := range in {
		for i < len(dst) && dst[i].Value < j.Value {
			i++
		}
		if i < len(dst) && dst[i].Value == j.Value {
			dst[i].Count, _ = mulAdd(j.Count, w, dst[i].Count)
			i++
			continue
		}
		dst = slices.Insert(dst, i, j)
		i++
	}
	return dst
}

func refSortSite(site []ValueData) []ValueData {
	slices.SortStableFunc(site, func(a, b ValueData) int { return cmp.Compare(b.Count, a.Count) })
	return site[:min(len(site), maxValuesPerSite)]
}

// TestStableSort: stableSort is slices.SortStableFunc by count
// (descending) or value, ties many.
func TestStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := range 2000 {
		s := make([]ValueData, r.IntN(700))
		for i := range s {
			s[i] = ValueData{Value: uint64(r.IntN(1 + it%50)), Count: uint64(r.IntN(1 + it%7))}
		}
		for _, byCnt := range []bool{true, false} {
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(a, b ValueData) int {
				if byCnt {
					return cmp.Compare(b.Count, a.Count)
				}
				return cmp.Compare(a.Value, b.Value)
			})
			got := slices.Clone(s)
			stableSort(got, byCnt)
			if !slices.Equal(got, want) {
				t.Fatalf("iteration %d, by count %v: got %v, want %v", it, byCnt, got, want)
			}
		}
	}
}

func TestMergeSiteSame(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	list := func(n, vals, counts int) []ValueData {
		s := make([]ValueData, n)
		for i := range s {
			s[i] = ValueData{Value: uint64(r.IntN(vals)), Count: uint64(r.IntN(counts))}
		}
		return s
	}
	for it := range 3000 {
		vals, counts := 1+r.IntN(400), 1+r.IntN(50)
		if it%3 == 0 {
			vals, counts = 4, 3 // many equal values and counts
		}
		first := list(r.IntN(300), vals, counts)
		got := refSortSite(slices.Clone(first))
		want := slices.Clone(got)
		for range 1 + r.IntN(4) {
			in := list(r.IntN(40), vals, counts)
			w := uint64(1 + r.IntN(3))
			d := &FuncRecord{}
			d.Values[0] = [][]ValueData{got}
			d.Values[0][0], _ = mergeSite(d.Values[0][0], slices.Clone(in), w)
			sortValues(d)
			got = d.Values[0][0]
			want = refSortSite(refMergeSite(want, in, w))
			if !slices.Equal(got, want) {
				t.Fatalf("iteration %d: got %v, want %v", it, got, want)
			}
		}
	}
}

// BenchmarkMergeSite folds 16 values into a site of 255 (half of them
// known), as the bench/instr raws do, and re-sorts it; ref: as LLVM words it.
func BenchmarkMergeSite(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	site := make([]ValueData, 255)
	for i := range site {
		site[i] = ValueData{Value: uint64(r.IntN(1 << 20)), Count: uint64(r.IntN(1000))}
	}
	site = refSortSite(site)
	ins := make([][]ValueData, 64)
	for k := range ins {
		for j := range 16 {
			v := uint64(r.IntN(1 << 20))
			if j%2 == 0 {
				v = site[r.IntN(len(site))].Value
			}
			ins[k] = append(ins[k], ValueData{Value: v, Count: uint64(r.IntN(100))})
		}
	}
	b.Run("ours", func(b *testing.B) {
		d := &FuncRecord{}
		d.Values[0] = [][]ValueData{slices.Clone(site)}
		k := 0
		c0 := cpuTime()
		for b.Loop() {
			d.Values[0][0], _ = mergeSite(d.Values[0][0], ins[k%len(ins)], 1)
			sortValues(d)
			k++
		}
		b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("ref", func(b *testing.B) {
		s := slices.Clone(site)
		k := 0
		c0 := cpuTime()
		for b.Loop() {
			s = refSortSite(refMergeSite(s, ins[k%len(ins)], 1))
			k++
		}
		b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
	})
}
