package main

import (
	"bytes"
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

// runRef runs llvm-profgen and returns its stderr; it fails the test if
// llvm-profgen fails.
func runRef(t *testing.T, ref string, args []string) string {
	t.Helper()
	cmd := exec.Command(ref, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(ref), strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}

// showSample is llvm-profdata-22 show --sample of the profile f.
func showSample(t *testing.T, f string) []byte {
	t.Helper()
	out, err := exec.Command(testenv.Tool(t, "llvm-profdata-22"), "show", "--sample", f).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-profdata show %s: %v\n%s", f, err, out)
	}
	return out
}

// TestUnsymbolizedProfile reads unsymbolized profiles back
// (--unsymbolized-profile) and compares with llvm-profgen-19 and -22
// reading the same text: the unsymbolized profile llvm-profgen wrote and
// ours (which must be the same bytes), non-CS (LBR traces, hybrid ones
// with --ignore-stack-samples) and CS (hybrid traces) of DWARF and
// pseudo-probe binaries, text and extbinary, warnings included.
// llvm-profgen-19 and -22 crash (SIGSEGV) reading the CS profile of a
// probe binary (its address contexts): there the reference is
// llvm-profgen's profile of the trace itself, which the text keeps
// everything of, and only the profile is compared (the trace's warnings
// are not repeated). llvm-profgen-19 orders the functions of non-CS probe
// profiles by malloc's addresses (see compareCS): extbinary profiles of
// the same size are then compared as llvm-profdata-22 shows them.
func TestUnsymbolizedProfile(t *testing.T) {
	refs := map[int]string{19: testenv.Tool(t, "llvm-profgen-19"), 22: testenv.Tool(t, "llvm-profgen-22")}
	type input struct {
		kind, trace string
		extra       []string
	}
	dir := t.TempDir()
	for _, set := range []struct {
		probe bool
		progs []program
	}{{false, buildPrograms(t)}, {true, buildProbePrograms(t)}} {
		for _, p := range set.progs {
			for _, in := range []input{{"lbr", p.lbr, nil}, {"hybrid-noncs", p.hyb, []string{"--ignore-stack-samples"}}, {"cs", p.hyb, nil}} {
				for _, rel := range []int{19, 22} {
					t.Run(fmt.Sprintf("%s/%s/%d", p.name, in.kind, rel), func(t *testing.T) {
						ref := refs[rel]
						ver := []string{"--llvm-version", fmt.Sprint(rel)}
						refU, ourU := filepath.Join(dir, "ref.u"), filepath.Join(dir, "our.u")
						gen := append([]string{"--perfscript=" + in.trace, "--binary=" + p.bin, "--skip-symbolization"}, in.extra...)
						runRef(t, ref, append(gen, "--output="+refU))
						if msg, err := runOurs(t, append(append(gen, "-o", ourU), ver...)); err != nil {
							t.Fatalf("profgen: %v\n%s", err, msg)
						}
						want, _ := os.ReadFile(refU)
						got, _ := os.ReadFile(ourU)
						if !bytes.Equal(got, want) {
							t.Fatalf("unsymbolized profile differs from llvm-profgen-%d's:\n--- llvm-profgen:\n%s\n--- ours:\n%s", rel, want, got)
						}
						for _, format := range []string{"text", "extbinary"} {
							refOut, ourOut := filepath.Join(dir, "ref."+format), filepath.Join(dir, "our."+format)
							var refErr string
							if set.probe && in.kind == "cs" {
								runRef(t, ref, []string{"--perfscript=" + in.trace, "--binary=" + p.bin, "--format=" + format, "--output=" + refOut})
							} else {
								refErr = runRef(t, ref, []string{"--unsymbolized-profile=" + refU, "--binary=" + p.bin, "--format=" + format, "--output=" + refOut})
							}
							for _, u := range []string{refU, ourU} {
								os.Remove(ourOut)
								ourErr, err := runOurs(t, append([]string{"--unsymbolized-profile=" + u, "--binary=" + p.bin, "--format=" + format, "-o", ourOut}, ver...))
								if err != nil {
									t.Fatalf("profgen --unsymbolized-profile=%s: %v\n%s", filepath.Base(u), err, ourErr)
								}
								got, _ := os.ReadFile(ourOut)
								want, _ := os.ReadFile(refOut)
								if set.probe && rel == 19 && format == "extbinary" && len(got) == len(want) && !bytes.Equal(got, want) {
									got, want = showSample(t, ourOut), showSample(t, refOut)
								}
								if !bytes.Equal(got, want) {
									if format == "text" {
										t.Errorf("%s profile of %s differs from llvm-profgen-%d:\n--- llvm-profgen:\n%s\n--- ours:\n%s", format, filepath.Base(u), rel, want, got)
									} else {
										t.Errorf("%s profile of %s differs from llvm-profgen-%d (%d vs %d bytes)", format, filepath.Base(u), rel, len(got), len(want))
									}
								}
								if !(set.probe && in.kind == "cs") && ourErr != refErr {
									t.Errorf("warnings differ:\nllvm-profgen-%d:\n%s\nours:\n%s", rel, refErr, ourErr)
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestUnsymbolizedOffsets writes and reads unsymbolized profiles with
// the other bases of their addresses (--use-offset=false: virtual
// addresses; --use-first-loadable-segment-as-base) and compares with
// llvm-profgen-22: the text written and the profile read back.
func TestUnsymbolizedOffsets(t *testing.T) {
	progs := buildPrograms(t)
	ref := testenv.Tool(t, "llvm-profgen-22")
	dir := t.TempDir()
	for _, p := range progs[:2] {
		for _, trace := range []string{p.lbr, p.hyb} {
			for _, base := range [][]string{{"--use-offset=false"}, {"--use-first-loadable-segment-as-base"}, {"--use-offset=0", "--use-first-loadable-segment-as-base"}} {
				t.Run(fmt.Sprintf("%s/%s/%s", p.name, filepath.Base(trace), strings.Join(base, ",")), func(t *testing.T) {
					refU, ourU := filepath.Join(dir, "ref.u"), filepath.Join(dir, "our.u")
					gen := append([]string{"--perfscript=" + trace, "--binary=" + p.bin, "--skip-symbolization"}, base...)
					runRef(t, ref, append(gen, "--output="+refU))
					if msg, err := runOurs(t, append(gen, "-o", ourU, "--llvm-version", "22")); err != nil {
						t.Fatalf("profgen: %v\n%s", err, msg)
					}
					want, _ := os.ReadFile(refU)
					got, _ := os.ReadFile(ourU)
					if !bytes.Equal(got, want) {
						t.Fatalf("unsymbolized profile differs:\n--- llvm-profgen:\n%s\n--- ours:\n%s", want, got)
					}
					refOut, ourOut := filepath.Join(dir, "ref.txt"), filepath.Join(dir, "our.txt")
					read := append([]string{"--unsymbolized-profile=" + refU, "--binary=" + p.bin, "--format=text"}, base...)
					refErr := runRef(t, ref, append(read, "--output="+refOut))
					ourErr, err := runOurs(t, append(read, "-o", ourOut, "--llvm-version", "22"))
					if err != nil {
						t.Fatalf("profgen: %v\n%s", err, ourErr)
					}
					want, _ = os.ReadFile(refOut)
					got, _ = os.ReadFile(ourOut)
					if !bytes.Equal(got, want) {
						t.Errorf("profile differs:\n--- llvm-profgen:\n%s\n--- ours:\n%s", want, got)
					}
					if ourErr != refErr {
						t.Errorf("warnings differ:\nllvm-profgen-22:\n%s\nours:\n%s", refErr, ourErr)
					}
				})
			}
		}
	}
}

// TestUnsymbolizedBroken feeds malformed unsymbolized profiles: each is a
// decode error naming the line (llvm-profgen: "Invalid raw profile at
// line N"), and no output is written.
func TestUnsymbolizedBroken(t *testing.T) {
	progs := buildPrograms(t)
	probes := buildProbePrograms(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, text, want string
		probe            bool
	}{
		{"empty", "", "empty file", false},
		{"no-count", "x\n", "line 1: expected the number of range lines", false},
		{"bad-hex", "1\n10-2x:5\n0\n", "line 2: expected a range line START-END:COUNT", false},
		{"bad-count", "1\n10-20:5x\n0\n", "line 2: expected a range line", false},
		{"no-colon", "1\n10-20\n0\n", "line 2: expected a range line", false},
		{"branch-as-range", "1\n10->20:1\n0\n", "line 2: expected a range line", false},
		{"range-as-branch", "0\n1\n10-20:1\n", "line 3: expected a branch line SRC->DST:COUNT", false},
		{"short", "3\n10-20:1\n", "unexpected end of file: expected 2 more range lines", false},
		{"no-branches", "1\n10-20:1\n", "unexpected end of file: expected the number of branch lines", false},
		{"blank", "0\n0\n\n", "line 3: expected the number of range lines", false},
		{"huge-count", "99999999999999999999\n", "line 1: expected the number of range lines (a decimal count)", false},
		{"unclosed-context", "[main\n0\n0\n", "line 1: expected a context line '[...]'", false},
		{"bad-line-offset", "[main:x @ foo]\n0\n0\n", "line 1: context [main:x @ foo]: frame \"main:x\"", false},
		{"bad-discriminator", "[]\n0\n0\n[main:3.y @ foo]\n  0\n  0\n", "line 4: context [main:3.y @ foo]: frame \"main:3.y\"", false},
		{"empty-frame", "[main:3 @ ]\n0\n0\n", "line 1: context [main:3 @ ]: frame \"\" has no function name", false},
		{"dwarf-context-on-probes", "[main:3 @ foo]\n0\n0\n", "line 1: context [main:3 @ foo]: frame \"main:3\" is not an address", true},
		{"bad-address-context", "[0x12 @ 0xzz]\n0\n0\n", "frame \"0xzz\" is not an address", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := progs[0].bin
			if c.probe {
				bin = probes[0].bin
			}
			in, out := filepath.Join(dir, c.name+".u"), filepath.Join(dir, c.name+".out")
			if err := os.WriteFile(in, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			msg, err := runOurs(t, []string{"--unsymbolized-profile=" + in, "--binary=" + bin, "--format=text", "-o", out})
			var de *decode.Error
			if !errors.As(err, &de) {
				t.Fatalf("want a decode error, got %v\n%s", err, msg)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), in) {
				t.Errorf("error %q: want it to name %s and say %q", err, in, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output written: %v", err)
			}
		})
	}
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{
			{"--unsymbolized-profile=x", "--perfscript=y"},
			{"--up=x", "--skip-symbolization"},
		} {
			if _, err := runOurs(t, append(args, "--binary="+progs[0].bin, "-o", filepath.Join(dir, "o"))); err == nil {
				t.Errorf("%v: no error", args)
			}
		}
	})
}
