package memprof_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestConvertIndexedMatchesLLVMProfdata checks the converter's whole output
// (records, and the Frames/CallStacks order the V0–V2 tables depend on)
// through the indexed writer: Convert + instrprof.Write must give the
// bytes of `llvm-profdata-N merge RAW... --profiled-binary BIN` (default
// versions; one input, and two inputs with one writer context).
//
// Profiles with access histograms are left out: LLVM 19 writes a heap
// pointer into V0 files for them.
func TestConvertIndexedMatchesLLVMProfdata(t *testing.T) {
	testenv.Tool(t, "clang++-19")
	dir := memproftest.Fixtures(t)
	for _, release := range []int{16, 19, 22} {
		raw := func(in string) string {
			return filepath.Join(dir, fmt.Sprintf("app-llvm%d-nopie-%s.memprofraw", release, in))
		}
		cases := []struct {
			inputs  []string
			threads int
			pie     bool
			version int // --memprof-version; -1: default
		}{
			{[]string{raw("a")}, 1, false, -1},
			{[]string{raw("b")}, 1, false, -1},
			{[]string{raw("dump")}, 1, false, -1},
			{[]string{raw("a"), raw("b")}, 1, false, -1},
			{[]string{raw("a"), raw("b"), raw("dump")}, 2, false, -1},
		}
		many := struct {
			inputs  []string
			threads int
			pie     bool
			version int
		}{[]string{filepath.Join(dir, fmt.Sprintf("many-llvm%d.memprofraw", release))}, 1, false, -1}
		cases = append(cases, many)
		if release >= 19 {
			many.version = 2
			cases = append(cases, many)
		}
		if release >= 19 {
			// Other MemProf versions exercise the Frames/CallStacks order
			// (V1/V2 tables) and the V3 radix tree.
			versions := []int{2, 3}
			if release == 19 {
				versions = []int{1, 2, 3}
			}
			for _, v := range versions {
				for _, in := range []string{"b", "dump"} {
					cases = append(cases, struct {
						inputs  []string
						threads int
						pie     bool
						version int
					}{[]string{raw(in)}, 1, false, v})
				}
			}
			cases = append(cases, struct {
				inputs  []string
				threads int
				pie     bool
				version int
			}{[]string{filepath.Join(dir, fmt.Sprintf("app-llvm%d-pie-a.memprofraw", release))}, 1, true, -1})
		}
		for _, c := range cases {
			inputs := c.inputs
			bin := filepath.Join(dir, fmt.Sprintf("app-llvm%d-nopie", release))
			if strings.Contains(inputs[0], "many-") {
				bin = filepath.Join(dir, fmt.Sprintf("many-llvm%d", release))
			}
			if c.pie {
				bin = filepath.Join(dir, fmt.Sprintf("app-llvm%d-pie", release))
			}
			name := fmt.Sprintf("llvm%d/%d-inputs-j%d-v%d/%s", release, len(inputs), c.threads, c.version, filepath.Base(inputs[0]))
			t.Run(name, func(t *testing.T) {
				tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", release))
				out := filepath.Join(t.TempDir(), "want.profdata")
				args := append([]string{"merge", fmt.Sprintf("--num-threads=%d", c.threads)}, inputs...)
				args = append(args, "--profiled-binary", bin, "-o", out)
				if c.version >= 0 {
					args = append(args, fmt.Sprintf("--memprof-version=%d", c.version))
				}
				if msg, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tool, err, msg)
				}
				want, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				var raws []*memprof.RawProfile
				for _, in := range inputs {
					r, err := memprof.OpenRaw(in)
					if err != nil {
						t.Fatal(err)
					}
					raws = append(raws, r)
				}
				b, err := elfsym.Open(bin, &elfsym.Options{DWARFOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				p, err := memprof.Convert(raws, b, memprof.ConvertOptions{Release: llvmrelease.Release(release), NumThreads: c.threads})
				if err != nil {
					t.Fatal(err)
				}
				opts, err := instrprof.Defaults(llvmrelease.Release(release))
				if err != nil {
					t.Fatal(err)
				}
				if c.version >= 0 {
					opts.MemProfVersion = c.version
				}
				var buf bytes.Buffer
				if err := instrprof.Write(&buf, p, opts); err != nil {
					t.Fatal(err)
				}
				got := buf.Bytes()
				if !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && i < len(want) && got[i] == want[i] {
						i++
					}
					t.Errorf("indexed output differs from %s at byte %#x (got %d bytes, want %d)", tool, i, len(got), len(want))
				}
			})
		}
	}
}
