package sampleprof

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// llvmShow runs llvm-profdata-N show --sample args IN and returns its
// stdout, or ok=false when it fails.
func llvmShow(t *testing.T, rel int, in string, args ...string) (string, bool) {
	t.Helper()
	tool := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", rel))
	out, ok := llvmRun(t, rel, "show", in, args, func() ([]byte, bool) {
		cmd := exec.Command(tool, append(append([]string{"show", "--sample"}, args...), in)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatalf("%s: %v %s", tool, err, stderr.Bytes())
			}
			return nil, false
		}
		return stdout.Bytes(), true
	})
	return string(out), ok
}

// readerDiffers lists LLVM-written inputs that our reader does not read as
// that release reads them, so no dump of them can match (a reader matter,
// not the dump's).
var readerDiffers = map[string]string{
	"cs_mixed_nested.txt 16": "LLVM 16 misreads the extbinary it writes for this CS profile with a non-CS header",
}

// TestShowConformance: for each release, each input of the text corpus
// written as text, extbinary (plain, MD5, compressed) and raw binary by
// llvm-profdata-N itself, and each option, AppendShow prints what
// llvm-profdata-N show --sample prints; AppendSectionInfo prints what
// --show-sec-info-only prints. Inputs LLVM rejects are rejected.
func TestShowConformance(t *testing.T) {
	md5Main := strconv.FormatUint(llvmname.GUID("main"), 10)
	textArgs := [][]string{{}, {"--topn=2"}, {"--hot-func-list"}, {"--function=main"}, {"--function=foo"},
		{"--function=nothere", "--topn=3"}, {"--function=" + md5Main}}
	binArgs := [][]string{{}, {"--topn=2"}, {"--function=main"}}
	// The JSON and summary dumps, on text inputs, and the summary a plain
	// extbinary input carries.
	moreArgs := [][]string{{"--detailed-summary", "--hot-func-list"}, {"--json"}}
	var exact, rejected int
	for _, file := range textCorpus(t) {
		bad := strings.HasPrefix(filepath.Base(file), "bad_")
		for _, rel := range releases {
			type input struct{ enc, path string }
			inputs := []input{{"text", file}}
			for _, enc := range [][]string{{"--extbinary"}, {"--extbinary", "--use-md5"}, {"--extbinary", "--compress-all-sections"}, {"--binary"}} {
				if bad {
					break
				}
				if data, ok := llvmMerge(t, rel, file, enc...); ok {
					name := filepath.Join(t.TempDir(), "in.prof")
					if err := os.WriteFile(name, data, 0o644); err != nil {
						t.Fatal(err)
					}
					inputs = append(inputs, input{strings.Join(enc, " "), name})
				}
			}
			for _, in := range inputs {
				data, err := os.ReadFile(in.path)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s as %s, LLVM %d", filepath.Base(file), in.enc, rel)
				if why := readerDiffers[fmt.Sprintf("%s %d", filepath.Base(file), rel)]; why != "" && in.enc != "text" {
					t.Logf("%s: not compared: %s", what, why)
					continue
				}
				if strings.HasPrefix(in.enc, "--extbinary") {
					want, ok := llvmShow(t, rel, in.path, "--show-sec-info-only")
					secs, err := ReadSections(in.path, data)
					if !ok || err != nil {
						t.Errorf("%s --show-sec-info-only: llvm-profdata ok %v, we: %v", what, ok, err)
					} else if got := string(AppendSectionInfo(nil, secs, len(data))); got != want {
						t.Errorf("%s --show-sec-info-only:\n%s\nwant\n%s", what, got, want)
					} else {
						exact++
					}
				}
				argSets := textArgs
				switch in.enc {
				case "text":
					argSets = append(slices.Clip(textArgs), moreArgs...)
				case "--extbinary":
					argSets = append(slices.Clip(binArgs), moreArgs[0])
				case "--extbinary --use-md5":
				case "--extbinary --compress-all-sections":
					argSets = argSets[:1]
				default:
					argSets = binArgs
				}
				p, err := Read(in.path, data, ReadOptions{Release: llvmrelease.Release(rel)})
				for i, args := range argSets {
					want, ok := llvmShow(t, rel, in.path, args...)
					if i == 0 && (!ok || err != nil) {
						if ok != (err == nil) {
							t.Errorf("%s: llvm-profdata reads it: %v, we read it: %v", what, ok, err)
						}
						rejected++
						break
					}
					o := ShowOptions{Release: llvmrelease.Release(rel)}
					for _, a := range args {
						switch k, v, _ := strings.Cut(a, "="); k {
						case "--topn":
							o.TopN, _ = strconv.Atoi(v)
						case "--hot-func-list":
							o.HotList = true
						case "--function":
							o.Function, o.HasFunction = v, true
						case "--json":
							o.JSON = true
						case "--detailed-summary":
							o.DetailedSummary = true
						}
					}
					got := string(p.AppendShow(nil, o))
					if got == want {
						exact++
						continue
					}
					t.Errorf("%s %v:\n%s\nwant\n%s", what, args, got, want)
				}
			}
		}
	}
	t.Logf("%d outputs identical, %d inputs rejected by both", exact, rejected)
}
