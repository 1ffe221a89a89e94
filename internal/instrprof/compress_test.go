package instrprof

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// zlibBlocks finds the compressed name blocks of a raw profile: a ULEB
// uncompressed size, a ULEB compressed size and a zlib stream that
// inflates to that size. It returns each block's offset and the offset
// and length of its stream.
func zlibBlocks(data []byte) (blocks [][3]int) {
	for i := 2; i+2 < len(data); i++ {
		if data[i] != 0x78 {
			continue
		}
		for n2 := 1; n2 <= 2; n2++ {
			for n1 := 1; n1 <= 2; n1++ {
				at := i - n1 - n2
				if at < 0 {
					continue
				}
				usize, k1 := binary.Uvarint(data[at:])
				csize, k2 := binary.Uvarint(data[at+k1:])
				if k1 != n1 || k2 != n2 || csize < 8 || uint64(len(data)-i) < csize {
					continue
				}
				zr, err := zlib.NewReader(bytes.NewReader(data[i : i+int(csize)]))
				if err != nil {
					continue
				}
				if out, err := io.ReadAll(zr); err == nil && uint64(len(out)) == usize {
					blocks = append(blocks, [3]int{at, i, int(csize)})
				}
			}
		}
	}
	return blocks
}

// TestCompressedNamesCorruption: clang-22-built raw profiles (the names
// zlib-compressed by clang, vtable names too in the vtable mode) with a
// byte of the stream or of its adler32 trailer flipped, the stream cut
// short, or the claimed size off by one, given to llvm-profdata-22 merge
// and to ParseRaw. Ours rejects each with LLVM's "failed to uncompress data
// (zlib)", naming the name section and an offset in it. LLVM rejects all
// but a claim one byte too big, which it accepts (its zlib::decompress
// shrinks the buffer to what the stream gave): we do not, the block is
// not what was written.
func TestCompressedNamesCorruption(t *testing.T) {
	tool := testenv.Tool(t, "llvm-profdata-22")
	dir := instrproftest.Fixtures(t)
	tmp := t.TempDir()
	total, llvmAccepts := 0, 0
	for _, name := range []string{"app-llvm22-ir-3.profraw", "app-llvm22-vtable-3.profraw"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseRaw(name, data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		blocks := zlibBlocks(data)
		if len(blocks) == 0 {
			t.Fatalf("%s: no compressed name block found", name)
		}
		for _, blk := range blocks {
			at, start, n := blk[0], blk[1], blk[2]
			end := start + n
			type mutation struct {
				what       string
				data       []byte
				llvmAccept bool
			}
			var muts []mutation
			mut := func(what string, llvmAccept bool, f func(b []byte)) {
				b := bytes.Clone(data)
				f(b)
				muts = append(muts, mutation{what, b, llvmAccept})
			}
			mut("byte in the stream", false, func(b []byte) { b[(start+end)/2] ^= 0x55 })
			for k := range 4 {
				mut(fmt.Sprintf("adler32 byte %d", k), false, func(b []byte) { b[end-4+k] ^= 0x01 })
			}
			if usize, k := binary.Uvarint(data[at:]); k == 1 && usize > 1 && usize < 0x7f {
				mut("claim one byte too small", false, func(b []byte) { b[at] = byte(usize - 1) })
				mut("claim one byte too big", true, func(b []byte) { b[at] = byte(usize + 1) })
			}
			for i, m := range muts {
				path := filepath.Join(tmp, fmt.Sprintf("%s-%d-%d.profraw", name, at, i))
				if err := os.WriteFile(path, m.data, 0o644); err != nil {
					t.Fatal(err)
				}
				out, llvmErr := exec.Command(tool, "merge", "-o", filepath.Join(tmp, "out.profdata"), path).CombinedOutput()
				if _, isExit := llvmErr.(*exec.ExitError); llvmErr != nil && !isExit {
					t.Fatalf("%s: %v", tool, llvmErr)
				}
				label := fmt.Sprintf("%s block at %#x: %s", name, at, m.what)
				total++
				if llvmErr == nil {
					llvmAccepts++
				}
				if (llvmErr == nil) != m.llvmAccept {
					t.Errorf("%s: llvm-profdata rc %v, expected it to accept: %v\n%s", label, llvmErr, m.llvmAccept, out)
				}
				if !m.llvmAccept && !bytes.Contains(out, []byte("failed to uncompress data (zlib)")) {
					t.Errorf("%s: llvm-profdata says %s", label, out)
				}
				_, err := ParseRaw(path, m.data)
				var de *decode.Error
				if !errors.As(err, &de) || de.File != path || !strings.Contains(de.Msg, "failed to uncompress data (zlib)") ||
					de.Offset < int64(at) || de.Offset > int64(end) || !strings.Contains(de.Section, "names") {
					t.Errorf("%s: %v, want failed to uncompress data (zlib) in the name section, at %#x..%#x", label, err, at, end)
				}
			}
		}
	}
	t.Logf("%d corrupted name blocks: all rejected by ours; llvm-profdata accepts %d (claims one byte too big)", total, llvmAccepts)
}
