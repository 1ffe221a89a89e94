package zlibcompat

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// zlibOracle compresses every input with the system zlib (python3's zlib
// module is linked to it), in one python3 process: inputs and outputs are
// framed by 4-byte little-endian lengths.
func zlibOracle(t *testing.T, level int, inputs [][]byte) [][]byte {
	t.Helper()
	py := testenv.Tool(t, "python3")
	const script = `import sys, struct, zlib
r, w = sys.stdin.buffer, sys.stdout.buffer
level = int(sys.argv[1])
assert zlib.ZLIB_RUNTIME_VERSION == "1.2.13", zlib.ZLIB_RUNTIME_VERSION
while True:
    h = r.read(4)
    if not h:
        break
    n, = struct.unpack("<I", h)
    out = zlib.compress(r.read(n), level)
    w.write(struct.pack("<I", len(out)) + out)
`
	var in bytes.Buffer
	for _, b := range inputs {
		in.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(b))))
		in.Write(b)
	}
	cmd := exec.Command(py, "-c", script, fmt.Sprint(level))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 zlib: %v\n%s", err, stderr.Bytes())
	}
	var res [][]byte
	for len(out) > 0 {
		n := binary.LittleEndian.Uint32(out)
		res = append(res, out[4:4+n])
		out = out[4+n:]
	}
	if len(res) != len(inputs) {
		t.Fatalf("python3 zlib: %d outputs for %d inputs", len(res), len(inputs))
	}
	return res
}

// testInputs are the shapes that exercise zlib's decisions: empty and tiny
// inputs, stored blocks (random data), fixed blocks (short text), long runs
// (length 258, lazy matches), the 32 KiB window slide and the 64 KiB
// buffer, and symbol-buffer flushes (16383 symbols) of literals and
// matches.
func testInputs() (names []string, inputs [][]byte) {
	add := func(name string, b []byte) {
		names = append(names, name)
		inputs = append(inputs, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int, alphabet int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(alphabet))
		}
		return b
	}
	add("empty", nil)
	add("1 byte", []byte{'a'})
	add("2 bytes", []byte("ab"))
	add("3 same", []byte("aaa"))
	add("4 same", []byte("aaaa"))
	add("hello", []byte("hello, hello, hello world\n"))
	for _, n := range []int{100, 1000, 16383, 16384, 16385, 32768, 32769, 65536, 65537, 100000, 200000} {
		add(fmt.Sprintf("zeros %d", n), make([]byte, n))
		add(fmt.Sprintf("random %d", n), random(n, 256))
		add(fmt.Sprintf("alphabet4 %d", n), random(n, 4))
		add(fmt.Sprintf("alphabet20 %d", n), random(n, 20))
	}
	var text strings.Builder
	words := []string{"sample", "profile", "function", "main", "_Z3fooi", "inline", "callsite", " ", "\n", ":", "1", "42", "1000", "foo", "bar", "baz"}
	for text.Len() < 300000 {
		text.WriteString(words[rng.IntN(len(words))])
	}
	for _, n := range []int{10, 300, 5000, 40000, 70000, 140000, 300000} {
		add(fmt.Sprintf("text %d", n), []byte(text.String()[:n]))
	}
	// Repeats at distances near the window and TOO_FAR (4096).
	for _, dist := range []int{3, 100, 4095, 4097, 32000, 32506, 32507, 32768, 40000} {
		unit := random(dist, 256)
		b := append(append(append([]byte{}, unit...), unit...), unit[:dist/2]...)
		add(fmt.Sprintf("repeat at %d", dist), b)
	}
	// Matches whose repeated 3-byte strings are far apart and short.
	short := random(50000, 256)
	for i := 5000; i+3 < len(short); i += 97 {
		copy(short[i:i+3], short[i-4500:])
	}
	add("short far matches", short)
	// Many short distinct matches: fills the symbol buffer with matches.
	var m []byte
	for len(m) < 400000 {
		m = append(m, byte(rng.IntN(256)), byte(rng.IntN(8)), 'x', 'y', 'z')
	}
	add("dense matches", m)
	// Skewed frequencies: long code lengths that overflow 15 bits.
	var skew []byte
	for i := 0; i < 40; i++ {
		skew = append(skew, bytes.Repeat([]byte{byte(i)}, 1)...)
		for j := 0; j < 1<<min(i, 17); j += 1 << 12 {
			skew = append(skew, random(1, 2)[0]+100)
		}
	}
	fib := []byte{}
	a, c := 1, 1
	for s := 0; s < 25; s++ {
		for k := 0; k < a && len(fib) < 300000; k++ {
			fib = append(fib, byte(s))
		}
		a, c = c, a+c
	}
	rng.Shuffle(len(fib), func(i, j int) { fib[i], fib[j] = fib[j], fib[i] })
	add("fibonacci frequencies", fib)
	add("skewed", skew)
	return names, inputs
}

func TestAgainstSystemZlib(t *testing.T) {
	names, inputs := testInputs()
	for _, level := range []int{9, 4, 5, 6, 7, 8} {
		if level != 9 {
			// Level 9 is the one LLVM uses; the others on the smaller
			// inputs only, to keep the test fast.
			var n [][]byte
			var ns []string
			for i, in := range inputs {
				if len(in) <= 70000 {
					n, ns = append(n, in), append(ns, names[i])
				}
			}
			inputs, names = n, ns
		}
		want := zlibOracle(t, level, inputs)
		for i, in := range inputs {
			got, err := CompressLevel(in, level)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[i]) {
				t.Errorf("level %d, %s (%d bytes): %d bytes, zlib writes %d; first difference at %d",
					level, names[i], len(in), len(got), len(want[i]), firstDiff(got, want[i]))
			}
		}
		if testing.Short() {
			break
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestLevels(t *testing.T) {
	for _, l := range []int{-1, 0, 1, 3, 10} {
		if _, err := CompressLevel([]byte("x"), l); err == nil {
			t.Errorf("level %d: no error", l)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("a"))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte("hello, hello, hello world\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Inputs stretched by repetition reach the window slide and block
		// flushes with small seeds.
		// Inputs longer than 70000 bytes add nothing the stretched ones
		// do not reach.
		if len(in) > 70000 {
			in = in[:70000]
		}
		if len(in) > 0 && in[0]&1 == 1 {
			in = bytes.Repeat(in, min(1+int(in[0])*64, 70000/len(in)+1))
		}
		for _, level := range []int{9, 4} {
			z, err := CompressLevel(in, level)
			if err != nil {
				t.Fatal(err)
			}
			r, err := zlib.NewReader(bytes.NewReader(z))
			if err != nil {
				t.Fatalf("level %d: %v", level, err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("level %d: %v", level, err)
			}
			if !bytes.Equal(got, in) {
				t.Fatalf("level %d: round trip differs", level)
			}
		}
	})
}
