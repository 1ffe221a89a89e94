package instrprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
)

// TestFastPath: the raws of one binary after the first take the
// same-layout fast path when they have no value data, and the result is
// the record-by-record one.
func TestFastPath(t *testing.T) {
	dir := instrproftest.Fixtures(t)
	for _, rel := range instrproftest.Releases {
		for _, c := range []struct {
			mode string
			fast bool
		}{{"novp", true}, {"fe", true}, {"cov", true}, {"ir", true}, {"irnc", true}, {"temporal", false}, {"mcdc", true}, {"vtable", false}} {
			if (c.mode == "temporal" || c.mode == "mcdc" || c.mode == "vtable") && rel < 19 {
				continue
			}
			t.Run(fmt.Sprintf("llvm%d/%s", rel, c.mode), func(t *testing.T) {
				fast, slow := NewFuncProfile(), NewFuncProfile()
				var rr RawReader
				for k, i := range []string{"3", "10", "50", "3"} {
					p := filepath.Join(dir, fmt.Sprintf("shapes-llvm%d-%s-%s.profraw", rel, c.mode, i))
					data, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					r, err := fast.AddRawData(&rr, p, data, uint64(k+1))
					if err != nil {
						t.Fatal(err)
					}
					if tookFast := r.Records == nil; k > 0 && tookFast != c.fast {
						t.Errorf("input %d: fast path %v, want %v", k, tookFast, c.fast)
					}
					sr, err := ParseRaw(p, data)
					if err != nil {
						t.Fatal(err)
					}
					slow.AddRaw(sr, uint64(k+1))
				}
				opts, _ := Defaults(rel)
				var a, b bytes.Buffer
				if err := WriteFuncs(&a, fast, nil, nil, opts); err != nil {
					t.Fatal(err)
				}
				if err := WriteFuncs(&b, slow, nil, nil, opts); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("fast and record-by-record folds differ at %#x", firstDiff(a.Bytes(), b.Bytes()))
				}
			})
		}
	}
}
