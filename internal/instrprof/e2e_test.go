package instrprof

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestConformanceConvert is the end-to-end check: raw profile + binary →
// memprof.Convert (with elfsym's DWARF symbolizer) → Write must equal
// llvm-profdata-N merge --profiled-binary of the same raw profile.
func TestConformanceConvert(t *testing.T) {
	hist := []string{"-mllvm", "-memprof-use-callbacks=true", "-mllvm", "-memprof-histogram"}
	for _, release := range []int{16, 19, 22} {
		versions := map[int][]int{16: {0}, 19: {0, 1, 2, 3}, 22: {2, 3, 4}}[release]
		t.Run(fmt.Sprintf("llvm%d", release), func(t *testing.T) {
			profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", release))
			for _, prog := range []struct {
				src, variant string
				extra        []string
			}{{"memprog.cc", "", nil}, {"memprog.cc", ".hist", hist}, {"many.cc", "", nil}} {
				if release == 16 && prog.variant != "" {
					continue
				}
				t.Run(strings.TrimSuffix(prog.src, ".cc")+prog.variant, func(t *testing.T) {
					b := buildProgram(t, prog.src, release, prog.variant, prog.extra...)
					raw, err := memprof.OpenRaw(b.raw)
					if err != nil {
						t.Fatal(err)
					}
					bin, err := elfsym.Open(b.bin, &elfsym.Options{DWARFOnly: true})
					if err != nil {
						t.Fatal(err)
					}
					defer bin.Close()
					p, err := memprof.Convert([]*memprof.RawProfile{raw}, bin, memprof.ConvertOptions{Release: llvmrelease.Release(release)})
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range versions {
						t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
							opts, _ := Defaults(llvmrelease.Release(release))
							opts.MemProfVersion = v
							out := filepath.Join(workDir, fmt.Sprintf("%s.convert.v%d.profdata", filepath.Base(b.bin), v))
							args := []string{"merge", "--profiled-binary", b.bin, "-o", out, b.raw}
							if release > 16 {
								args = append(args, fmt.Sprintf("--memprof-version=%d", v))
							}
							runTool(t, profdata, args...)
							want, err := os.ReadFile(out)
							if err != nil {
								t.Fatal(err)
							}
							got, err := marshal(p, opts)
							if err != nil {
								t.Fatal(err)
							}
							compareIndexed(t, got, want)
						})
					}
				})
			}
		})
	}
}
