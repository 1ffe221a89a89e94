// Package private_test runs the pure Starlark helpers of rules_pgo (helpers.bzl) with
// go.starlark.net, so `go test ./...` covers them without Bazel. The same functions are
// tested inside Bazel 4.2.3 by //rules/tests (skylib unittest).
package private_test

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
)

func loadHelpers(t *testing.T) starlark.StringDict {
	t.Helper()
	return loadBzl(t, "helpers.bzl")
}

// loadBzl runs a .bzl file of this package; the files it loads
// ("//rules:x.bzl", "//rules/private:x.bzl", ":x.bzl") are run too.
func loadBzl(t *testing.T, name string) starlark.StringDict {
	t.Helper()
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{Name: name, Load: loadLabel}, name, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return globals
}

func loadLabel(_ *starlark.Thread, label string) (starlark.StringDict, error) {
	var file string
	switch {
	case strings.HasPrefix(label, ":"), strings.HasPrefix(label, "//rules/private:"):
		file = label[strings.Index(label, ":")+1:]
	case strings.HasPrefix(label, "//rules:"):
		file = "../" + strings.TrimPrefix(label, "//rules:")
	default:
		return nil, fmt.Errorf("load(%q): only //rules and //rules/private files run under go test", label)
	}
	return starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{Name: file, Load: loadLabel}, file, nil, nil)
}

func call(t *testing.T, g starlark.StringDict, fn string, args ...starlark.Value) starlark.Value {
	t.Helper()
	f, ok := g[fn].(starlark.Callable)
	if !ok {
		t.Fatalf("helpers.bzl has no function %s", fn)
	}
	v, err := starlark.Call(&starlark.Thread{Name: fn}, f, starlark.Tuple(args), nil)
	if err != nil {
		t.Fatalf("%s%v: %v", fn, args, err)
	}
	return v
}

func str(s string) starlark.Value { return starlark.String(s) }

func strs(ss ...string) *starlark.List {
	vs := make([]starlark.Value, len(ss))
	for i, s := range ss {
		vs[i] = starlark.String(s)
	}
	return starlark.NewList(vs)
}

func TestAbsolutizeLabel(t *testing.T) {
	g := loadHelpers(t)
	for _, c := range []struct{ value, repo, pkg, want string }{
		{":x", "@", "app", "@//app:x"},
		{"x", "@", "app", "@//app:x"},
		{"//a/b:c", "@", "app", "@//a/b:c"},
		{"//a/b", "@", "app", "@//a/b:b"},
		{"@r//p:n", "@", "app", "@r//p:n"},
		{"@r", "@", "app", "@r//:r"},
		{":x", "@ext", "pkg", "@ext//pkg:x"},
		{":x", "@@", "", "@//:x"},
	} {
		got := call(t, g, "absolutize_label", str(c.value), str(c.repo), str(c.pkg))
		if got != starlark.String(c.want) {
			t.Errorf("absolutize_label(%q, %q, %q) = %v, want %q", c.value, c.repo, c.pkg, got, c.want)
		}
	}
}

func TestParseLLVMVersion(t *testing.T) {
	g := loadHelpers(t)
	for _, c := range []struct {
		in      starlark.Value
		want    int
		wantErr string
	}{
		{str("19"), 19, ""},
		{starlark.MakeInt(22), 22, ""},
		{str(""), 0, ""},
		{starlark.None, 0, ""},
		{str("17"), 0, "not supported"},
		{str("x"), 0, "must be one of 16, 19, 22"},
	} {
		got := call(t, g, "parse_llvm_version", c.in, str("//t")).(starlark.Tuple)
		v, _ := starlark.AsInt32(got[0])
		msg := string(got[1].(starlark.String))
		if v != c.want || (c.wantErr == "") != (msg == "") || !strings.Contains(msg, c.wantErr) {
			t.Errorf("parse_llvm_version(%v) = %d, %q; want %d, %q", c.in, v, msg, c.want, c.wantErr)
		}
	}
}

func TestFlags(t *testing.T) {
	g := loadHelpers(t)
	if got, want := call(t, g, "memprof_use_flags", starlark.MakeInt(19), str("p.profdata")).String(),
		`["-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile-use=p.profdata"]`; got != want {
		t.Errorf("memprof_use_flags(19) = %s, want %s", got, want)
	}
	if got := call(t, g, "memprof_use_flags", starlark.MakeInt(16), str("p")).String(); !strings.Contains(got, `"-fprofile-use=p"`) {
		t.Errorf("memprof_use_flags(16) = %s, want -fprofile-use", got)
	}
	if got, want := call(t, g, "merge_flags", starlark.MakeInt(22), str("4"), str("all"), starlark.MakeInt(2)).String(),
		`["--llvm-version", "22", "--memprof-version", "4", "--failure-mode=all", "-j", "2"]`; got != want {
		t.Errorf("merge_flags = %s, want %s", got, want)
	}
	s := call(t, g, "instrument_settings", strs("-O1", "-gmlt"), strs(), strs("-fmemory-profile")).(*starlark.Dict)
	copt, _, _ := s.Get(str("copt"))
	if got := copt.String(); !strings.HasPrefix(got, `["-O1", "-gmlt", "-fmemory-profile"`) || strings.Count(got, "-gmlt") != 1 {
		t.Errorf("instrument_settings copt = %s", got)
	}
	link, _, _ := s.Get(str("linkopt"))
	if got, want := link.String(), `["-fmemory-profile", "--driver-mode=g++", "-Wl,--build-id"]`; got != want {
		t.Errorf("instrument_settings linkopt = %s, want %s", got, want)
	}
}

func TestCheckLLVMVersions(t *testing.T) {
	g := loadHelpers(t)
	ok := call(t, g, "check_llvm_versions", str("//t"), str("//p"), starlark.MakeInt(19), starlark.MakeInt(19), str("clang-19"))
	if ok != starlark.String("") {
		t.Errorf("same versions: %v", ok)
	}
	msg := string(call(t, g, "check_llvm_versions", str("//t"), str("//p"), starlark.MakeInt(16), starlark.MakeInt(19), str("/usr/bin/clang-19")).(starlark.String))
	for _, want := range []string{"//t:", "//p is written for LLVM 16", "/usr/bin/clang-19 is LLVM 19"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if v := call(t, g, "llvm_version_from_compiler", str("/usr/bin/clang++-22")); v.String() != "22" {
		t.Errorf("llvm_version_from_compiler = %v", v)
	}
	if v := call(t, g, "memprof_format_version", starlark.MakeInt(16)); v != starlark.String("indexed-v9/memprof-v0") {
		t.Errorf("memprof_format_version(16) = %v", v)
	}
}

// TestFormatVersions: PgoProfileInfo.format_version names what the merge
// tool writes, release by release (the Go table behind both), and LLVM 22
// is index version 13 (helpers.bzl once said 12).
func TestFormatVersions(t *testing.T) {
	g := loadHelpers(t)
	for _, r := range llvmrelease.All() {
		want := fmt.Sprintf("indexed-v%d/memprof-v%d", r.IndexVersion, r.MemProfVersion)
		if v := call(t, g, "memprof_format_version", starlark.MakeInt(r.Major)); v != starlark.String(want) {
			t.Errorf("memprof_format_version(%d) = %v, want %q", r.Major, v, want)
		}
	}
	for _, c := range []struct {
		release int
		mp      starlark.Value
		want    string
	}{
		{22, str(""), "indexed-v13/memprof-v3"},
		{19, str("3"), "indexed-v12/memprof-v3"},
		{22, starlark.MakeInt(4), "indexed-v13/memprof-v4"},
		{17, str(""), ""},
	} {
		if v := call(t, g, "memprof_format_version", starlark.MakeInt(c.release), c.mp); v != starlark.String(c.want) {
			t.Errorf("memprof_format_version(%d, %v) = %v, want %q", c.release, c.mp, v, c.want)
		}
	}
	rel := loadBzl(t, "../llvm_releases.bzl")
	if got, err := starlark.AsInt32(rel["DEFAULT_LLVM_VERSION"]); err != nil || got != llvmrelease.Default {
		t.Errorf("DEFAULT_LLVM_VERSION = %v, want %d", rel["DEFAULT_LLVM_VERSION"], llvmrelease.Default)
	}
}

func TestSampleFlags(t *testing.T) {
	g := loadHelpers(t)
	if got, want := call(t, g, "sample_use_flags", str("p.afdo")).String(),
		`["-gmlt", "-fdebug-info-for-profiling", "-funique-internal-linkage-names", "-fprofile-sample-use=p.afdo"]`; got != want {
		t.Errorf("sample_use_flags = %s, want %s", got, want)
	}
	s := call(t, g, "sample_ready_settings", strs("-O1", "-gmlt"), strs(), strs()).(*starlark.Dict)
	for key, want := range map[string]string{
		"copt":    `["-O1", "-gmlt", "-fdebug-info-for-profiling", "-funique-internal-linkage-names"]`,
		"cxxopt":  `["-gmlt"]`,
		"linkopt": `["-Wl,--build-id"]`,
	} {
		v, _, _ := s.Get(str(key))
		if v.String() != want {
			t.Errorf("sample_ready_settings %s = %s, want %s", key, v, want)
		}
	}
	// The training build's flags are exactly what the optimized build puts beside the profile.
	use := call(t, g, "sample_use_flags", str("x")).(*starlark.List)
	ready := g["SAMPLE_PROFILE_COPTS"].(*starlark.List)
	for i := 0; i < ready.Len(); i++ {
		if use.Index(i) != ready.Index(i) {
			t.Errorf("sample_use_flags[%d] = %v, SAMPLE_PROFILE_COPTS[%d] = %v", i, use.Index(i), i, ready.Index(i))
		}
	}
	if got, want := call(t, g, "profgen_flags", starlark.MakeInt(19), str("extbinary"), starlark.True).String(),
		`["--llvm-version", "19", "--format=extbinary", "--gen-cs-nested-profile=false", "--csprof-merge-cold-context=false", "--ignore-stack-samples"]`; got != want {
		t.Errorf("profgen_flags = %s, want %s", got, want)
	}
	if got, want := call(t, g, "sample_merge_flags", starlark.MakeInt(22), str("text")).String(),
		`["--sample", "--text", "--llvm-version", "22"]`; got != want {
		t.Errorf("sample_merge_flags = %s, want %s", got, want)
	}
}

// planOf turns shard_plan's result into Go slices.
func planOf(t *testing.T, v starlark.Value) [][][2]int {
	t.Helper()
	var plan [][][2]int
	levels := v.(*starlark.List)
	for i := 0; i < levels.Len(); i++ {
		var level [][2]int
		groups := levels.Index(i).(*starlark.List)
		for j := 0; j < groups.Len(); j++ {
			g := groups.Index(j).(*starlark.List)
			a, _ := starlark.AsInt32(g.Index(0))
			b, _ := starlark.AsInt32(g.Index(1))
			level = append(level, [2]int{a, b})
		}
		plan = append(plan, level)
	}
	return plan
}

func TestShardPlan(t *testing.T) {
	g := loadHelpers(t)
	for _, c := range []struct {
		n, size int
		want    string
	}{
		{5, 0, "[[[0 5]]]"},
		{5, 5, "[[[0 5]]]"},
		{5, 4, "[[[0 3] [3 5]] [[0 2]]]"},
		{10, 4, "[[[0 4] [4 7] [7 10]] [[0 3]]]"},
		{20, 4, "[[[0 4] [4 8] [8 12] [12 16] [16 20]] [[0 3] [3 5]] [[0 2]]]"},
	} {
		if got := fmt.Sprint(planOf(t, call(t, g, "shard_plan", starlark.MakeInt(c.n), starlark.MakeInt(c.size)))); got != c.want {
			t.Errorf("shard_plan(%d, %d) = %s, want %s", c.n, c.size, got, c.want)
		}
	}
	// Every level covers the items below it contiguously, in balanced groups of 2..size
	// (no merge of a single partial, but for an odd count with size 2), and the last level
	// is one merge.
	for n := 1; n <= 300; n++ {
		for _, size := range []int{0, 2, 3, 7, 50} {
			plan := planOf(t, call(t, g, "shard_plan", starlark.MakeInt(n), starlark.MakeInt(size)))
			count := n
			for li, level := range plan {
				next := 0
				for _, r := range level {
					if r[0] != next || r[1] <= r[0] || (size > 0 && r[1]-r[0] > size) || (count > 1 && size != 2 && r[1]-r[0] < 2) {
						t.Fatalf("shard_plan(%d, %d) level %d: bad group %v in %v", n, size, li, r, level)
					}
					next = r[1]
				}
				if next != count {
					t.Fatalf("shard_plan(%d, %d) level %d covers %d of %d items", n, size, li, next, count)
				}
				count = len(level)
			}
			if count != 1 {
				t.Fatalf("shard_plan(%d, %d) ends with %d groups", n, size, count)
			}
		}
	}
	if _, err := starlark.Call(&starlark.Thread{}, g["shard_plan"], starlark.Tuple{starlark.MakeInt(3), starlark.MakeInt(1)}, nil); err == nil ||
		!strings.Contains(err.Error(), "at least 2") {
		t.Errorf("shard_plan(3, 1): %v, want an error", err)
	}
}

func TestInstrFlags(t *testing.T) {
	g := loadHelpers(t)
	if got, want := call(t, g, "instr_use_flags", str("p.profdata")).String(), `["-fprofile-use=p.profdata"]`; got != want {
		t.Errorf("instr_use_flags = %s, want %s", got, want)
	}
	s := call(t, g, "instr_settings", strs("-O1"), strs(), strs("-fprofile-generate")).(*starlark.Dict)
	for key, want := range map[string]string{
		"copt":    `["-O1", "-fprofile-generate"]`,
		"cxxopt":  `[]`,
		"linkopt": `["-fprofile-generate", "-Wl,--build-id"]`,
	} {
		v, _, _ := s.Get(str(key))
		if v.String() != want {
			t.Errorf("instr_settings %s = %s, want %s", key, v, want)
		}
	}
	for _, r := range llvmrelease.All() {
		want := fmt.Sprintf("indexed-v%d", r.IndexVersion)
		if v := call(t, g, "instr_format_version", starlark.MakeInt(r.Major)); v != starlark.String(want) {
			t.Errorf("instr_format_version(%d) = %v, want %q", r.Major, v, want)
		}
	}
}

func TestZeroPad(t *testing.T) {
	g := loadHelpers(t)
	for _, c := range []struct {
		i, width int
		want     string
	}{{0, 5, "00000"}, {42, 5, "00042"}, {123456, 5, "123456"}} {
		if got := call(t, g, "zero_pad", starlark.MakeInt(c.i), starlark.MakeInt(c.width)); got != starlark.String(c.want) {
			t.Errorf("zero_pad(%d, %d) = %v, want %q", c.i, c.width, got, c.want)
		}
	}
}

func TestCheckProfileMix(t *testing.T) {
	g := loadHelpers(t)
	none := starlark.None
	for _, c := range []struct {
		memprof, sample, instr starlark.Value
		want                   []string
	}{
		{str("memprof"), none, none, nil},
		{none, str("sample"), none, nil},
		{str("memprof"), str("sample"), none, nil},
		{str(""), str(""), none, nil}, // checked-in files
		{none, none, none, []string{"//t: no profile"}},
		{none, none, str("instr"), nil},
		{str("memprof"), none, str("instr"), nil},
		{none, str("sample"), str("instr"), []string{"a sample profile with an instrumented one", "drop sample_profile or instr_profile"}},
		{none, none, str("sample"), []string{"instr_profile is given a sample profile", "pass it as sample_profile"}},
		{none, str("memprof"), none, []string{"sample_profile is given a memprof profile", "pass it as memprof_profile"}},
		{str("sample"), none, none, []string{"memprof_profile is given a sample profile", "pass it as sample_profile"}},
	} {
		msg := string(call(t, g, "check_profile_mix", str("//t"), c.memprof, c.sample, c.instr).(starlark.String))
		if (msg == "") != (c.want == nil) {
			t.Errorf("check_profile_mix(%v, %v, %v) = %q", c.memprof, c.sample, c.instr, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("check_profile_mix(%v, %v, %v) = %q, lacks %q", c.memprof, c.sample, c.instr, msg, w)
			}
		}
	}
}

// The training builds of the instrumented kinds: each kind's own flags, nothing twice.
func TestTrainingSettings(t *testing.T) {
	g := loadHelpers(t)
	for _, c := range []struct {
		kind, copt, linkopt string
	}{
		{"instr", `["-O1", "-fprofile-generate"]`, `["-fprofile-generate", "-Wl,--build-id"]`},
		{"instr_memprof",
			`["-O1", "-fmemory-profile", "-gmlt", "-fdebug-info-for-profiling", "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer", "-fno-optimize-sibling-calls", "-fprofile-generate"]`,
			`["-fprofile-generate", "-fmemory-profile", "--driver-mode=g++", "-Wl,--build-id"]`},
		{"cs_instr", `["-O1", "-fcs-profile-generate"]`, `["-fprofile-generate", "-fcs-profile-generate", "-Wl,--build-id"]`},
		{"sample", `["-O1", "-gmlt", "-fdebug-info-for-profiling", "-funique-internal-linkage-names"]`, `["-fprofile-generate", "-Wl,--build-id"]`},
	} {
		s := call(t, g, "training_settings", str(c.kind), strs("-O1"), strs(), strs("-fprofile-generate")).(*starlark.Dict)
		copt, _, _ := s.Get(str("copt"))
		link, _, _ := s.Get(str("linkopt"))
		if copt.String() != c.copt || link.String() != c.linkopt {
			t.Errorf("training_settings(%s): copt %s linkopt %s, want %s and %s", c.kind, copt, link, c.copt, c.linkopt)
		}
	}
	if got := call(t, g, "training_settings", str("memprof"), strs(), strs(), strs()).String(); !strings.Contains(got, `"-fmemory-profile"`) || strings.Contains(got, "profile-generate") {
		t.Errorf("training_settings(memprof) = %s", got)
	}
}

// One indexed file with IR PGO and MemProf records: the MemProf flags of the release.
func TestInstrMemProf(t *testing.T) {
	g := loadHelpers(t)
	if got, want := call(t, g, "instr_memprof_use_flags", starlark.MakeInt(19), str("p")).String(),
		`["-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile-use=p"]`; got != want {
		t.Errorf("instr_memprof_use_flags(19) = %s, want %s", got, want)
	}
	if got := call(t, g, "instr_memprof_use_flags", starlark.MakeInt(16), str("p")).String(); got != "[]" {
		t.Errorf("instr_memprof_use_flags(16) = %s, want [] (-fprofile-use reads both)", got)
	}
	for _, r := range llvmrelease.All() {
		want := call(t, g, "memprof_format_version", starlark.MakeInt(r.Major))
		if v := call(t, g, "instr_format_version", starlark.MakeInt(r.Major), starlark.True); v != want {
			t.Errorf("instr_format_version(%d, True) = %v, want %v", r.Major, v, want)
		}
	}
	for _, c := range []struct {
		memprof, instr, instrHasMemProf bool
		cc                              int
		want                            string
	}{
		{true, true, false, 19, ""},
		{false, true, true, 19, ""},
		{false, true, true, 16, ""},
		{true, true, true, 19, "two MemProf profiles"},
		{true, true, false, 16, "clang 16 reads MemProf records through -fprofile-use"},
		{true, false, false, 16, ""},
	} {
		msg := string(call(t, g, "check_memprof_sources", str("//t"), starlark.Bool(c.memprof), starlark.Bool(c.instr),
			starlark.Bool(c.instrHasMemProf), starlark.MakeInt(c.cc)).(starlark.String))
		if (msg == "") != (c.want == "") || !strings.Contains(msg, c.want) {
			t.Errorf("check_memprof_sources(%+v) = %q, want %q", c, msg, c.want)
		}
	}
}
