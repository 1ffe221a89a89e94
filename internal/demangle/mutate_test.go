package demangle

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// TestMutationsAgainstLLVM is a differential test on damaged and
// recombined names: it derives names from the table by deleting,
// duplicating, splicing and replacing pieces (seeded, so the set is the
// same every run), asks llvm-cxxfilt-22 about all of them in one process,
// and requires Demangle to either match or decline (Name then prints the
// name as it is); it lists a few names LLVM demangles and we decline. Mutations reach the
// corners (odd substitution indices, template parameters out of range,
// truncated expressions) that compiler output never shows.
func TestMutationsAgainstLLVM(t *testing.T) {
	cxxfilt := testenv.Tool(t, "llvm-cxxfilt-22")
	var seeds []string
	for _, r := range readTable(t) {
		seeds = append(seeds, r[0])
	}
	seeds = append(seeds, cxx20Names(t)...)
	n := 30000
	if os.Getenv("DEMANGLE_MUTATIONS") != "" {
		n, _ = strconv.Atoi(os.Getenv("DEMANGLE_MUTATIONS"))
	}
	if testing.Short() {
		n = 3000
	}
	const alphabet = "0123456789_ABCDEFGIJKLMNOPQRSTUVWXYZabcdefghijlmnopqrstuvwxyz"
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	var names []string
	for len(names) < n {
		s := seeds[rng.IntN(len(seeds))]
		if len(s) < 4 {
			continue
		}
		i := 2 + rng.IntN(len(s)-2)
		j := i + rng.IntN(min(8, len(s)-i)+1)
		switch rng.IntN(4) {
		case 0:
			s = s[:i] + s[j:]
		case 1:
			s = s[:j] + s[i:]
		case 2:
			o := seeds[rng.IntN(len(seeds))]
			k := rng.IntN(len(o))
			l := k + rng.IntN(len(o)-k+1)
			s = s[:i] + o[k:l] + s[j:]
		case 3:
			s = s[:i] + string(alphabet[rng.IntN(len(alphabet))]) + s[min(i+1, len(s)):]
		}
		if !strings.HasPrefix(s, "_Z") || seen[s] {
			continue
		}
		seen[s] = true
		names = append(names, s)
	}
	cmd := exec.Command(cxxfilt)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-cxxfilt-22: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(names) {
		t.Fatalf("llvm-cxxfilt-22 returned %d lines for %d names", len(want), len(names))
	}
	llvmOK, ours, wrong := 0, 0, 0
	for i, m := range names {
		if want[i] != m {
			llvmOK++
		}
		got, ok := Demangle(m)
		if !ok {
			if want[i] != m && llvmOK-ours <= 10 {
				t.Logf("not implemented: %s (LLVM: %s)", m, want[i])
			}
			continue
		}
		ours++
		if got != want[i] {
			wrong++
			if wrong <= 20 {
				t.Errorf("Demangle(%q)\n got %q\nwant %q", m, got, want[i])
			}
		}
	}
	t.Logf("%d mutated names: LLVM demangles %d, we demangle %d, %d wrong", len(names), llvmOK, ours, wrong)
}
