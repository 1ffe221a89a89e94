package profview

import (
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

func TestThresholdsSet(t *testing.T) {
	for _, tc := range []struct {
		release int
		opts    []string
		want    string // Flags(), joined
		err     string
	}{
		{19, nil, "-memprof-lifetime-access-density-cold-threshold=0.05 -memprof-ave-lifetime-cold-threshold=200 -memprof-min-ave-lifetime-access-density-hot-threshold=1000", ""},
		{22, []string{"--memprof-ave-lifetime-cold-threshold=0", "-memprof-use-hot-hints", "-memprof-lifetime-access-density-cold-threshold=1e3"},
			"-memprof-lifetime-access-density-cold-threshold=1000 -memprof-ave-lifetime-cold-threshold=0 -memprof-min-ave-lifetime-access-density-hot-threshold=1000 -memprof-use-hot-hints=true", ""},
		{22, []string{"-memprof-use-hot-hints=0"}, "-memprof-lifetime-access-density-cold-threshold=0.05 -memprof-ave-lifetime-cold-threshold=200 -memprof-min-ave-lifetime-access-density-hot-threshold=1000 -memprof-use-hot-hints=false", ""},
		{16, []string{"-memprof-accesses-per-byte-cold-threshold=2.5", "-memprof-min-lifetime-cold-threshold=1"}, "-memprof-accesses-per-byte-cold-threshold=2.5 -memprof-min-lifetime-cold-threshold=1", ""},
		{19, []string{"-memprof-use-hot-hints"}, "", "clang 19 has no option -memprof-use-hot-hints"},
		{16, []string{"-memprof-ave-lifetime-cold-threshold=1"}, "", "clang 16 has no option"},
		{19, []string{"-memprof-ave-lifetime-cold-threshold=-1"}, "", "not an unsigned 32-bit integer"},
		{19, []string{"-memprof-ave-lifetime-cold-threshold"}, "", "not an unsigned 32-bit integer"},
		{19, []string{"-memprof-lifetime-access-density-cold-threshold=x"}, "", "not a number"},
		{22, []string{"-memprof-use-hot-hints=maybe"}, "", "not a boolean"},
	} {
		th := DefaultThresholds(llvmrelease.Release(tc.release))
		var err error
		for _, o := range tc.opts {
			if err = th.Set(o); err != nil {
				break
			}
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%d %q: error %v, want %q", tc.release, tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d %q: %v", tc.release, tc.opts, err)
			continue
		}
		if got := strings.Join(th.Flags(), " "); got != tc.want {
			t.Errorf("%d %q: Flags() = %s, want %s", tc.release, tc.opts, got, tc.want)
		}
	}
}

// TestClassify checks the comparisons at their edges in single
// precision, and the reasons given.
func TestClassify(t *testing.T) {
	mib := func(allocs uint32, lifetime, density uint64) *memprof.MemInfoBlock {
		return &memprof.MemInfoBlock{AllocCount: allocs, TotalLifetime: lifetime, TotalLifetimeAccessDensity: density,
			MaxAccessCount: 5, MinSize: 1, MinLifetime: 200000}
	}
	for _, tc := range []struct {
		release int
		m       *memprof.MemInfoBlock
		want    AllocType
		why     string
	}{
		{19, mib(2, 400000, 9), Cold, "density 0.045 < 0.05 and lifetime 200000 ms >= 200000 ms"},
		{19, mib(2, 399999, 9), NotCold, "lifetime 199999.5 ms < 200000 ms"},
		{19, mib(1, 400000, 5), NotCold, "density 0.05 >= 0.05"},
		{19, mib(1, 0, 100001), Hot, "density 1000.01 > 1000"},
		{19, mib(1, 0, 100000), NotCold, "density 1000 >= 0.05"},
		{22, mib(1, 0, 100001), NotCold, "density 1000.01 >= 0.05; density > 1000: hot with -memprof-use-hot-hints"},
		{16, mib(1, 0, 0), Cold, "accesses per byte 5 < 10 and min lifetime 200000 ms >= 200000 ms"},
	} {
		d := DefaultThresholds(llvmrelease.Release(tc.release)).Classify(tc.m)
		if d.Type != tc.want || d.Why != tc.why {
			t.Errorf("LLVM %d %+v: %s (%s), want %s (%s)", tc.release, *tc.m, d.Type, d.Why, tc.want, tc.why)
		}
	}
}
