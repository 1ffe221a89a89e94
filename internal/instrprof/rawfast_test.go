package instrprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
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
				// Weight 1 and not (the fast path adds without a multiply
				// at weight 1); shapes then app (value data: indirect calls
				// resolved through each run's load address, memcpy sizes).
				for k, in := range []struct {
					prog, run string
					w         uint64
					first     bool // of its binary: the record path
				}{{"shapes", "3", 1, true}, {"shapes", "10", 1, false}, {"shapes", "50", 2, false}, {"shapes", "3", 1, false},
					{"app", "10", 1, true}, {"app", "50", 3, false}, {"app", "3", 1, false}} {
					p := filepath.Join(dir, fmt.Sprintf("%s-llvm%d-%s-%s.profraw", in.prog, rel, c.mode, in.run))
					data, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					w := in.w
					r, err := fast.AddRawData(&rr, p, data, w)
					if err != nil {
						t.Fatal(err)
					}
					// app is C: its vtable-mode raws have no vtables.
					want := c.fast || (c.mode == "vtable" && in.prog == "app")
					if tookFast := r.Records == nil; !in.first && tookFast != want {
						t.Errorf("input %d: fast path %v, want %v", k, tookFast, want)
					}
					sr, err := ParseRaw(p, data)
					if err != nil {
						t.Fatal(err)
					}
					slow.AddRaw(sr, w)
				}
				sameWrites(t, rel, fast, slow, "fast and record-by-record folds")
			})
		}
	}
}

// TestPrepareRawConcurrent: raws checked by PrepareRaw on another
// goroutine while the ones before are folded (as tools/merge reads ahead)
// fold to the bytes of AddRawData one after the other; run with -race.
func TestPrepareRawConcurrent(t *testing.T) {
	dir := instrproftest.Fixtures(t)
	rel := instrproftest.Releases[len(instrproftest.Releases)-1]
	var datas [][]byte
	for _, prog := range []string{"shapes", "app"} {
		for _, run := range []string{"3", "10", "50", "3", "10"} {
			data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-llvm%d-ir-%s.profraw", prog, rel, run)))
			if err != nil {
				t.Fatal(err)
			}
			datas = append(datas, data)
		}
	}
	serial, ahead := NewFuncProfile(), NewFuncProfile()
	var rr, rr2 RawReader
	pres := make(chan *PreparedRaw, 1)
	go func() {
		var scratch []byte
		for _, d := range datas {
			pres <- ahead.PrepareRaw(d, &scratch)
		}
	}()
	for k, d := range datas {
		w := uint64(1 + k%3)
		if _, err := serial.AddRawData(&rr, "in", d, w); err != nil {
			t.Fatal(err)
		}
		if _, err := ahead.AddPreparedRaw(&rr2, "in", d, w, nil, <-pres); err != nil {
			t.Fatal(err)
		}
	}
	sameWrites(t, rel, ahead, serial, "read-ahead and serial folds")
}

// sameWrites fails t unless a and b write the same indexed bytes for
// release rel; what names the two.
func sameWrites(t *testing.T, rel int, a, b *FuncProfile, what string) {
	t.Helper()
	opts, _ := Defaults(llvmrelease.Release(rel))
	var x, y bytes.Buffer
	if err := WriteFuncs(&x, a, nil, nil, opts); err != nil {
		t.Fatal(err)
	}
	if err := WriteFuncs(&y, b, nil, nil, opts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Errorf("%s differ at %#x", what, firstDiff(x.Bytes(), y.Bytes()))
	}
}
