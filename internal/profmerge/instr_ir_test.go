package profmerge

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/instrprof"
	"github.com/rules-pgo/rules_pgo/internal/instrprof/instrproftest"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestInstrProfileUseIR is the acceptance's compiler check: for each
// release N, the profiles we merge (Run, as `merge` does) and those
// llvm-profdata-N merge writes of the same raws are given to clang-N -O2
// -fprofile-use (-fmemory-profile-use for the PGO+MemProf file) and the
// LLVM IR of each source must be the same, whole. The IR must also show
// that the profile was used: function entry counts and branch weights,
// the memcpy sizes' value-profile metadata of app.c (its indirect calls
// are promoted at -O2 from the value profile: their VP metadata is gone,
// the IR compared holds the promotion), the MemProf hints (the
// "memprof" attribute, !callsite) of the MemProf one. The raws are testdata/instrprof/gen.sh's (cached); each
// compile takes well under a second.
func TestInstrProfileUseIR(t *testing.T) {
	type useCase struct {
		dir     string // fixture directory (its sources in dir/src)
		name    string
		raws    []string // fixture files
		binary  string   // --profiled-binary, for MemProf
		sources []string // in src
		flags   []string // besides -O2 -S -emit-llvm -fprofile-use=P
		want    []string // regexps the IR of the first source must match
	}
	runs := func(prefix string) []string {
		return []string{prefix + "-10.profraw", prefix + "-3.profraw", prefix + "-50.profraw"}
	}
	dir, extra := instrproftest.Fixtures(t), instrproftest.Extra(t)
	counted := []string{`"function_entry_count", i64 [1-9]`, `"branch_weights"`}
	for _, rel := range instrproftest.Releases {
		n := fmt.Sprint(rel)
		noICP := []string{"-mllvm", "-disable-icp"}
		cases := []useCase{
			{dir, "app-ir", runs("app-llvm" + n + "-ir"), "", []string{"app.c", "lib.c"}, nil,
				append([]string{`"VP", i32 1,`}, counted...)},
			{dir, "app-ir-noicp", runs("app-llvm" + n + "-ir"), "", []string{"app.c"}, noICP,
				append([]string{`"VP", i32 0,`, `"VP", i32 1,`}, counted...)},
			{dir, "shapes-ir", runs("shapes-llvm" + n + "-ir"), "", []string{"shapes.cc"}, nil, counted},
			{dir, "app-fe", runs("app-llvm" + n + "-fe"), "", []string{"app.c", "lib.c"}, nil, counted},
			{dir, "app-cs", append(runs("app-llvm"+n+"-cs"), runs("app-llvm"+n+"-ir")...), "", []string{"app.c", "lib.c"}, nil,
				append([]string{`"VP", i32 1,`}, counted...)},
			// gen-extra.sh's programs with a shared library (C, C++),
			// per-run raws (both modules in each) and %m ones (a module
			// each).
			{extra, "appso-ir", append(runs("appso-llvm"+n+"-ir"), globRaws(t, extra, "appso-llvm"+n+"-ir-m-*.profraw")...), "",
				[]string{"so.c", "appso.c"}, noICP, append([]string{`"VP", i32 0,`}, counted...)},
			{extra, "appsoxx-ir", append(runs("appsoxx-llvm"+n+"-ir"), globRaws(t, extra, "appsoxx-llvm"+n+"-ir-m-*.profraw")...), "",
				[]string{"appsoxx.cc", "soxx.cc"}, noICP, counted},
			{extra, "appsoxx-fe", runs("appsoxx-llvm" + n + "-fe"), "", []string{"soxx.cc", "appsoxx.cc"}, nil, counted},
		}
		if rel >= 19 {
			// gen.sh's PGO+MemProf binary: its two raws make one file.
			bin := "shapes-llvm" + n + "-mem"
			cases = append(cases, useCase{dir, "shapes-mem", []string{bin + ".profraw", bin + ".memprofraw"}, bin,
				[]string{"shapes.cc"}, []string{"-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile-use=PROFILE"},
				append([]string{`"memprof"="(not)?cold"`, `!callsite `}, counted...)})
		}
		t.Run("llvm"+n, func(t *testing.T) {
			profdata := testenv.Tool(t, "llvm-profdata-"+n)
			w, err := instrprof.Defaults(llvmrelease.Release(rel))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					tmp := t.TempDir()
					var ins []Input
					var paths []string
					for _, r := range c.raws {
						p := filepath.Join(c.dir, r)
						ins = append(ins, Input{Path: p, Weight: 1})
						paths = append(paths, p)
					}
					llvm, ours := filepath.Join(tmp, "llvm.profdata"), filepath.Join(tmp, "ours.profdata")
					args := []string{"merge", "--num-threads=1", "-o", llvm}
					opts := Options{Inputs: ins, Output: ours, Write: w, Jobs: 1, Warnf: t.Logf}
					if c.binary != "" {
						args = append(args, "--profiled-binary", filepath.Join(c.dir, c.binary))
						opts.ProfiledBinary = filepath.Join(c.dir, c.binary)
					}
					if out, err := exec.Command(profdata, append(args, paths...)...).CombinedOutput(); err != nil {
						t.Fatalf("llvm-profdata-%s merge: %v\n%s", n, err, out)
					}
					if err := Run(opts); err != nil {
						t.Fatal(err)
					}
					for k, s := range c.sources {
						want := compileUse(t, rel, llvm, filepath.Join(c.dir, "src", s), c.flags)
						got := compileUse(t, rel, ours, filepath.Join(c.dir, "src", s), c.flags)
						if !bytes.Equal(got, want) {
							t.Errorf("%s: clang-%s -fprofile-use IR differs (ours %d bytes, llvm-profdata's %d)\n%s",
								s, n, len(got), len(want), firstLineDiff(got, want))
						}
						for _, re := range c.want {
							if k == 0 && !regexp.MustCompile(re).Match(want) {
								t.Errorf("%s: the IR has no %s: the profile was not used", s, re)
							}
						}
					}
				})
			}
		})
	}
}

// compileUse returns the IR clang-N -O2 writes for src with the profile
// (PROFILE in flags stands for its path). The profile's path is the same
// for both profiles compared (copied to one name), so that nothing but
// its contents can differ.
func compileUse(t *testing.T, rel int, profile, src string, flags []string) []byte {
	t.Helper()
	cc := "clang-" + fmt.Sprint(rel)
	if strings.HasSuffix(src, ".cc") {
		cc = "clang++-" + fmt.Sprint(rel)
	}
	tool := testenv.Tool(t, cc)
	tmp := t.TempDir()
	p := filepath.Join(tmp, "use.profdata")
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.ll")
	args := []string{"-O2", "-fprofile-use=" + p, "-S", "-emit-llvm", src, "-o", out}
	for _, f := range flags {
		args = append(args, strings.ReplaceAll(f, "PROFILE", p))
	}
	cmd := exec.Command(tool, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
	ir, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return ir
}

// globRaws returns the fixture files matching pattern (base names).
func globRaws(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(m) == 0 {
		t.Fatalf("no fixture %s in %s", pattern, dir)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// firstLineDiff shows the first line where a and b differ.
func firstLineDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  ours: %s\n  llvm: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d vs %d lines)", len(al), len(bl))
}
