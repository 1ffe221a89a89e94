package pseudoprobe

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// programs are C and C++ test programs (calls through and inlined into
// several levels, recursion, virtual calls) built with probes by clang 19
// and 22, PIE and not.
var programs = []struct{ src, cc string }{
	{"../perfscript/testdata/calls.c", "clang-19"},
	{"../perfscript/testdata/calls.c", "clang-22"},
	{"../perfscript/testdata/shapes.cc", "clang++-19"},
	{"../perfscript/testdata/shapes.cc", "clang++-22"},
	{"../../tools/profgen/testdata/inline.cc", "clang++-22"},
}

// buildProbed compiles every program with -fpseudo-probe-for-profiling
// (cached) and returns the binaries.
func buildProbed(t testing.TB) []string {
	t.Helper()
	var inputs []string
	type job struct {
		src, out string
		argv     []string
	}
	var jobs []job
	for _, p := range programs {
		text, err := os.ReadFile(p.src)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(p.src)
		inputs = append(inputs, filepath.Base(p.src), string(text), testenv.Version(t, p.cc))
		for _, pie := range [][]string{{"-fPIE", "-pie"}, {"-fno-pie", "-no-pie"}} {
			out := strings.TrimSuffix(filepath.Base(p.src), filepath.Ext(p.src)) + "-" + p.cc + pie[1]
			argv := append([]string{p.cc, "-O2", "-g", "-fdebug-info-for-profiling", "-fpseudo-probe-for-profiling", "-fno-omit-frame-pointer"}, pie...)
			argv = append(argv, abs, "-o")
			inputs = append(inputs, strings.Join(argv, " "))
			jobs = append(jobs, job{abs, out, argv})
		}
	}
	dir := testenv.Cached(t, "pseudoprobe-programs", inputs, func(dir string) error {
		for _, j := range jobs {
			cmd := exec.Command(j.argv[0], append(j.argv[1:], filepath.Join(dir, j.out))...)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v\n%s", cmd, err, out)
			}
		}
		return nil
	})
	var bins []string
	for _, j := range jobs {
		bins = append(bins, filepath.Join(dir, j.out))
	}
	return bins
}

func open(t testing.TB, bin string, opts Options) *Probes {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opts.FuncStartAddrs == nil {
		// The symbols as internal/profbinary gives them: a section
		// symbol by its section's name.
		syms, _ := f.Symbols()
		var ps []Symbol
		for _, s := range syms {
			name := s.Name
			if elf.ST_TYPE(s.Info) == elf.STT_SECTION && int(s.Section) < len(f.Sections) {
				name = f.Sections[s.Section].Name
			}
			ps = append(ps, Symbol{Addr: s.Value, Name: name})
		}
		opts.FuncStartAddrs = SymbolStarts(ps)
	}
	ds, ps := f.Section(DescSection), f.Section(ProbeSection)
	if ds == nil || ps == nil {
		t.Fatalf("%s: no pseudo-probe sections", bin)
	}
	desc, err := ds.Data()
	if err != nil {
		t.Fatal(err)
	}
	probes, err := ps.Data()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Decode(bin, desc, probes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// llvmProbes runs llvm-profgen --show-pseudo-probe --show-disassembly-only
// and rewrites its output in String's form: the descriptors, then each
// address with the probes printed before its instruction.
func llvmProbes(t *testing.T, tool, bin string) string {
	out, err := exec.Command(tool, "--binary="+bin, "--show-pseudo-probe", "--show-disassembly-only",
		"--perfscript=/dev/null", "--output=/dev/null").Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	var pending []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	inDesc := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "Pseudo Probe Desc:":
			inDesc = true
			b.WriteString(l + "\n")
		case inDesc && (strings.HasPrefix(l, "GUID: ") || strings.HasPrefix(l, "Hash: ")):
			b.WriteString(l + "\n")
		case strings.HasPrefix(l, " [Probe]:"):
			inDesc = false
			pending = append(pending, l)
		default:
			inDesc = false
			if len(pending) > 0 {
				a, _, ok := strings.Cut(strings.TrimSpace(l), ":")
				v, err := strconv.ParseUint(a, 16, 64)
				if !ok || err != nil {
					t.Fatalf("probes before %q", l)
				}
				fmt.Fprintf(&b, "Address:\t%d\n%s\n", v, strings.Join(pending, "\n"))
				pending = nil
			}
		}
	}
	return b.String()
}

// TestLLVM compares every descriptor and every probe (address, function,
// index, discriminator, type, inline context) with what llvm-profgen-19
// and -22 print.
func TestLLVM(t *testing.T) {
	bins := buildProbed(t)
	for _, rel := range []int{19, 22} {
		tool := testenv.Tool(t, fmt.Sprintf("llvm-profgen-%d", rel))
		for _, bin := range bins {
			t.Run(fmt.Sprintf("%d/%s", rel, filepath.Base(bin)), func(t *testing.T) {
				want := llvmProbes(t, tool, bin)
				got := open(t, bin, Options{}).String()
				if got != want {
					t.Errorf("probes differ from llvm-profgen-%d:\n--- llvm:\n%s\n--- ours:\n%s", rel, want, got)
				}
			})
		}
	}
}

// TestFilter keeps one function's probes, as llvm-profgen keeps the
// profiled functions'.
func TestFilter(t *testing.T) {
	bin := buildProbed(t)[1]
	all := open(t, bin, Options{})
	var mainGUID uint64
	for _, d := range all.Descs {
		if d.Name == "main" {
			mainGUID = d.GUID
		}
	}
	p := open(t, bin, Options{GUIDFilter: map[uint64]bool{mainGUID: true}})
	if len(p.Root.Children) != 1 || p.Root.Children[0].GUID != mainGUID {
		t.Fatalf("filtered roots = %d", len(p.Root.Children))
	}
	for _, q := range p.ByAddr {
		n := q.Node
		for !n.Parent.IsRoot() {
			n = n.Parent
		}
		if n.GUID != mainGUID {
			t.Errorf("probe of another function kept: %s", p.AppendProbe(nil, q))
		}
		if got := all.At(q.Address); len(got) == 0 {
			t.Errorf("probe at %#x not in the unfiltered decode", q.Address)
		}
	}
}

// TestMalformed cuts and corrupts real sections: errors name the section
// and wrap a sentinel; nothing panics.
func TestMalformed(t *testing.T) {
	bin := buildProbed(t)[1]
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	desc, _ := f.Section(DescSection).Data()
	probes, _ := f.Section(ProbeSection).Data()
	f.Close()
	for _, c := range []struct {
		name          string
		desc, probes  []byte
		section, want string
	}{
		{"desc cut in GUID", desc[:5], probes, DescSection, "at offset 0x0"},
		{"desc cut in name", desc[:17], probes, DescSection, ""},
		{"probes cut", desc, probes[:len(probes)-1], ProbeSection, ""},
		{"probe count too large", desc, append(append([]byte{}, probes[:8]...), 0xff, 0xff, 0x7f, 0), ProbeSection, "at offset 0x8"},
		{"bad type", desc, append(append([]byte{}, probes[:8]...), 1, 0, 1, 0x8f, 0), ProbeSection, "probe type 15"},
	} {
		_, err := Decode("x", c.desc, c.probes, Options{})
		var de *decode.Error
		if !errors.As(err, &de) || de.Section != c.section || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a decode.Error in %s containing %q", c.name, err, c.section, c.want)
		}
	}
}
