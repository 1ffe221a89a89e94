package profview_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/sampleprof"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestSamplePprof converts text sample profiles (plain and CS) to pprof:
// the result parses back and is valid, go tool pprof's totals are the
// body and head samples of the profile, and the extbinary profile
// llvm-profdata-19 writes from the same text gives the same bytes.
func TestSamplePprof(t *testing.T) {
	profdata := testenv.Tool(t, "llvm-profdata-19")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, name := range []string{"basic.txt", "cs.txt"} {
		t.Run(name, func(t *testing.T) {
			text := filepath.Join("../sampleprof/testdata/text", name)
			ext := filepath.Join(t.TempDir(), "p.extbinary")
			if b, err := exec.Command(profdata, "merge", "--sample", "--extbinary", text, "-o", ext).CombinedOutput(); err != nil {
				t.Fatalf("llvm-profdata: %v\n%s", err, b)
			}
			var fromText, fromExt bytes.Buffer
			if err := profmerge.ShowSampleView(&fromText, text, profmerge.SampleViewOptions{Release: 19}); err != nil {
				t.Fatal(err)
			}
			if err := profmerge.ShowSampleView(&fromExt, ext, profmerge.SampleViewOptions{Release: 19}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fromText.Bytes(), fromExt.Bytes()) {
				t.Errorf("the pprof of llvm-profdata's extbinary differs from the text profile's")
			}
			p, err := profile.ParseData(fromText.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if err := p.CheckValid(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(text)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := sampleprof.Read(text, data, sampleprof.ReadOptions{Release: 19})
			if err != nil {
				t.Fatal(err)
			}
			var body, head int64
			var walk func(fs *sampleprof.FunctionSamples)
			walk = func(fs *sampleprof.FunctionSamples) {
				for _, b := range fs.Body {
					body += int64(b.Samples)
				}
				for _, c := range fs.Callsites {
					walk(c.Callee)
				}
			}
			for _, fs := range sp.Funcs {
				head += int64(fs.HeadSamples)
				walk(fs)
			}
			file := filepath.Join(t.TempDir(), "p.pb.gz")
			if err := os.WriteFile(file, fromText.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for index, want := range map[string]int64{"samples": body, "head_samples": head} {
				out := runPprof(t, goTool, "-top", "-sample_index="+index, file)
				if w := fmt.Sprintf("of %d total", want); !bytes.Contains([]byte(out), []byte(w)) {
					t.Errorf("pprof -top -sample_index=%s does not say %q:\n%s", index, w, out)
				}
			}
		})
	}
}
