package elfsym_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/elfsym"
	"github.com/rules-pgo/rules_pgo/internal/memprof/memproftest"
	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestFunctions: every subprogram DIE llvm-dwarfdump-22 shows with a
// linkage name and a DW_AT_decl_line in a clang -gmlt binary (out-of-line
// definitions and abstract instances of inlined functions) is among
// Binary.Functions, with that line, and a DIE with DW_AT_low_pc has code.
func TestFunctions(t *testing.T) {
	dwarfdump := testenv.Tool(t, "llvm-dwarfdump-22")
	bin := filepath.Join(memproftest.Fixtures(t), "app-llvm22-nopie")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "fixture not built: %v", err)
	}
	out, err := exec.Command(dwarfdump, "--debug-info", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line uint32
		code bool
	}
	wants := map[string]want{}
	die := regexp.MustCompile(`(?s)DW_TAG_subprogram\n(.*?)\n\n`)
	for _, m := range die.FindAllStringSubmatch(string(out), -1) {
		link := regexp.MustCompile(`DW_AT_linkage_name\s+\("([^"]+)"\)`).FindStringSubmatch(m[1])
		line := regexp.MustCompile(`DW_AT_decl_line\s+\((\d+)\)`).FindStringSubmatch(m[1])
		if link == nil || line == nil {
			continue
		}
		n, _ := strconv.Atoi(line[1])
		wants[link[1]] = want{uint32(n), regexp.MustCompile(`DW_AT_low_pc`).MatchString(m[1])}
	}
	if len(wants) < 10 {
		t.Fatalf("llvm-dwarfdump-22 shows %d subprograms", len(wants))
	}
	b, err := elfsym.Open(bin, &elfsym.Options{DWARFOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got := map[string]elfsym.Function{}
	b.Functions(func(f elfsym.Function) bool {
		if g, ok := got[f.LinkageName]; !ok || f.HasCode && !g.HasCode {
			got[f.LinkageName] = f
		}
		return true
	})
	for name, w := range wants {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: not among Functions", name)
		case g.StartLine != w.line || g.HasCode != w.code && w.code:
			t.Errorf("%s: line %d, code %v; llvm-dwarfdump-22 shows line %d, low_pc %v", name, g.StartLine, g.HasCode, w.line, w.code)
		case g.StartFile == "":
			t.Errorf("%s: no file", name)
		}
	}
}
