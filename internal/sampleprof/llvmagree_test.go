package sampleprof

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// TestSectionTypeReadAs32BitsAsLLVM: LLVM casts an extbinary section's
// type to its SecType enum, an int, so bits set in the field's upper half
// are ignored (internal/mutation found llvm-profdata accepting such a
// file): the profile reads as if they were clear.
func TestSectionTypeReadAs32BitsAsLLVM(t *testing.T) {
	src, err := os.ReadFile("testdata/text/basic.txt")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadText("basic.txt", src, ReadOptions{Release: 22})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.AppendExtBinary(nil, BinaryOptions{Release: 22})
	if err != nil {
		t.Fatal(err)
	}
	want := p.AppendText(nil, TextWriteOptions{Release: 22})
	secs, err := ReadSections("basic.extbinary", data)
	if err != nil {
		t.Fatal(err)
	}
	// The table follows the 9-byte magic, the 1-byte version and the
	// 8-byte count: 32 bytes per section, the type first.
	for i := range secs {
		bad := bytes.Clone(data)
		at := 18 + 32*i
		binary.LittleEndian.PutUint64(bad[at:], binary.LittleEndian.Uint64(bad[at:])|0xeb<<48)
		got, err := Read("bad.extbinary", bad, ReadOptions{Release: 22})
		if err != nil {
			t.Errorf("section %d with its type's upper half set: %v", i, err)
			continue
		}
		if text := got.AppendText(nil, TextWriteOptions{Release: 22}); !bytes.Equal(text, want) {
			t.Errorf("section %d with its type's upper half set reads as\n%s\nwant\n%s", i, text, want)
		}
	}
}
