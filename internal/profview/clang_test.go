package profview_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/llvmname"
	"github.com/rules-pgo/rules_pgo/internal/llvmrelease"
	"github.com/rules-pgo/rules_pgo/internal/memprof"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/profmerge"
	"github.com/rules-pgo/rules_pgo/internal/profview"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// program is a MemProf test program: the directory holding its binary
// and raw profile, its sources (in dir/src) and extra threshold sets.
type program struct {
	name, dir string
	srcs      []string
	bin, raw  string
	sets      [][]string
}

// programs are those of testdata/memprof/gen.sh and examples/memprof
// for release n.
func programs(t *testing.T, n int) []program {
	dir := memproftest.Fixtures(t)
	progs := []program{
		{"app-a", dir, []string{"app.cc"}, fmt.Sprintf("app-llvm%d-nopie", n), fmt.Sprintf("app-llvm%d-nopie-a.memprofraw", n), nil},
		{"app-b", dir, []string{"app.cc"}, fmt.Sprintf("app-llvm%d-nopie", n), fmt.Sprintf("app-llvm%d-nopie-b.memprofraw", n), nil},
		{"many", dir, []string{"many.cc"}, fmt.Sprintf("many-llvm%d", n), fmt.Sprintf("many-llvm%d.memprofraw", n), nil},
	}
	if n < 19 {
		return progs // no histograms, and the example's thresholds are LLVM 17+ options
	}
	return append(progs,
		program{"hist", dir, []string{"hist.cc"}, fmt.Sprintf("hist-llvm%d", n), fmt.Sprintf("hist-llvm%d.memprofraw", n), nil},
		// The example with its BUILD's threshold too (OPT_COPTS).
		program{"example", exampleFixture(t, n), exampleSources, "example", "example.memprofraw",
			[][]string{{"-memprof-ave-lifetime-cold-threshold=0"}}})
}

var exampleSources = []string{"main.cc", "alloc/hot_cold_new.cc", "alloc/workload.cc"}

// exampleFixture builds examples/memprof with clang++-n as gen.sh builds
// its programs, runs it under the memprof runtime and returns the
// directory holding example, example.memprofraw and src/ (cached).
func exampleFixture(t *testing.T, n int) string {
	clang := testenv.Tool(t, fmt.Sprintf("clang++-%d", n))
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "../../examples/memprof")
	files := append(slices.Clone(exampleSources), "alloc/hot_cold_new.h", "alloc/workload.h")
	inputs := []string{"v1", clang, testenv.Version(t, clang)}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, f, string(b))
	}
	return testenv.Cached(t, fmt.Sprintf("profview-example%d", n), inputs, func(dir string) error {
		for i, f := range files {
			dst := filepath.Join(dir, "src", f)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, []byte(inputs[4+2*i]), 0o644); err != nil {
				return err
			}
		}
		args := []string{"-O1", "-Wl,--no-rosegment", "-gmlt", "-fdebug-info-for-profiling", "-fmemory-profile",
			"-mno-omit-leaf-frame-pointer", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", "-m64",
			"-Wl,-build-id", "-pthread", "-no-pie", "-fuse-ld=lld", "-I", filepath.Join(dir, "src")}
		if _, err := os.Stat(fmt.Sprintf("/usr/lib/llvm-%d/bin/ld.lld", n)); err != nil {
			args = append(args, "--ld-path="+testenv.Tool(t, "ld.lld-19"))
		}
		for _, f := range exampleSources {
			args = append(args, filepath.Join(dir, "src", f))
		}
		bin := filepath.Join(dir, "example")
		if b, err := exec.Command(clang, append(args, "-o", bin)...).CombinedOutput(); err != nil {
			return fmt.Errorf("clang: %v\n%s", err, b)
		}
		cmd := exec.Command(bin, "2000")
		cmd.Env = append(os.Environ(), "MEMPROF_OPTIONS=log_path="+filepath.Join(dir, "raw"))
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", bin, err, b)
		}
		raws, _ := filepath.Glob(filepath.Join(dir, "raw.*"))
		if len(raws) != 1 {
			return fmt.Errorf("want one raw profile, got %q", raws)
		}
		return os.Rename(raws[0], filepath.Join(dir, "example.memprofraw"))
	})
}

// TestHintsMatchClang checks --hints context by context against what
// clang-16, -19 and -22 derive from the same profile: the types
// -memprof-print-match-info prints for every matched context (keyed by
// the full context id; LLVM 17+), the types of the !memprof MIBs clang
// attaches (each MIB stands for the contexts whose frames' stack ids
// start with its stack) and the "memprof" attributes of calls whose
// contexts all have one type (the contexts under the stack ids of the
// call's inline chain). Every program is checked with the release's default
// thresholds and with thresholds chosen from the profile so that cold,
// notcold and hot all occur.
func TestHintsMatchClang(t *testing.T) {
	for _, n := range []int{16, 19, 22} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			clang := testenv.Tool(t, fmt.Sprintf("clang++-%d", n))
			profdata := testenv.Tool(t, fmt.Sprintf("llvm-profdata-%d", n))
			for _, prog := range programs(t, n) {
				t.Run(prog.name, func(t *testing.T) {
					raw := filepath.Join(prog.dir, prog.raw)
					if _, err := os.Stat(raw); err != nil {
						testenv.Missing(t, "fixture not built: %v", err)
					}
					bin := filepath.Join(prog.dir, prog.bin)
					p, err := profmerge.LoadMemProf(raw, bin, llvmrelease.Release(n), nil)
					if err != nil {
						t.Fatal(err)
					}
					base := profview.Contexts(p, profview.DefaultThresholds(llvmrelease.Release(n)))
					sets := append([][]string{nil, mixedThresholds(t, base, n)}, prog.sets...)
					out := compileWithProfile(t, n, clang, profdata, prog, sets)
					// The indexed profile llvm-profdata wrote gives the same contexts.
					ip, err := profmerge.LoadMemProf(filepath.Join(out, "prof.profdata"), bin, llvmrelease.Release(n), nil)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := contextKeys(profview.Contexts(ip, profview.DefaultThresholds(llvmrelease.Release(n)))), contextKeys(base); !slices.Equal(got, want) {
						t.Errorf("contexts of the indexed profile:\n%s\nwant those of the raw one:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					for k, flags := range sets {
						th, err := profview.ParseThresholds(llvmrelease.Release(n), flags)
						if err != nil {
							t.Fatal(err)
						}
						ctxs := profview.Contexts(p, th)
						ll, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.ll", k)))
						if err != nil {
							t.Fatal(err)
						}
						log, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%d.log", k)))
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("flags %q: %s", flags, compareWithClang(t, ctxs, string(log), string(ll)))
					}
				})
			}
		})
	}
}

// mixedThresholds picks a cold density threshold halfway between two
// densities of the profile, no lifetime floor, and (for LLVM 20+ with
// hot hints on) a hot threshold below the largest density, so that the
// comparisons go both ways.
func mixedThresholds(t *testing.T, ctxs []profview.Context, n int) []string {
	var ds []float64
	for _, c := range ctxs {
		if n <= 16 {
			ds = append(ds, float64(c.Decision.AccessesPerByte))
		} else {
			ds = append(ds, float64(c.Decision.Density))
		}
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	if len(ds) < 3 {
		t.Fatalf("profile has %d distinct densities, want 3 or more", len(ds))
	}
	mid := len(ds) / 2
	cold := (ds[mid-1] + ds[mid]) / 2
	if n <= 16 {
		return []string{"-memprof-min-lifetime-cold-threshold=0",
			"-memprof-accesses-per-byte-cold-threshold=" + strconv.FormatFloat(cold, 'g', 8, 64)}
	}
	hot := uint64((ds[len(ds)-2] + ds[len(ds)-1]) / 2)
	flags := []string{
		"-memprof-ave-lifetime-cold-threshold=0",
		"-memprof-lifetime-access-density-cold-threshold=" + strconv.FormatFloat(cold, 'g', 8, 64),
		fmt.Sprintf("-memprof-min-ave-lifetime-access-density-hot-threshold=%d", hot),
	}
	if n >= 20 {
		flags = append(flags, "-memprof-use-hot-hints")
	}
	return flags
}

// compileWithProfile indexes prog's raw profile with llvm-profdata and
// compiles its source with -fmemory-profile-use and each flag set,
// keeping the IR (k.ll) and clang's match report (k.log), cached.
func compileWithProfile(t *testing.T, n int, clang, profdata string, prog program, sets [][]string) string {
	dir := prog.dir
	inputs := []string{"v2", clang, testenv.Version(t, clang), profdata, fileHash(t, filepath.Join(dir, prog.raw)),
		fileHash(t, filepath.Join(dir, prog.bin)), fmt.Sprint(sets)}
	for _, src := range prog.srcs {
		inputs = append(inputs, src, fileHash(t, filepath.Join(dir, "src", src)))
	}
	return testenv.Cached(t, fmt.Sprintf("profview-clang%d-%s", n, prog.name), inputs, func(out string) error {
		pd := filepath.Join(out, "prof.profdata")
		if b, err := exec.Command(profdata, "merge", filepath.Join(dir, prog.raw), "--profiled-binary", filepath.Join(dir, prog.bin), "-o", pd).CombinedOutput(); err != nil {
			return fmt.Errorf("llvm-profdata: %v\n%s", err, b)
		}
		for k, flags := range sets {
			var ll, log []byte
			for _, src := range prog.srcs {
				// The flags of gen.sh's build, without -fmemory-profile.
				args := []string{"-O1", "-gmlt", "-fdebug-info-for-profiling", "-mno-omit-leaf-frame-pointer", "-fno-omit-frame-pointer",
					"-fno-optimize-sibling-calls", "-m64", "-pthread", "-I", filepath.Join(dir, "src")}
				if n <= 16 {
					// LLVM 16 matches MemProf inside PGO use (-pgo-match-memprof).
					args = append(args, "-fprofile-use="+pd)
				} else {
					args = append(args, "-fmemory-profile-use="+pd, "-mllvm", "-memprof-print-match-info")
				}
				for _, f := range flags {
					args = append(args, "-mllvm", f)
				}
				tmp := filepath.Join(out, "tmp.ll")
				args = append(args, "-S", "-emit-llvm", filepath.Join(dir, "src", src), "-o", tmp)
				cmd := exec.Command(clang, args...)
				b, err := cmd.CombinedOutput()
				if err != nil {
					return fmt.Errorf("%s: %v\n%s", cmd, err, b)
				}
				// Metadata numbers restart in every module: keep one
				// module per file, separated for parseMIBs.
				m, err := os.ReadFile(tmp)
				if err != nil {
					return err
				}
				ll = append(append(ll, m...), "\n; ---- module end\n"...)
				log = append(log, b...)
			}
			os.Remove(filepath.Join(out, "tmp.ll"))
			if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("%d.ll", k)), ll, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("%d.log", k)), log, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

func fileHash(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var matchRE = regexp.MustCompile(`(?m)^MemProf (\w+) context with id (\d+) has total profiled size (\d+) is matched`)

// compareWithClang fails t where clang's types differ from ctxs' hints
// and returns a one-line account of what was compared.
func compareWithClang(t *testing.T, ctxs []profview.Context, log, ll string) string {
	t.Helper()
	byID := map[uint64]*profview.Context{}
	for i := range ctxs {
		byID[ctxs[i].ID] = &ctxs[i]
	}
	seen := map[uint64]string{}
	perType := map[string]int{}
	for _, m := range matchRE.FindAllStringSubmatch(log, -1) {
		id, _ := strconv.ParseUint(m[2], 10, 64)
		size, _ := strconv.ParseUint(m[3], 10, 64)
		if prev, ok := seen[id]; ok {
			if prev != m[1] {
				t.Errorf("clang matched context %d as %s and as %s", id, prev, m[1])
			}
			continue
		}
		seen[id] = m[1]
		c := byID[id]
		if c == nil {
			t.Errorf("clang matched context %d (%s, size %d), which --hints does not list", id, m[1], size)
			continue
		}
		if got := c.Decision.Type.String(); got != m[1] {
			t.Errorf("context %d: hint %s (%s), clang says %s", id, got, c.Decision.Why, m[1])
		}
		if c.Info.TotalSize != size {
			t.Errorf("context %d: total size %d, clang says %d", id, c.Info.TotalSize, size)
		}
		perType[m[1]]++
	}
	mibs, attrs := parseMIBs(t, ll)
	if len(seen) == 0 && len(attrs) == 0 {
		t.Errorf("clang matched no context; its output:\n%s", log)
	}
	check := func(what string, m mib) {
		var types []string
		for i := range ctxs {
			if hasPrefix(stackIDs(&ctxs[i]), m.stack) {
				types = append(types, ctxs[i].Hint.String())
			}
		}
		distinct := slices.Compact(slices.Sorted(slices.Values(types)))
		switch {
		case len(types) == 0:
			t.Errorf("%s %q at %v: no context of the profile has that stack", what, m.typ, m.stack)
		case m.typ == "ambiguous": // LLVM 21+ marks calls whose contexts need !memprof
			if len(distinct) < 2 {
				t.Errorf("%s \"ambiguous\" at %v: contexts under it all have hint %s", what, m.stack, types[0])
			}
		case len(distinct) != 1 || distinct[0] != m.typ:
			t.Errorf("%s %q at %v: contexts under it have hints %v", what, m.typ, m.stack, types)
		}
	}
	for _, a := range attrs {
		check("call with attribute memprof", a)
	}
	for _, m := range mibs {
		check("MIB", m)
	}
	return fmt.Sprintf("%d contexts, %d matched by clang %v, %d MIBs, %d calls with a memprof attribute", len(ctxs), len(seen), perType, len(mibs), len(attrs))
}

// contextKeys lists id, hint and size of every context, sorted.
func contextKeys(ctxs []profview.Context) []string {
	var out []string
	for _, c := range ctxs {
		out = append(out, fmt.Sprintf("%d %s %d", c.ID, c.Decision.Type, c.Info.TotalSize))
	}
	slices.Sort(out)
	return out
}

func stackIDs(c *profview.Context) []uint64 {
	ids := make([]uint64, len(c.Frames))
	for i, f := range c.Frames {
		ids[i] = profview.StackID(f, f.Column)
	}
	return ids
}

func hasPrefix(s, prefix []uint64) bool {
	return len(prefix) <= len(s) && slices.Equal(s[:len(prefix)], prefix)
}

type mib struct {
	stack []uint64
	typ   string
}

var (
	mdRE      = regexp.MustCompile(`(?m)^!(\d+) = (?:distinct )?!\{(.*)\}$`)
	memprofRE = regexp.MustCompile(`!memprof !(\d+)`)
)

// parseMIBs returns every MIB of the !memprof attachments in ll (one or
// more modules, each ending with a "; ---- module end" line), and every
// call given a "memprof" attribute instead, as a "MIB" whose stack is the
// stack ids of the call's inline chain (from its !dbg location).
func parseMIBs(t *testing.T, ll string) (mibs, attrs []mib) {
	t.Helper()
	for _, m := range strings.Split(ll, "\n; ---- module end\n") {
		a, b := parseModuleMIBs(t, m)
		mibs, attrs = append(mibs, a...), append(attrs, b...)
	}
	return mibs, attrs
}

var (
	attrGroupRE = regexp.MustCompile(`(?m)^attributes #(\d+) = \{.*"memprof"="(\w+)"`)
	attrCallRE  = regexp.MustCompile(`(?m)^.* call .*\) #(\d+)(?:,.*)? !dbg !(\d+)`)
	fieldRE     = regexp.MustCompile(`(\w+): ("[^"]*"|[^,)]+)`)
)

func parseModuleMIBs(t *testing.T, ll string) (out, attrs []mib) {
	t.Helper()
	nodes := map[string][]string{}
	for _, m := range mdRE.FindAllStringSubmatch(ll, -1) {
		nodes[m[1]] = strings.Split(m[2], ", ")
	}
	ref := func(op string) []string {
		n, ok := nodes[strings.TrimPrefix(op, "!")]
		if !ok {
			t.Fatalf("metadata %s not found", op)
		}
		return n
	}
	done := map[string]bool{}
	for _, m := range memprofRE.FindAllStringSubmatch(ll, -1) {
		if done[m[1]] {
			continue
		}
		done[m[1]] = true
		for _, op := range ref("!" + m[1]) {
			node := ref(op)
			if len(node) < 2 {
				t.Fatalf("MIB %s: %v", op, node)
			}
			var b mib
			b.typ = strings.Trim(strings.TrimPrefix(node[1], "!"), `"`)
			for _, id := range ref(node[0]) {
				v, err := strconv.ParseInt(strings.TrimPrefix(id, "i64 "), 10, 64)
				if err != nil {
					t.Fatalf("MIB stack %s: %v", node[0], err)
				}
				b.stack = append(b.stack, uint64(v))
			}
			out = append(out, b)
		}
	}
	// Specialized metadata (!DILocation(...), !DISubprogram(...)) by number.
	fields := map[string]map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^!(\d+) = (?:distinct )?!DI\w+\((.*)\)$`).FindAllStringSubmatch(ll, -1) {
		f := map[string]string{}
		for _, kv := range fieldRE.FindAllStringSubmatch(m[2], -1) {
			f[kv[1]] = strings.Trim(kv[2], `"`)
		}
		fields[m[1]] = f
	}
	groups := map[string]string{}
	for _, m := range attrGroupRE.FindAllStringSubmatch(ll, -1) {
		groups[m[1]] = m[2]
	}
	for _, m := range attrCallRE.FindAllStringSubmatch(ll, -1) {
		ty, ok := groups[m[1]]
		if !ok {
			continue
		}
		var stack []uint64
		for loc := m[2]; loc != ""; loc = strings.TrimPrefix(fields[loc]["inlinedAt"], "!") {
			l := fields[loc]
			sp := fields[strings.TrimPrefix(l["scope"], "!")]
			for sp != nil && sp["linkageName"] == "" && sp["scope"] != "" && sp["name"] == "" { // lexical blocks
				sp = fields[strings.TrimPrefix(sp["scope"], "!")]
			}
			if l == nil || sp == nil {
				t.Fatalf("!dbg !%s: no location or subprogram", loc)
			}
			name := sp["linkageName"]
			if name == "" {
				name = sp["name"]
			}
			line, _ := strconv.ParseUint(l["line"], 10, 32)
			spLine, _ := strconv.ParseUint(sp["line"], 10, 32)
			col, _ := strconv.ParseUint(l["column"], 10, 32)
			f := memprof.Frame{Function: llvmname.GUID(name), LineOffset: uint32(line-spLine) & 0xffff}
			stack = append(stack, profview.StackID(f, uint32(col)))
		}
		attrs = append(attrs, mib{stack, ty})
	}
	return out, attrs
}
