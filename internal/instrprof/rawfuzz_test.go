package instrprof

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
)

// FuzzReadRaw: ParseRaw returns a profile or an instrprof *decode.Error,
// never panics; what it decodes re-encodes (encodeRaw) to a profile with
// the same records, and merging it into an indexed file works.
func FuzzReadRaw(f *testing.F) {
	for _, v := range []int{8, 9, 10} {
		p := tinyRaw()
		if v == 10 {
			p.Records[1].Values[IPVKVTableTarget] = [][]ValueData{{{Value: 0x4000, Count: 2}}}
		}
		f.Add(encodeRaw(p, v))
		p.Variant |= VariantByteCoverage | VariantTemporalProf
		p.Trace = []uint64{llvmname.GUID("f"), llvmname.GUID("main")}
		for i := range p.Records {
			p.Records[i].Values = [NumValueKinds][][]ValueData{}
			if v >= 9 {
				p.Records[i].Bitmap = []byte{5}
			}
		}
		f.Add(encodeRaw(p, v))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p, err := ParseRaw("fuzz.profraw", data)
		if err != nil {
			checkDecodeError(t, err, "fuzz.profraw")
			return
		}
		q, err := ParseRaw("re.profraw", encodeRaw(p, p.Version))
		if err != nil {
			t.Fatalf("re-encoded profile does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalRecords(p.Records), normalRecords(q.Records)) {
			t.Fatalf("records differ after re-encoding:\n%+v\n%+v", p.Records, q.Records)
		}
		if a, b := slices.Sorted(slices.Values(p.Trace)), slices.Sorted(slices.Values(q.Trace)); !slices.Equal(a, b) {
			t.Fatalf("traces differ after re-encoding: %x, %x", p.Trace, q.Trace)
		}
		fp := NewFuncProfile()
		fp.AddRaw(p, 2)
		fp.AddRaw(q, 1)
		opts, _ := Defaults(22)
		var b bytes.Buffer
		if err := WriteFuncs(&b, fp, nil, nil, opts); err != nil {
			t.Fatalf("writing the merged profile: %v", err)
		}
		// The same input three times: the later folds may take the fast
		// path (at weight 1 and 2) and must give what folding it record by
		// record gives.
		slow, fast := NewFuncProfile(), NewFuncProfile()
		var rr RawReader
		for _, w := range []uint64{1, 1, 2} {
			if _, err := fast.AddRawData(&rr, "fuzz.profraw", data, w); err != nil {
				t.Fatalf("AddRawData: %v", err)
			}
			slow.AddRaw(p, w)
		}
		var x, y bytes.Buffer
		if err := WriteFuncs(&x, fast, nil, nil, opts); err != nil {
			t.Fatal(err)
		}
		if err := WriteFuncs(&y, slow, nil, nil, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Fatalf("fast and record-by-record folds differ")
		}
	})
}

// normalRecords copies records with every empty slice held as nil: a
// record's bitmap, counts or value sites of no entries decode as nil or
// as empty depending on the path, and both mean the same profile.
func normalRecords(rs []FuncRecord) []FuncRecord {
	out := make([]FuncRecord, len(rs))
	for i, r := range rs {
		if len(r.Counts) == 0 {
			r.Counts = nil
		}
		if len(r.Bitmap) == 0 {
			r.Bitmap = nil
		}
		for k := range r.Values {
			if len(r.Values[k]) == 0 {
				r.Values[k] = nil
				continue
			}
			sites := make([][]ValueData, len(r.Values[k]))
			for j, s := range r.Values[k] {
				if len(s) > 0 {
					sites[j] = s
				}
			}
			r.Values[k] = sites
		}
		out[i] = r
	}
	return out
}
