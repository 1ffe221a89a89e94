package sampleprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestCompressedSectionCorruption: llvm-profdata-22 writes an extbinary
// profile with every section compressed (--compress-all-sections). In
// each compressed section we flip a byte of the zlib stream and each byte
// of its adler32 trailer, cut the stream short and make the claimed size
// one too small or too big, and give each file to llvm-profdata-22 merge
// --sample and to Read. Ours rejects every one with "Uncompress failure"
// (LLVM's words), naming the section and an offset inside it; LLVM rejects
// all but one (see llvmSkips), some in other words.
func TestCompressedSectionCorruption(t *testing.T) {
	tool := testenv.Tool(t, "llvm-profdata-22")
	dir := t.TempDir()
	text := filepath.Join(dir, "in.txt")
	var src strings.Builder
	for f := range 40 {
		fmt.Fprintf(&src, "func_%d_with_a_longer_name:%d:%d\n 1: %d\n 2: %d callee_%d:%d\n", f, 1000+f, f, 10*f, 20+f, f%7, 5+f)
	}
	if err := os.WriteFile(text, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.prof")
	if out, err := exec.Command(tool, "merge", "--sample", "--extbinary", "--compress-all-sections", "-o", good, text).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(good, data, ReadOptions{Release: 22}); err != nil {
		t.Fatalf("reading llvm's: %v", err)
	}
	secs, err := ReadSections(good, data)
	if err != nil {
		t.Fatal(err)
	}
	type mutation struct {
		name string
		data []byte
		sec  Section
	}
	var muts []mutation
	for _, s := range secs {
		if s.Flags&secFlagComp == 0 || s.Size == 0 {
			continue
		}
		sec := data[s.Offset : s.Offset+s.Size]
		size, n1 := binary.Uvarint(sec)
		csize, n2 := binary.Uvarint(sec[n1:])
		start := int(s.Offset) + n1 + n2 // the zlib stream
		end := start + int(csize)
		name := sectionNames[s.Type]
		mut := func(what string, f func(b []byte)) {
			b := bytes.Clone(data)
			f(b)
			muts = append(muts, mutation{name + ": " + what, b, s})
		}
		mut("byte in the stream", func(b []byte) { b[(start+end)/2] ^= 0x55 })
		for k := range 4 {
			mut(fmt.Sprintf("adler32 byte %d", k), func(b []byte) { b[end-4+k] ^= 0x01 })
		}
		// Same-length ULEB rewrites keep the layout.
		reuleb := func(what string, at, oldLen int, v uint64) {
			if len(binary.AppendUvarint(nil, v)) != oldLen || oldLen != 1 {
				return
			}
			mut(what, func(b []byte) { b[at] = byte(v) })
		}
		reuleb("stream cut short by one byte", int(s.Offset)+n1, n2, csize-1)
		reuleb("claim one byte too small", int(s.Offset), n1, size-1)
		reuleb("claim one byte too big", int(s.Offset), n1, size+1)
	}
	if len(muts) < 20 {
		t.Fatalf("only %d mutations: the profile lost its compressed sections?", len(muts))
	}
	otherWording := 0
	for i, m := range muts {
		path := filepath.Join(dir, fmt.Sprintf("m%02d.prof", i))
		if err := os.WriteFile(path, m.data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tool, "merge", "--sample", "--text", "-o", filepath.Join(dir, "out.txt"), path)
		llvmOut, llvmErr := cmd.CombinedOutput()
		if _, isExit := llvmErr.(*exec.ExitError); llvmErr != nil && !isExit {
			t.Fatalf("%s: %v", tool, llvmErr)
		}
		_, err := Read(path, m.data, ReadOptions{Release: 22})
		// LLVM decompresses the function offset table into a buffer of
		// the size claimed and, merging without an IR module, never reads
		// it: a claim one byte too big (zlib's uncompress leaves the last
		// byte as it was) passes there. The data is corrupt all the same.
		llvmSkips := m.sec.Type == secFuncOffsetTable && strings.Contains(m.name, "too big")
		switch {
		case err == nil:
			t.Errorf("%s: accepted; llvm-profdata (rc %v): %s", m.name, llvmErr, llvmOut)
			continue
		case llvmErr == nil && !llvmSkips:
			t.Errorf("%s: llvm-profdata accepts, ours: %v", m.name, err)
			continue
		case llvmErr != nil && llvmSkips:
			t.Errorf("%s: llvm-profdata now rejects it (%s): drop the exception", m.name, llvmOut)
		}
		var de *decode.Error
		if !errors.As(err, &de) || de.File != path {
			t.Errorf("%s: %v, want a *decode.Error naming the file", m.name, err)
			continue
		}
		// The offset is in the section (the end of the stream for one cut
		// short).
		inSection := de.Offset >= int64(m.sec.Offset) && de.Offset <= int64(m.sec.Offset+m.sec.Size)
		if !strings.Contains(de.Msg, "Uncompress failure") || de.Section != sectionNames[m.sec.Type] || !inSection {
			t.Errorf("%s: %v, want Uncompress failure in %s (%#x..%#x); llvm-profdata: %s", m.name, err, sectionNames[m.sec.Type], m.sec.Offset, m.sec.Offset+m.sec.Size, llvmOut)
		}
		if !bytes.Contains(llvmOut, []byte("Uncompress failure")) {
			// zlib's uncompress succeeds into a larger buffer (LLVM then
			// finds the section's end unreached: "Malformed sample profile
			// data") and into an empty one (zlib inflates into a byte of
			// its own and reports success: "Truncated profile data").
			otherWording++
		}
	}
	t.Logf("%d corrupted compressed sections, all rejected (llvm-profdata: %d with another message than Uncompress failure, 1 accepted)", len(muts), otherWording)
}
