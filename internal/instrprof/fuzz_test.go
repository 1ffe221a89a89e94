package instrprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/memprof"
)

func seedFiles(f *testing.F, pattern string) {
	names, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				f.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				f.Fatal(err)
			}
		}
		f.Add(data)
	}
}

// recordSet is the sorted list of record dumps (hot/cold fields only), to
// compare profiles whose record order may legitimately differ.
func recordSet(p *memprof.Profile) []string {
	var b strings.Builder
	writeRecords(&b, p, HotColdSchema)
	s := strings.Split(b.String(), "Record ")
	slices.Sort(s)
	return s
}

// FuzzRead: Read never panics; whatever it decodes must re-encode and read
// back to the same records.
func FuzzRead(f *testing.F) {
	seedFiles(f, "*.profdata")
	// The large many.*.gz fixtures are left out: minimizing 40 KB inputs takes
	// the fuzzer most of a short CI run.
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read("fuzz", data)
		if err != nil || file.Profile == nil {
			return
		}
		// Shared radix prefixes let a small input name millions of frames;
		// re-encoding those is correct but too slow for fuzzing.
		frames := 0
		for _, r := range file.Profile.Records {
			for _, a := range r.AllocSites {
				frames += len(a.CallStack)
			}
			for _, c := range r.CallSites {
				frames += len(c.Frames)
			}
		}
		if frames > 20000 {
			return
		}
		opts := WriteOptions{LLVMRelease: 22, IndexVersion: 13, MemProfVersion: file.MemProfVersion}
		if file.MemProfVersion <= 1 {
			opts = WriteOptions{LLVMRelease: 19, IndexVersion: 12, MemProfVersion: file.MemProfVersion}
		}
		out, err := marshal(file.Profile, opts)
		if err != nil {
			t.Fatalf("marshal of a decoded profile: %v", err)
		}
		again, err := Read("re-encoded", out)
		if err != nil {
			t.Fatalf("Read of re-encoded profile: %v", err)
		}
		if !slices.Equal(recordSet(file.Profile), recordSet(again.Profile)) {
			t.Fatalf("records changed in re-encoding")
		}
	})
}

// FuzzReadYAML: ReadYAML never panics; what it accepts writes as YAML and
// reads back to the same records.
func FuzzReadYAML(f *testing.F) {
	names, _ := filepath.Glob("testdata/yamlin*.yaml") // small seeds minimize quickly
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadYAML("fuzz.yaml", data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteYAMLSchema(&buf, p, memprof.KnownFields(22), nil); err != nil {
			t.Fatal(err)
		}
		q, err := ReadYAML("again.yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("ReadYAML of WriteYAML output: %v\n%s", err, buf.Bytes())
		}
		if !slices.Equal(recordSet(p), recordSet(q)) {
			t.Fatalf("records changed in YAML round trip")
		}
	})
}
