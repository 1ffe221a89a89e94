package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/mibref"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// contextRuns are the training runs of testdata/contexts.cc that
// contextFixtures records, by name: the arguments of each.
var contextRuns = map[string][]string{
	"cold-a":     {"cold", "100"},
	"cold-b":     {"cold", "100"},
	"coldmany-a": {"cold", "1000"},
	"coldmany-b": {"cold", "1000"},
	"hotfew":     {"hot", "10"},
	"hotmany":    {"hot", "1000"},
}

// contextFixtures builds testdata/contexts.cc with clang++-19 and -22 as
// contexts-llvmN and records each of contextRuns as
// contexts-llvmN-NAME.memprofraw, through testenv.Cached.
func contextFixtures(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/contexts.cc")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{"contexts.cc", string(src), fmt.Sprint(contextRuns)}
	for _, tool := range []string{"clang++-19", "clang++-22", "ld.lld-19"} {
		inputs = append(inputs, tool, testenv.Version(t, tool))
	}
	return testenv.Cached(t, "merge-contexts", inputs, func(dir string) error {
		cc := filepath.Join(dir, "contexts.cc")
		if err := os.WriteFile(cc, src, 0o644); err != nil {
			return err
		}
		for _, rel := range []string{"19", "22"} {
			bin := filepath.Join(dir, "contexts-llvm"+rel)
			lld := []string{"-fuse-ld=lld"}
			if _, err := os.Stat("/usr/lib/llvm-" + rel + "/bin/ld.lld"); err != nil {
				lld = append(lld, "--ld-path="+testenv.Tool(t, "ld.lld-19"))
			}
			args := append([]string{"-O1", "-Wl,--no-rosegment", "-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile",
				"-mno-omit-leaf-frame-pointer", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", "-m64",
				"-Wl,-build-id", "-no-pie"}, lld...)
			if out, err := exec.Command("clang++-"+rel, append(args, cc, "-o", bin)...).CombinedOutput(); err != nil {
				return fmt.Errorf("clang++-%s: %v\n%s", rel, err, out)
			}
			for name, runArgs := range contextRuns {
				tmp, err := os.MkdirTemp(dir, "run")
				if err != nil {
					return err
				}
				cmd := exec.Command(bin, runArgs...)
				cmd.Env = append(os.Environ(), "MEMPROF_OPTIONS=log_path="+filepath.Join(tmp, "prof"))
				if out, err := cmd.CombinedOutput(); err != nil {
					return fmt.Errorf("%s %v: %v\n%s", bin, runArgs, err, out)
				}
				files, _ := filepath.Glob(filepath.Join(tmp, "prof.*"))
				if len(files) != 1 {
					return fmt.Errorf("%s %v: want one raw profile, got %v", bin, runArgs, files)
				}
				if err := os.Rename(files[0], bin+"-"+name+".memprofraw"); err != nil {
					return err
				}
				os.Remove(tmp)
			}
		}
		return nil
	})
}

var (
	mibType   = regexp.MustCompile(`!"(cold|notcold|hot)"|"memprof"="(\w+)"`)
	anyCold   = regexp.MustCompile(`!"cold"|"memprof"="cold"`)
	irMemprof = regexp.MustCompile(`(!memprof|!callsite|"memprof"=|!"(cold|notcold|hot)")`)
)

// TestMergeContextsIR is the evidence behind the default of
// --memprof-merge-contexts (docs/bazel.md): what clang-19 and clang-22
// attach to the IR (!memprof MIBs, !callsite, "memprof" attributes) with
// the profile of several runs merged with contexts appended (llvm-profdata's
// way, --memprof-merge-contexts=false) and merged (the default).
//
//   - Runs that agree (keep_path cold in both): the same IR either way.
//   - Runs that disagree, 2,000 cold allocations against 10 hot ones: LLVM 19
//     sees the context twice with two types and falls back to "notcold"
//     (CallStackTrie's conservative rule), so no allocation is hinted cold;
//     merged, the context is one MIB whose averages say cold, and the cold
//     hint is attached. LLVM 22 resolves the duplicates itself and gives
//     the merged result either way.
//   - Runs that disagree the other way (200 cold, 1,000 hot): no cold hint
//     in either mode, with either clang (LLVM 19 marks the merged context
//     "hot", which it attaches unconditionally; appended, "notcold").
//
// The cold thresholds are lowered (lifetime 0 s, access density 100) so
// that runs of a few milliseconds tell untouched buffers (density ~10)
// from rewritten ones (~2,000); the profiles, not the thresholds, are what
// the test compares.
func TestMergeContextsIR(t *testing.T) {
	dir := contextFixtures(t)
	type want struct {
		same                     bool // the same IR in both modes
		coldAppended, coldMerged bool // a cold hint is attached
	}
	cases := []struct {
		name           string
		runs           []string
		llvm19, llvm22 want
	}{
		{"agree", []string{"cold-a", "cold-b"}, want{true, true, true}, want{true, true, true}},
		{"mostly-cold", []string{"coldmany-a", "coldmany-b", "hotfew"}, want{false, false, true}, want{true, true, true}},
		{"mostly-hot", []string{"cold-a", "cold-b", "hotmany"}, want{false, false, false}, want{true, false, false}},
	}
	for _, rel := range []string{"19", "22"} {
		testenv.Tool(t, "clang++-"+rel)
		for _, tc := range cases {
			t.Run("llvm"+rel+"/"+tc.name, func(t *testing.T) {
				bin := filepath.Join(dir, "contexts-llvm"+rel)
				var raws []string
				for _, r := range tc.runs {
					raws = append(raws, bin+"-"+r+".memprofraw")
				}
				tmp := t.TempDir()
				ir := map[string]string{}
				for _, mode := range []string{"false", "true"} {
					prof := filepath.Join(tmp, "merge-contexts-"+mode+".profdata")
					if _, stderr, code := runTool(t, append([]string{"--llvm-version", rel, "--memprof-merge-contexts=" + mode,
						"--profiled-binary", bin, "-o", prof}, raws...)...); code != 0 {
						t.Fatalf("merge exited %d: %s", code, stderr)
					}
					out := prof + ".ll"
					mustRun(t, "clang++-"+rel, "-O1", "-gmlt", "-fdebug-info-for-profiling", "-fno-omit-frame-pointer",
						"-fmemory-profile-use="+prof, "-mllvm", "-memprof-ave-lifetime-cold-threshold=0",
						"-mllvm", "-memprof-lifetime-access-density-cold-threshold=100",
						"-S", "-emit-llvm", "-o", out, "testdata/contexts.cc")
					var keep []string
					for _, l := range strings.Split(string(readFile(t, out)), "\n") {
						if irMemprof.MatchString(l) {
							keep = append(keep, l)
						}
					}
					ir[mode] = strings.Join(keep, "\n")
					if !mibType.MatchString(ir[mode]) {
						t.Fatalf("clang-%s attached no MemProf hint with --memprof-merge-contexts=%s", rel, mode)
					}
				}
				appended, merged := ir["false"], ir["true"]
				t.Logf("appended: %q\nmerged: %q", mibType.FindAllString(appended, -1), mibType.FindAllString(merged, -1))
				w := tc.llvm19
				if rel == "22" {
					w = tc.llvm22
				}
				if got := anyCold.MatchString(appended); got != w.coldAppended {
					t.Errorf("appended contexts: cold hint %v, want %v:\n%s", got, w.coldAppended, appended)
				}
				if got := anyCold.MatchString(merged); got != w.coldMerged {
					t.Errorf("merged contexts: cold hint %v, want %v:\n%s", got, w.coldMerged, merged)
				}
				if (appended == merged) != w.same {
					t.Errorf("IR the same in both modes: %v, want %v\nappended:\n%s\nmerged:\n%s", appended == merged, w.same, appended, merged)
				}
			})
		}
	}
}

// TestMergeContextsScale: 5,000 inputs (hard links of one real raw
// profile) with contexts merged: the tool's peak RSS stays within 2x of
// its 50-input run, the output has one input's size, and every MIB equals
// the reference (mibref.Merge applied 4,999 times to the one input's MIB,
// as llvm-profdata converts it: TestConformance checks that output
// against llvm-profdata byte for byte). The full schema is written so that
// every field is compared.
func TestMergeContextsScale(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "many-llvm22")
	tmp := t.TempDir()
	one := filepath.Join(tmp, "one.memprofraw") // a copy on tmp's filesystem, to link to
	if err := os.WriteFile(one, readFile(t, bin+".memprofraw"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := func(n int) string {
		d := filepath.Join(tmp, fmt.Sprint(n))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := os.Link(one, filepath.Join(d, fmt.Sprintf("run-%05d.memprofraw", i))); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	merge := func(name string, in string) (string, int64) {
		out := filepath.Join(tmp, name+".profdata")
		cmd := exec.Command(os.Args[0], "--llvm-version", "22", "--memprof-full-schema", "--profiled-binary", bin, "-o", out, in)
		cmd.Env = append(os.Environ(), "MERGE_TEST_AS_TOOL=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("merge %s: %v\n%s", in, err, b)
		}
		return out, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KB on Linux
	}
	outOne, _ := merge("1", one)
	out50, rss50 := merge("50", links(50))
	out5000, rss5000 := merge("5000", links(5000))
	t.Logf("peak RSS: 50 inputs %d KB, 5,000 inputs %d KB", rss50, rss5000)
	if rss5000 > 2*rss50 {
		t.Errorf("peak RSS with 5,000 inputs %d KB > 2x that of 50 inputs (%d KB)", rss5000, rss50)
	}
	size := len(readFile(t, outOne))
	for _, o := range []string{out50, out5000} {
		if n := len(readFile(t, o)); n != size {
			t.Errorf("%s: %d bytes, one input's profile has %d", filepath.Base(o), n, size)
		}
	}
	ref, err := instrprof.Open(outOne)
	if err != nil {
		t.Fatal(err)
	}
	got, err := instrprof.Open(out5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Profile.Records) != len(ref.Profile.Records) {
		t.Fatalf("%d records, one input has %d", len(got.Profile.Records), len(ref.Profile.Records))
	}
	sites := 0
	for i, r := range ref.Profile.Records {
		g := got.Profile.Records[i]
		if g.GUID != r.GUID || len(g.AllocSites) != len(r.AllocSites) || len(g.CallSites) != len(r.CallSites) {
			t.Fatalf("record %d: GUID %#x, %d alloc sites, %d call sites; one input: %#x, %d, %d",
				i, g.GUID, len(g.AllocSites), len(g.CallSites), r.GUID, len(r.AllocSites), len(r.CallSites))
		}
		for j, a := range r.AllocSites {
			want := a.Info
			for range 5000 - 1 {
				want = mibref.Merge(want, a.Info)
			}
			if fmt.Sprintf("%+v", g.AllocSites[j].Info) != fmt.Sprintf("%+v", want) {
				t.Errorf("record %#x alloc site %d:\n got %+v\nwant %+v", r.GUID, j, g.AllocSites[j].Info, want)
			}
			sites++
		}
	}
	if sites == 0 {
		t.Fatal("no alloc sites compared")
	}
}
