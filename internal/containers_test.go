package internal_test

import (
	"strings"
	"testing"
)

// TestContainersStandAlone: the emulations of LLVM's and libstdc++'s
// containers (DenseMap, StringMap, OnDiskChainedHashTable, priority_queue,
// unordered_map) belong to no format: any package may use them, and they
// import no project package but internal/llvmrelease (the releases'
// facts, which imports none).
func TestContainersStandAlone(t *testing.T) {
	g := graph(t)
	for _, p := range []string{"internal/densemap", "internal/stringmap", "internal/ondiskhash", "internal/stdheap", "internal/stdunordered"} {
		imports, ok := g[p]
		if !ok {
			t.Fatalf("package %s not found: the rule needs updating", p)
		}
		for _, d := range imports {
			if (strings.HasPrefix(d, "internal/") || strings.HasPrefix(d, "tools/")) && d != "internal/llvmrelease" {
				t.Errorf("%s imports %s: a container emulation imports no project package but internal/llvmrelease", p, d)
			}
		}
	}
}
