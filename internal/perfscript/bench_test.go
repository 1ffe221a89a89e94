package perfscript

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/perfscript/tracetest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// benchTrace records a ~10 MB trace of calls.c (PIE) with a short period:
// LBR-only and its hybrid twin from the same run.
func benchTrace(b *testing.B) (bin, lbr, hybrid string) {
	progs := buildPrograms(b)
	p := progs[0]
	binData, err := os.ReadFile(p.bin)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"--period", "31", "--jitter", "7", "--pid", "9"}
	tracer := tracetest.Tracer(b)
	tracerData, err := os.ReadFile(tracer)
	if err != nil {
		b.Fatal(err)
	}
	dir := testenv.Cached(b, "perfscript-bench", []string{string(binData), string(tracerData), fmt.Sprint(args)}, func(dir string) error {
		cmd := exec.Command(tracer, append(args, "--out", filepath.Join(dir, "lbr.script"),
			"--also", "hybrid="+filepath.Join(dir, "hybrid.script"), "--", p.bin, "3000")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("lbr-trace: %v\n%s", err, out)
		}
		return nil
	})
	return p.bin, filepath.Join(dir, "lbr.script"), filepath.Join(dir, "hybrid.script")
}

// BenchmarkParse measures parsing and aggregation (bytes per second of
// trace) of an LBR trace and of a hybrid trace read context-insensitively.
func BenchmarkParse(b *testing.B) {
	binPath, lbr, hybrid := benchTrace(b)
	bin, err := OpenBinary(binPath)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{{"lbr", lbr}, {"hybrid", hybrid}} {
		data, err := os.ReadFile(tc.path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(tc.name, bytes.NewReader(data), bin, Options{IgnoreStackSamples: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
