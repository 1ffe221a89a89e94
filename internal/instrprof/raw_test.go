package instrprof

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

// TestReadRawFixtures checks what the reader finds in the clang-written
// raws against facts of the programs (testdata/instrprof): versions,
// variants, binary ids, the records' names, and counts that follow from
// the run's argument.
func TestReadRawFixtures(t *testing.T) {
	dir := instrproftest.Fixtures(t)
	rawVersion := map[int]int{16: 8, 19: 10, 22: 10}
	for _, rel := range instrproftest.Releases {
		for _, mode := range instrproftest.Modes(llvmrelease.Release(rel)) {
			name := fmt.Sprintf("app-llvm%d-%s-50.profraw", rel, mode)
			t.Run(name, func(t *testing.T) {
				p, err := OpenRaw(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if p.Version != rawVersion[rel] {
					t.Errorf("version %d, want %d", p.Version, rawVersion[rel])
				}
				fe := mode == "fe" || mode == "mcdc" || mode == "sbc"
				if ir := p.Variant&VariantIRProf != 0; ir == fe {
					t.Errorf("variant %#x: IR flag %v for mode %s", p.Variant, ir, mode)
				}
				if len(p.BinaryIDs) != 1 || len(p.BinaryIDs[0]) != 20 {
					t.Errorf("binary ids %x, want one 20-byte GNU build id", p.BinaryIDs)
				}
				byName := map[string]*FuncRecord{}
				for i := range p.Records {
					byName[p.Records[i].Name] = &p.Records[i]
				}
				for _, want := range []string{"main", "lib_work"} {
					if byName[want] == nil {
						t.Errorf("no record for %s; have %d records", want, len(p.Records))
					}
				}
				if m := byName["main"]; m != nil && mode == "fe" && m.Counts[0] != 1 {
					t.Errorf("front-end main entry count %d, want 1", m.Counts[0])
				}
				if w := byName["lib_work"]; w != nil && mode == "fe" && (len(w.Counts) < 2 || w.Counts[1] != 100) {
					t.Errorf("front-end lib_work counts %v, want the loop's 100 second", w.Counts)
				}
				if mode == "mcdc" && len(byName["lib_work"].Bitmap) == 0 {
					t.Errorf("mcdc: lib_work has no bitmap bytes")
				}
				if mode == "temporal" && len(p.Trace) == 0 {
					t.Errorf("temporal: no trace")
				}
				if mode == "ir" {
					m := byName["main"]
					if len(m.Values[IPVKIndirectCallTarget]) != 1 || len(m.Values[IPVKMemOPSize]) != 1 {
						t.Fatalf("ir: main value sites %v", m.Values)
					}
					for _, v := range m.Values[IPVKIndirectCallTarget][0] {
						if v.Value != llvmname.GUID(nameEnding(p, ";add", ":add")) && v.Value != llvmname.GUID(nameEnding(p, ";mul", ":mul")) {
							t.Errorf("indirect-call target %#x is neither add nor mul", v.Value)
						}
					}
				}
				// Raw encoding round trip.
				q, err := ParseRaw("re", encodeRaw(p, p.Version))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(p.Records, q.Records) || !reflect.DeepEqual(p.Trace, q.Trace) {
					t.Errorf("re-encoded profile decodes differently")
				}
			})
		}
	}
}

func nameEnding(p *RawProfile, suffixes ...string) string {
	for _, n := range p.Names {
		for _, s := range suffixes {
			if len(n) >= len(s) && n[len(n)-len(s):] == s {
				return n
			}
		}
	}
	return ""
}

// TestReadRawErrors: broken inputs give decode errors naming the file, the
// section and the offset.
func TestReadRawErrors(t *testing.T) {
	good := encodeRaw(tinyRaw(), 10)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for _, c := range []struct {
		name string
		data []byte
		kind error
	}{
		{"empty", nil, decode.ErrTruncated},
		{"bad magic", mut(func(b []byte) []byte { b[0] ^= 1; return b }), decode.ErrBadMagic},
		{"version 7", mut(func(b []byte) []byte { le.PutUint64(b[8:], 7); return b }), decode.ErrUnsupportedVersion},
		{"version 11", mut(func(b []byte) []byte { le.PutUint64(b[8:], 11); return b }), decode.ErrUnsupportedVersion},
		{"truncated header", good[:40], decode.ErrTruncated},
		{"truncated", good[:len(good)-9], decode.ErrTruncated},
		{"NumData lies", mut(func(b []byte) []byte { le.PutUint64(b[24:], 1<<60); return b }), decode.ErrTruncated},
		{"counter offset", mut(func(b []byte) []byte { le.PutUint64(b[80:], 1<<20); return b }), decode.ErrMalformed},
		{"unknown name", mut(func(b []byte) []byte { b[128+len(tinyRaw().BinaryIDs[0])+8+8] ^= 1; return b }), decode.ErrMalformed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRaw("x.profraw", c.data)
			if err == nil {
				t.Fatal("no error")
			}
			checkDecodeError(t, err, "x.profraw")
			if !errors.Is(err, c.kind) {
				t.Errorf("error %v, want %v", err, c.kind)
			}
		})
	}
}

// tinyRaw is a two-function profile with value sites and a binary id.
func tinyRaw() *RawProfile {
	return &RawProfile{
		Version:   10,
		Variant:   VariantIRProf,
		BinaryIDs: [][]byte{{1, 2, 3, 4}},
		Names:     []string{"main", "f"},
		Records: []FuncRecord{
			{Name: "main", Hash: 7, Counts: []uint64{1, 2, 3},
				Values: [NumValueKinds][][]ValueData{
					{{{Value: llvmname.GUID("f"), Count: 3}}},
					{{{Value: 8, Count: 1}, {Value: 16, Count: 2}}, nil},
				}},
			{Name: "f", Hash: 9, Counts: []uint64{3}},
		},
	}
}
