package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// llvmPartial writes llvm-profdata-rel merge --num-threads=1 of inputs to
// dir/name and returns its path.
func llvmPartial(t *testing.T, rel, dir, name string, inputs ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	mustRun(t, "llvm-profdata-"+rel, append([]string{"merge", "--num-threads=1", "-o", out}, inputs...)...)
	return out
}

// oursMerge runs the tool with args and -o OUT and returns OUT's bytes.
func oursMerge(t *testing.T, out string, args ...string) []byte {
	t.Helper()
	if _, stderr, code := runTool(t, append([]string{"-o", out}, args...)...); code != 0 {
		t.Fatalf("merge %v: exit %d: %s", args, code, stderr)
	}
	return readFile(t, out)
}

// TestInstrIndexedInputs: an indexed profile written by llvm-profdata-N
// merged with .profraw inputs gives the bytes llvm-profdata-N gives for
// the same inputs (one thread, inputs in sorted order), for IR PGO, CS
// (two summaries), MC/DC (bitmaps) and temporal profiling (traces).
func TestInstrIndexedInputs(t *testing.T) {
	dir := instrFixtures(t)
	for _, rel := range []int{16, 19, 22} {
		modes := []string{"ir", "fe", "cs"}
		if rel >= 19 {
			modes = append(modes, "mcdc", "temporal", "vtable")
		}
		for _, mode := range modes {
			for _, prog := range []string{"app", "shapes"} {
				t.Run(fmt.Sprintf("llvm%d/%s-%s", rel, prog, mode), func(t *testing.T) {
					r := fmt.Sprint(rel)
					raw := func(i string) string {
						return filepath.Join(dir, fmt.Sprintf("%s-llvm%d-%s-%s.profraw", prog, rel, mode, i))
					}
					tmp := t.TempDir()
					part := llvmPartial(t, r, tmp, "part.profdata", raw("10"), raw("3"))
					inputs := []string{part, raw("50")}
					slices.Sort(inputs)
					compareInstr(t, r, []string{"--llvm-version", r}, []string{"--num-threads=1"}, inputs)
					// An indexed input alone reads back as itself.
					again := oursMerge(t, filepath.Join(tmp, "again.profdata"), "--llvm-version", r, part)
					if !bytes.Equal(again, readFile(t, part)) {
						t.Errorf("merging llvm-profdata's indexed file alone changes it (first difference at %#x)", firstDiff(again, readFile(t, part)))
					}
				})
			}
		}
	}
}

// TestInstrShardedMerge: merging indexed partials of disjoint shards of
// the raws gives the bytes of one merge of all the raws (what a sharded
// Bazel merge relies on), for function records alone and, for 19 and 22,
// with the MemProf data of the same binary in the partials.
func TestInstrShardedMerge(t *testing.T) {
	dir := instrFixtures(t)
	for _, rel := range []int{16, 19, 22} {
		r := fmt.Sprint(rel)
		modes := []string{"ir", "fe", "cs"}
		if rel >= 19 {
			modes = append(modes, "mcdc", "temporal")
		}
		for _, mode := range modes {
			for _, prog := range []string{"app", "shapes"} {
				t.Run(fmt.Sprintf("llvm%d/%s-%s", rel, prog, mode), func(t *testing.T) {
					var raws []string
					for _, i := range []string{"10", "3", "50"} {
						raws = append(raws, filepath.Join(dir, fmt.Sprintf("%s-llvm%d-%s-%s.profraw", prog, rel, mode, i)))
					}
					slices.Sort(raws)
					tmp := t.TempDir()
					v := []string{"--llvm-version", r}
					whole := oursMerge(t, filepath.Join(tmp, "whole.profdata"), append(v, raws...)...)
					p1 := filepath.Join(tmp, "p1.profdata")
					p2 := filepath.Join(tmp, "p2.profdata")
					oursMerge(t, p1, append(v, raws[:2]...)...)
					oursMerge(t, p2, append(v, raws[2:]...)...)
					sharded := oursMerge(t, filepath.Join(tmp, "sharded.profdata"), append(v, p1, p2)...)
					if !bytes.Equal(whole, sharded) {
						t.Errorf("merge of partials differs from one merge (first difference at %#x)", firstDiff(whole, sharded))
					}
					// llvm-profdata on our partials writes the same bytes.
					want := llvmPartial(t, r, tmp, "llvm.profdata", p1, p2)
					if !bytes.Equal(readFile(t, want), sharded) {
						t.Errorf("llvm-profdata-%d merge of our partials differs from ours (first difference at %#x)", rel, firstDiff(readFile(t, want), sharded))
					}
				})
			}
		}
		if rel < 19 {
			continue
		}
		t.Run(fmt.Sprintf("llvm%d/memprof", rel), func(t *testing.T) {
			bin := filepath.Join(dir, "shapes-llvm"+r+"-mem")
			tmp := t.TempDir()
			// Two shards of one binary's runs: copies of the fixture's
			// PGO and MemProf raws under other names.
			var shard [2][]string
			for s := range shard {
				for _, ext := range []string{".memprofraw", ".profraw"} {
					p := filepath.Join(tmp, fmt.Sprintf("run%d%s", s, ext))
					if err := os.WriteFile(p, readFile(t, bin+ext), 0o644); err != nil {
						t.Fatal(err)
					}
					shard[s] = append(shard[s], p)
				}
			}
			v := []string{"--llvm-version", r, "--profiled-binary", bin}
			whole := oursMerge(t, filepath.Join(tmp, "whole.profdata"), append(v, append(shard[0], shard[1]...)...)...)
			p1 := filepath.Join(tmp, "p1.profdata")
			p2 := filepath.Join(tmp, "p2.profdata")
			oursMerge(t, p1, append(v, shard[0]...)...)
			oursMerge(t, p2, append(v, shard[1]...)...)
			sharded := oursMerge(t, filepath.Join(tmp, "sharded.profdata"), "--llvm-version", r, p1, p2)
			if !bytes.Equal(whole, sharded) {
				t.Errorf("merge of partials differs from one merge (first difference at %#x)", firstDiff(whole, sharded))
			}
			// No comparison with llvm-profdata here: it loses the data
			// (llvm-profdata-22 merge of one or two indexed files holding
			// MemProf writes a 656-byte file without the MemProf section;
			// llvm-profdata-19 cannot read MemProf V4, the default
			// release's).
		})
	}
}

// TestInstrFailureModes: bad .profraw inputs among good ones (truncated,
// wrong magic, unknown version, counts that lie, a profile of another
// binary by binary id): under --failure-mode=warn|all every bad input is
// named with its file and offset, the end report says what was dropped,
// and the output is what llvm-profdata-N writes for the good inputs alone
// (N = 19, 22; LLVM 16 has no warn mode).
func TestInstrFailureModes(t *testing.T) {
	dir := instrFixtures(t)
	for _, rel := range []string{"19", "22"} {
		t.Run("llvm"+rel, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(dir, "app-llvm"+rel+"-ir")
			good := []string{bin + "-3.profraw", bin + "-10.profraw"}
			gb := readFile(t, good[0])
			write := func(name string, b []byte) string {
				p := filepath.Join(tmp, name)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			magic := bytes.Clone(gb)
			magic[0] ^= 0xff
			version := bytes.Clone(gb)
			version[8] = 99
			lie := bytes.Clone(gb)
			lie[40] = 0xff // NumCounters
			bad := []string{
				write("truncated.profraw", gb[:len(gb)*2/3]),
				write("magic.profraw", magic),
				write("version.profraw", version),
				write("lie.profraw", lie),
				filepath.Join(dir, "shapes-llvm"+rel+"-ir-3.profraw"), // another binary
			}
			want := llvmPartial(t, rel, tmp, "llvm.profdata", good...)
			for _, mode := range []string{"warn", "all"} {
				out := filepath.Join(tmp, mode+".profdata")
				args := append([]string{"--llvm-version", rel, "--failure-mode=" + mode, "--profiled-binary", bin, "-o", out}, append(bad, good...)...)
				_, stderr, code := runTool(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", mode, code, stderr)
				}
				_, report, ok := strings.Cut(stderr, "report: ")
				if !ok || !strings.Contains(report, fmt.Sprintf("%d of %d inputs merged, %d dropped", len(good), len(good)+len(bad), len(bad))) {
					t.Errorf("%s: no end report of %d dropped inputs: %s", mode, len(bad), stderr)
				}
				for _, p := range bad {
					line := ""
					for _, l := range strings.Split(report, "\n") {
						if strings.HasPrefix(l, "  "+p+": dropped: ") {
							line = l
						}
					}
					if line == "" || !strings.Contains(line, "offset 0x") {
						t.Errorf("%s: %s not reported as dropped with an offset: %q", mode, p, report)
					}
				}
				if !bytes.Equal(readFile(t, out), readFile(t, want)) {
					t.Errorf("%s: output differs from llvm-profdata-%s on the good inputs alone", mode, rel)
				}
			}
		})
	}
}
