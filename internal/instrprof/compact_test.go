package instrprof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestCompactConformance: a raw profile converted by memprof.Converter and
// written from its dense form (MarshalCompact, what tools/merge does)
// equals llvm-profdata-N merge of the raw profile, and equals marshal of
// the expanded Profile.
func TestCompactConformance(t *testing.T) {
	for _, release := range []int{16, 19, 22} {
		t.Run(fmt.Sprintf("llvm%d", release), func(t *testing.T) {
			profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", release))
			opts, err := Defaults(llvmrelease.Release(release))
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []string{"memprog.cc", "many.cc"} {
				b := buildProgram(t, src, release, "")
				out := filepath.Join(workDir, filepath.Base(b.bin)+".compact.profdata")
				runTool(t, profdata, "merge", "--profiled-binary", b.bin, "-o", out, b.raw)
				want, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := memprof.OpenRaw(b.raw)
				if err != nil {
					t.Fatal(err)
				}
				bin, err := elfsym.Open(b.bin, &elfsym.Options{DWARFOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				conv, err := memprof.NewConverter(bin, memprof.ConvertOptions{Release: llvmrelease.Release(release)})
				if err != nil {
					t.Fatal(err)
				}
				if err := conv.Add(raw); err != nil {
					t.Fatal(err)
				}
				c, err := conv.Compact()
				if err != nil {
					t.Fatal(err)
				}
				got, err := marshalCompact(c, opts)
				if err != nil {
					t.Fatal(err)
				}
				compareIndexed(t, got, want)
				viaProfile, err := marshal(c.Profile(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(viaProfile, got) {
					t.Errorf("%s: marshal(Compact.Profile()) differs from MarshalCompact", src)
				}
				dir := t.TempDir()
				if err := WriteCompactFile(filepath.Join(dir, "out.profdata"), c, opts); err != nil {
					t.Fatal(err)
				}
				if file, _ := os.ReadFile(filepath.Join(dir, "out.profdata")); !bytes.Equal(file, got) {
					t.Errorf("%s: WriteCompactFile differs from MarshalCompact", src)
				}
				bin.Close()
			}
		})
	}
}
