package instrprof

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/memprofidx"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// fixtures are the checked-in outputs of gen.sh, with the options that make
// Write reproduce them.
var fixtures = []struct {
	file           string
	opts           WriteOptions
	memProfVersion int
	schemaLen      int
	records        int
}{
	{"memprog.llvm16.v0.profdata", WriteOptions{16, 9, 0, false}, 0, 25, 8},
	{"memprog.llvm19.v0.profdata", WriteOptions{19, 12, 0, false}, 0, 27, 8},
	{"memprog.llvm19.prev.profdata", WriteOptions{19, 11, 0, false}, 0, 27, 8},
	{"memprog.llvm19.v1.profdata", WriteOptions{19, 12, 1, false}, 1, 27, 8},
	{"memprog.llvm19.v2.profdata", WriteOptions{19, 12, 2, false}, 2, 4, 8},
	{"memprog.llvm19.v2.full.profdata", WriteOptions{19, 12, 2, true}, 2, 27, 8},
	{"memprog.llvm19.v3.profdata", WriteOptions{19, 12, 3, false}, 3, 4, 8},
	{"memprog.llvm19.v3.full.profdata", WriteOptions{19, 12, 3, true}, 3, 27, 8},
	{"memprog.llvm22.v2.profdata", WriteOptions{22, 13, 2, false}, 2, 4, 8},
	{"memprog.llvm22.v2.full.profdata", WriteOptions{22, 13, 2, true}, 2, 27, 8},
	{"memprog.llvm22.v3.profdata", WriteOptions{22, 13, 3, false}, 3, 4, 8},
	{"memprog.llvm22.v3.full.profdata", WriteOptions{22, 13, 3, true}, 3, 27, 8},
	{"memprog.llvm22.v4.profdata", WriteOptions{22, 13, 4, false}, 4, 4, 8},
	{"memprog.llvm22.v4.full.profdata", WriteOptions{22, 13, 4, true}, 4, 27, 8},
	{"memprog.llvm22.prev.profdata", WriteOptions{22, 11, 3, false}, 3, 4, 8},
	{"hist.llvm19.v0.full.profdata", WriteOptions{19, 12, 0, true}, 0, 27, 8},
	{"hist.llvm19.v1.full.profdata", WriteOptions{19, 12, 1, true}, 1, 27, 8},
	{"hist.llvm19.v2.full.profdata", WriteOptions{19, 12, 2, true}, 2, 27, 8},
	{"hist.llvm19.v3.full.profdata", WriteOptions{19, 12, 3, true}, 3, 27, 8},
	{"hist.llvm22.v2.full.profdata", WriteOptions{22, 13, 2, true}, 2, 27, 8},
	{"hist.llvm22.v3.full.profdata", WriteOptions{22, 13, 3, true}, 3, 27, 8},
	{"hist.llvm22.v4.full.profdata", WriteOptions{22, 13, 4, true}, 4, 27, 8},
	{"many.llvm16.v0.profdata.gz", WriteOptions{16, 9, 0, false}, 0, 25, 121},
	{"many.llvm19.v0.profdata.gz", WriteOptions{19, 12, 0, false}, 0, 27, 121},
	{"many.llvm19.v2.profdata.gz", WriteOptions{19, 12, 2, false}, 2, 4, 121},
	{"many.llvm22.v2.profdata.gz", WriteOptions{22, 13, 2, false}, 2, 4, 121},
	{"many.llvm22.v4.profdata.gz", WriteOptions{22, 13, 4, false}, 4, 4, 121},
	{"yamlin.llvm22.v2.profdata", WriteOptions{22, 13, 2, false}, 2, 4, 2},
	{"yamlin.llvm22.v3.profdata", WriteOptions{22, 13, 3, false}, 3, 4, 2},
	{"yamlin.llvm22.v4.profdata", WriteOptions{22, 13, 4, false}, 4, 4, 2},
}

func readFixture(t *testing.T, name string) ([]byte, *File) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Read(name, data)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return data, f
}

// TestFixtures reads every fixture, checks its key fields and its golden
// String() dump, and requires Write to reproduce it.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			data, f := readFixture(t, fx.file)
			if got := f.Header.IndexVersion(); got != fx.opts.IndexVersion {
				t.Errorf("IndexVersion = %d, want %d", got, fx.opts.IndexVersion)
			}
			if f.Header.Version>>32 != VariantMemProf>>32 {
				t.Errorf("variant flags = %#x, want MemProf only", f.Header.Version>>32<<32)
			}
			if f.MemProfVersion != fx.memProfVersion {
				t.Errorf("MemProfVersion = %d, want %d", f.MemProfVersion, fx.memProfVersion)
			}
			if len(f.Schema) != fx.schemaLen {
				t.Errorf("len(Schema) = %d, want %d", len(f.Schema), fx.schemaLen)
			}
			if len(f.Profile.Records) != fx.records {
				t.Errorf("len(Records) = %d, want %d", len(f.Profile.Records), fx.records)
			}
			if f.NumFunctions != 0 || len(f.BinaryIDs) != 0 || len(f.VTableNames) != 0 {
				t.Errorf("functions/binary ids/vtable names = %d/%d/%d, want none", f.NumFunctions, len(f.BinaryIDs), len(f.VTableNames))
			}
			if (f.MemProfSummary != nil) != (fx.memProfVersion == 4) {
				t.Errorf("MemProfSummary present = %v for V%d", f.MemProfSummary != nil, fx.memProfVersion)
			}
			checkGolden(t, filepath.Join("testdata", fx.file+".string"), []byte(f.String()))

			got, err := marshal(f.profileForWrite(fx.opts.Release), fx.opts)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			compareIndexed(t, got, data)

			// Decode → encode → decode gives the same dump.
			f2, err := Read("rewritten", got)
			if err != nil {
				t.Fatalf("Read(marshal): %v", err)
			}
			zeroHistogramPointers(f.Profile)
			if a, b := f2.String(), f.String(); a != b {
				t.Errorf("re-read dump differs:\n%s", lineDiff(b, a))
			}
		})
	}
}

// compareIndexed requires got to equal the LLVM-written want byte for byte,
// except for MemInfoBlock field 27 (AccessHistogram): LLVM writes the
// address of its in-memory histogram buffer there, we write 0 (see
// WriteOptions). Those fields are compared semantically: both files must
// decode to the same profile once the field is zeroed, and every differing
// byte must be a zero byte of ours.
func compareIndexed(t *testing.T, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("output is %d bytes, LLVM wrote %d", len(got), len(want))
	}
	gf, err1 := Read("ours", got)
	wf, err2 := Read("llvm", want)
	if err1 != nil || err2 != nil {
		t.Fatalf("outputs differ and do not both decode: %v, %v", err1, err2)
	}
	ptrs := 0
	for _, r := range wf.Profile.Records {
		for _, a := range r.AllocSites {
			if a.Info.AccessHistogram != 0 {
				ptrs++
			}
		}
	}
	if !slices.Contains(wf.Schema, memprof.MetaAccessHistogram) || ptrs == 0 {
		t.Fatalf("output differs from LLVM's at %#x", firstDiff(got, want))
	}
	diff := 0
	for i := range got {
		if got[i] != want[i] {
			diff++
			if got[i] != 0 {
				t.Fatalf("byte %#x = %#x, LLVM wrote %#x (only histogram pointers may differ)", i, got[i], want[i])
			}
		}
	}
	if diff > 8*ptrs {
		t.Fatalf("%d bytes differ, more than %d histogram pointers can explain", diff, ptrs)
	}
	zeroHistogramPointers(wf.Profile)
	if a, b := gf.String(), wf.String(); a != b {
		t.Fatalf("decoded outputs differ beyond histogram pointers:\n%s", lineDiff(b, a))
	}
}

func zeroHistogramPointers(p *memprof.Profile) {
	for _, r := range p.Records {
		for i := range r.AllocSites {
			r.AllocSites[i].Info.AccessHistogram = 0
		}
	}
}

func firstDiff(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (-want +got):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff is a small line diff: lines only in want with "-", only in got
// with "+", stopping after 20.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(wl), len(gl)) && n < 20; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n-%s\n+%s\n", i+1, w, g)
			n++
		}
	}
	return b.String()
}

// TestYAMLFixtures checks WriteYAML against llvm-profdata-22 show --memory
// output and that ReadYAML of that output rebuilds the profile.
func TestYAMLFixtures(t *testing.T) {
	for _, fx := range fixtures {
		if !strings.Contains(fx.file, "llvm22") || strings.HasSuffix(fx.file, ".gz") {
			continue
		}
		t.Run(fx.file, func(t *testing.T) {
			_, f := readFixture(t, fx.file)
			want, err := os.ReadFile(filepath.Join("testdata", strings.TrimSuffix(fx.file, ".profdata")+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := f.WriteYAML(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("WriteYAML differs from llvm-profdata-22 show --memory (-want +got):\n%s", lineDiff(string(want), buf.String()))
			}
			p, err := memprof.ReadYAML("show.yaml", want)
			if err != nil {
				t.Fatal(err)
			}
			f2 := *f
			f2.Profile = p
			f2.Profile.Frames, f2.Profile.CallStacks = f.Profile.Frames, f.Profile.CallStacks
			if a, b := f2.String(), f.String(); a != b {
				t.Errorf("ReadYAML(show) differs:\n%s", lineDiff(b, a))
			}
		})
	}
}

// TestYAMLToIndexed: our ReadYAML+Write of yamlin.yaml equals
// llvm-profdata-22 merge --memprof-version=V of the same file.
func TestYAMLToIndexed(t *testing.T) {
	in, err := os.ReadFile("testdata/yamlin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := memprof.ReadYAML("yamlin.yaml", in)
	if err != nil {
		t.Fatal(err)
	}
	for v := 2; v <= 4; v++ {
		want, err := os.ReadFile(fmt.Sprintf("testdata/yamlin.llvm22.v%d.profdata", v))
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshal(p, WriteOptions{Release: 22, IndexVersion: 13, MemProfVersion: v})
		if err != nil {
			t.Fatal(err)
		}
		compareIndexed(t, got, want)
	}
	// The default WriteYAML of the parsed profile is what LLVM prints.
	want, _ := os.ReadFile("testdata/yamlin.llvm22.v4.yaml")
	var buf bytes.Buffer
	if err := memprofidx.WriteYAML(&buf, p); err != nil {
		t.Fatal(err)
	}
	// LLVM prints records in on-disk order; ours keeps document order.
	f, err := Read("v4", mustMarshal(t, p, WriteOptions{22, 13, 4, false}))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := memprofidx.WriteYAML(&buf, f.Profile); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("WriteYAML differs (-want +got):\n%s", lineDiff(string(want), buf.String()))
	}
}

func mustMarshal(t *testing.T, p *memprof.Profile, o WriteOptions) []byte {
	t.Helper()
	b, err := marshal(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		opts WriteOptions
		want string // "" = valid
	}{
		{WriteOptions{16, 9, 0, false}, ""},
		{WriteOptions{16, 9, 2, false}, "LLVM 16 cannot read MemProf version 2"},
		{WriteOptions{16, 12, 0, false}, "LLVM 16 cannot use index version 12"},
		{WriteOptions{16, 9, 0, true}, "no --memprof-full-schema"},
		{WriteOptions{19, 12, 3, true}, ""},
		{WriteOptions{19, 11, 1, false}, ""},
		{WriteOptions{19, 12, 4, false}, "LLVM 19 cannot read MemProf version 4"},
		{WriteOptions{19, 13, 3, false}, "LLVM 19 cannot use index version 13"},
		{WriteOptions{22, 13, 4, false}, ""},
		{WriteOptions{22, 13, 1, false}, "LLVM 22 cannot read MemProf version 1"},
		{WriteOptions{22, 13, 5, false}, "LLVM 22 cannot read MemProf version 5"},
		{WriteOptions{20, 12, 3, false}, "unsupported LLVM release 20"},
	} {
		err := tc.opts.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v.Validate() = %v, want %q", tc.opts, err, tc.want)
		}
	}
	for _, r := range []int{16, 19, 22} {
		o, err := Defaults(llvmrelease.Release(r))
		if err != nil || o.Validate() != nil {
			t.Errorf("Defaults(%d) = %+v, %v; Validate = %v", r, o, err, o.Validate())
		}
	}
}

// TestReadErrors checks that corrupt inputs fail with errors naming the
// section and offset, and the right sentinel.
func TestReadErrors(t *testing.T) {
	good, _ := os.ReadFile("testdata/memprog.llvm22.v3.profdata")
	mod := func(off int, b ...byte) []byte {
		d := slices.Clone(good)
		copy(d[off:], b)
		return d
	}
	for _, tc := range []struct {
		name string
		data []byte
		is   error
		want string
	}{
		{"empty", nil, decode.ErrTruncated, "header at offset 0x0"},
		{"bad magic", mod(0, 0), decode.ErrBadMagic, "bad magic"},
		{"index version", mod(8, 99), decode.ErrUnsupportedVersion, "unsupported index version 99"},
		{"truncated header", good[:30], decode.ErrTruncated, "header at offset 0x18"},
		{"memprof version", mod(0x220, 7), decode.ErrUnsupportedVersion, "MemProf version 7 not supported"},
		{"schema", mod(0x240, 99), decode.ErrMalformed, "memprof schema invalid"},
		{"truncated", good[:len(good)-40], decode.ErrTruncated, "memprof record table"},
		{"huge table", mod(len(good)-0x78, 0, 0, 0, 0, 0, 0, 0, 0x40), decode.ErrMalformed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("bad.profdata", tc.data)
			if err == nil {
				t.Fatal("Read succeeded")
			}
			var de *decode.Error
			if !errors.As(err, &de) || de.Format != "instrprof" || de.File != "bad.profdata" || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.profdata") {
				t.Errorf("Read error = %v, want %v containing %q", err, tc.is, tc.want)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	_, f := readFixture(t, "memprog.llvm22.v3.profdata")
	name := filepath.Join(t.TempDir(), "out.profdata")
	if err := WriteFile(name, f.Profile, WriteOptions{22, 13, 3, false}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(name)
	want, _ := os.ReadFile("testdata/memprog.llvm22.v3.profdata")
	if !bytes.Equal(got, want) {
		t.Error("WriteFile output differs")
	}
	ents, _ := os.ReadDir(filepath.Dir(name))
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only the output", len(ents))
	}
	if err := WriteFile(name, f.Profile, WriteOptions{22, 13, 0, false}); err == nil {
		t.Error("WriteFile with V0 for LLVM 22 succeeded")
	}
}

// TestDerivedOrder: a Profile without Frames/CallStacks still writes (in
// first-use order) and reads back to the same records.
func TestDerivedOrder(t *testing.T) {
	_, f := readFixture(t, "many.llvm19.v2.profdata.gz")
	p := &memprof.Profile{Records: f.Profile.Records}
	for _, o := range []WriteOptions{{19, 12, 0, false}, {19, 12, 2, false}, {22, 13, 4, false}} {
		b := mustMarshal(t, p, o)
		g, err := Read("derived", b)
		if err != nil {
			t.Fatal(err)
		}
		var w1, w2 strings.Builder
		writeRecords(&w1, f.Profile, memprofidx.HotColdSchema)
		writeRecords(&w2, g.Profile, memprofidx.HotColdSchema)
		// Record order follows the on-disk table, which depends only on
		// insertion order, so compare as sets of record dumps.
		a, c := strings.Split(w1.String(), "Record "), strings.Split(w2.String(), "Record ")
		slices.Sort(a)
		slices.Sort(c)
		if !slices.Equal(a, c) {
			t.Errorf("%+v: records differ after round trip", o)
		}
	}
}

// TestEmptyProfile: a profile without records writes (llvm-profdata-22 show
// prints "---\n{}\n..." for it) and reads back empty.
func TestEmptyProfile(t *testing.T) {
	var buf bytes.Buffer
	if err := memprofidx.WriteYAML(&buf, &memprof.Profile{}); err != nil {
		t.Fatal(err)
	}
	if want := "---\n{}\n...\n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("WriteYAML(empty) = %q, want suffix %q", buf.String(), want)
	}
	for _, o := range []WriteOptions{{16, 9, 0, false}, {19, 12, 0, false}, {19, 12, 3, false}, {22, 13, 2, false}, {22, 13, 4, false}} {
		b := mustMarshal(t, &memprof.Profile{}, o)
		f, err := Read("empty", b)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if len(f.Profile.Records) != 0 || f.MemProfVersion != o.MemProfVersion {
			t.Errorf("%+v: read back %d records, V%d", o, len(f.Profile.Records), f.MemProfVersion)
		}
	}
}
