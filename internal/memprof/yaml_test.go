package memprof

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

func TestReadYAMLErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty YAML document"},
		{"decimal GUID", "---\nHeapProfileRecords:\n  - GUID: 1234\n", "use a hexadecimal GUID or a function instead"},
		{"bad hex", "---\nHeapProfileRecords:\n  - GUID: 0xZZ\n", "invalid hex64 number"},
		{"bad MIB key", "---\nHeapProfileRecords:\n  - GUID: 0x1\n    AllocSites:\n      - Callstack: []\n        MemInfoBlock:\n          Bogus: 1\n", "Key is not a valid validation event"},
		{"missing frame key", "---\nHeapProfileRecords:\n  - GUID: 0x1\n    CallSites:\n      - Frames:\n        - { Function: 0x2, LineOffset: 1 }\n", "missing required key 'Column'"},
		{"no GUID", "---\nHeapProfileRecords:\n  - CallSites: []\n", "missing required key 'GUID'"},
		{"syntax", "---\nHeapProfileRecords:\n  - GUID: [\n", "YAML at offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadYAML("x.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadYAML error = %v, want %q", err, tc.want)
			}
			var de *decode.Error
			if !errors.As(err, &de) || de.File != "x.yaml" || de.Section != "YAML" || !errors.Is(err, decode.ErrMalformed) && !errors.Is(err, decode.ErrTruncated) {
				t.Errorf("ReadYAML error %v is not a YAML *decode.Error naming x.yaml", err)
			}
			if tc.name == "bad hex" && de != nil && de.Offset != int64(strings.Index(tc.in, "0xZZ")) {
				t.Errorf("bad hex: offset %d, want %d", de.Offset, strings.Index(tc.in, "0xZZ"))
			}
		})
	}
}

// TestReadYAMLNames: a GUID given as a function name is the MD5 GUID of its
// canonical name (suffixes ".llvm." and ".part." stripped).
func TestReadYAMLNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		want uint64
	}{
		{"main", 15822663052811949562},
		{"main.llvm.123", 15822663052811949562},
		{"main.part.0", 15822663052811949562},
		{"_Z3foov", 0x7f8d88fcc70a347b},
	} {
		p, err := ReadYAML("n.yaml", []byte("---\nHeapProfileRecords:\n  - GUID: "+tc.name+"\n    CallSites: []\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Records[0].GUID; got != tc.want {
			t.Errorf("GUID: %s read as %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

// FuzzReadYAML: ReadYAML never panics and fails only with *decode.Error
// values; what it accepts writes as YAML and reads back to a profile that
// writes the same bytes.
func FuzzReadYAML(f *testing.F) {
	f.Add([]byte(`---
HeapProfileRecords:
  - GUID: 0x1234
    AllocSites:
      - Callstack:
          - { Function: 0x1234, LineOffset: 1, Column: 2, IsInlineFrame: false }
        MemInfoBlock:
          AllocCount: 1
          TotalSize: 8
    CallSites:
      - Frames:
          - { Function: foo, LineOffset: 3, Column: 0, IsInlineFrame: true }
        CalleeGuids: [ 0x7 ]
...
`))
	f.Add([]byte("# MemProfSummary\n---\nHeapProfileRecords:\n  - GUID: main\n    CallSites:\n      - - { Function: 0x5, LineOffset: 0, Column: 1, IsInlineFrame: y }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		p, err := ReadYAML("fuzz.yaml", data)
		if err != nil {
			checkDecodeError(t, err, "memprof", "fuzz.yaml")
			return
		}
		var a, b bytes.Buffer
		if err := WriteYAML(&a, p, KnownFields(22), nil); err != nil {
			t.Fatal(err)
		}
		q, err := ReadYAML("again.yaml", a.Bytes())
		if err != nil {
			t.Fatalf("ReadYAML of WriteYAML output: %v\n%s", err, a.Bytes())
		}
		if err := WriteYAML(&b, q, KnownFields(22), nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("records changed in YAML round trip:\n%s\n---- then\n%s", a.Bytes(), b.Bytes())
		}
	})
}
