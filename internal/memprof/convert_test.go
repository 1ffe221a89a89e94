package memprof

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

func TestConvertErrors(t *testing.T) {
	dir := fixtures(t)
	tests := []struct {
		name     string
		release  int
		raw, bin string
		kind     error
		want     []string
	}{
		{"build id mismatch", 19, "app-llvm19-nopie-a.memprofraw", "many-llvm19", nil,
			[]string{"app-llvm19-nopie-a.memprofraw", "No matching executable segments found in binary", "many-llvm19", "its build id is ", "the profile has "}},
		{"build id mismatch 22", 22, "app-llvm22-pie-a.memprofraw", "app-llvm22-nopie", nil,
			[]string{"No matching executable segments"}},
		{"PIE with LLVM 16", 16, "app-llvm16-pie-a.memprofraw", "app-llvm16-pie", nil,
			[]string{"app-llvm16-pie", "Unsupported position independent code"}},
		{"raw v2 with LLVM 19", 19, "app-llvm16-nopie-a.memprofraw", "app-llvm16-nopie", decode.ErrUnsupportedVersion,
			[]string{"raw version 2 is not read by llvm-profdata 19"}},
		{"raw v4 with LLVM 16", 16, "app-llvm19-nopie-a.memprofraw", "app-llvm19-nopie", decode.ErrUnsupportedVersion,
			[]string{"raw version 4 is not read by llvm-profdata 16"}},
		{"raw v5 with LLVM 19", 19, "app-llvm22-nopie-a.memprofraw", "app-llvm22-nopie", decode.ErrUnsupportedVersion,
			[]string{"raw version 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := OpenRaw(filepath.Join(dir, tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			bin, err := elfsym.Open(filepath.Join(dir, tt.bin), &elfsym.Options{DWARFOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer bin.Close()
			_, err = Convert([]*RawProfile{raw}, bin, ConvertOptions{Release: llvmrelease.Release(tt.release)})
			if err == nil {
				t.Fatal("Convert succeeded, want error")
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// unknownSymbolizer knows no address.
type unknownSymbolizer struct {
	path string
	elfHeaders
}

func (u unknownSymbolizer) Path() string    { return u.path }
func (u unknownSymbolizer) BuildID() []byte { return nil }
func (u unknownSymbolizer) Symbolize(uint64) ([]elfsym.Frame, error) {
	return nil, errors.New("unknown")
}

func TestConvertNothingSymbolized(t *testing.T) {
	dir := fixtures(t)
	raw, err := OpenRaw(filepath.Join(dir, "app-llvm16-nopie-a.memprofraw"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Convert([]*RawProfile{raw}, unknownSymbolizer{filepath.Join(dir, "app-llvm16-nopie"), openHeaders(t, filepath.Join(dir, "app-llvm16-nopie"))}, ConvertOptions{Release: 16})
	if err == nil || !strings.Contains(err.Error(), "no entries in callstack map after symbolization") || !errors.Is(err, decode.ErrMalformed) {
		t.Errorf("Convert error = %v, want no entries in callstack map", err)
	}
	_, err = Convert([]*RawProfile{raw}, unknownSymbolizer{filepath.Join(dir, "app-llvm16-nopie"), openHeaders(t, filepath.Join(dir, "app-llvm16-nopie"))}, ConvertOptions{Release: 22})
	if err == nil || !strings.Contains(err.Error(), "No build id found in binary") {
		t.Errorf("Convert (22) error = %v, want No build id found", err)
	}
}

// TestConvertDeterministic: the worker count does not change the result.
func TestConvertDeterministic(t *testing.T) {
	dir := fixtures(t)
	raw, err := OpenRaw(filepath.Join(dir, "many-llvm19.memprofraw"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := elfsym.Open(filepath.Join(dir, "many-llvm19"), &elfsym.Options{DWARFOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	var first string
	for _, w := range []int{1, 2, 8} {
		p, err := Convert([]*RawProfile{raw}, bin, ConvertOptions{Release: 19, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		writeShowText(&b, raw, p, 0, 19)
		for _, f := range p.Frames {
			b.WriteString(p.SymbolNames[f.Function])
		}
		if first == "" {
			first = b.String()
		} else if b.String() != first {
			t.Errorf("Workers=%d changed the result", w)
		}
	}
}
