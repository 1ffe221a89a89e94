package stdunordered

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// replay builds testdata/order.cc with clang++ against the installed
// libstdc++ and runs it on ops.
func replay(t *testing.T, ops string) []string {
	t.Helper()
	clang := testenv.Tool(t, "clang++-19")
	src, err := os.ReadFile("testdata/order.cc")
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.Cached(t, "stdunordered-order", []string{string(src), testenv.Version(t, "clang++-19")}, func(dir string) error {
		cc := filepath.Join(dir, "order.cc")
		if err := os.WriteFile(cc, src, 0o644); err != nil {
			return err
		}
		out, err := exec.Command(clang, "-O1", "-o", filepath.Join(dir, "order"), cc).CombinedOutput()
		if err != nil {
			return fmt.Errorf("clang++: %v\n%s", err, out)
		}
		return nil
	})
	cmd := exec.Command(filepath.Join(dir, "order"))
	cmd.Stdin = strings.NewReader(ops)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

// TestAgainstLibstdcxx: inserts and erases of keys that share buckets,
// across many rehashes, and std::hash of strings around the 8-byte
// blocks, leave Table and HashBytes where libstdc++ leaves its map.
func TestAgainstLibstdcxx(t *testing.T) {
	var ops strings.Builder
	tab := New(0)
	var want []string
	x := uint64(1)
	live := map[uint64]bool{}
	for i := range 5000 {
		x = x*6364136223846793005 + 1442695040888963407
		k := x >> 52 // few bits: many keys share a bucket or repeat
		if i%7 == 3 {
			k = x >> 1
		}
		if i%5 == 4 && live[k] {
			fmt.Fprintf(&ops, "e %d\n", k)
			tab.Erase(tab.Find(k))
			delete(live, k)
			continue
		}
		fmt.Fprintf(&ops, "i %d\n", k)
		if tab.Find(k) < 0 {
			tab.Insert(k)
			live[k] = true
		}
	}
	for _, s := range []string{"a", "main", "_Z3foov", "12345678", "123456789", "a.very.long.function.name.llvm.42"} {
		fmt.Fprintf(&ops, "s %s\n", s)
		want = append(want, "h", strconv.FormatUint(HashBytes([]byte(s)), 10))
	}
	nodes := tab.Order()
	if len(nodes) != tab.Len() {
		t.Fatalf("Order lists %d nodes, Len is %d", len(nodes), tab.Len())
	}
	for _, n := range nodes {
		want = append(want, strconv.FormatUint(tab.keys[n], 10))
	}
	got := replay(t, ops.String())
	if len(got) != len(want) {
		t.Fatalf("libstdc++ printed %d fields, Table %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("field %d: libstdc++ %s, ours %s", i, got[i], want[i])
		}
	}
	t.Logf("%d operations, %d keys left, %d buckets", 5000, len(nodes), len(tab.buckets))
}

// TestOrder: Order and StringOrder are a Table filled in order.
func TestOrder(t *testing.T) {
	keys := []string{"b", "a", "c", "main"}
	hashes := make([]uint64, len(keys))
	for i, k := range keys {
		hashes[i] = HashBytes([]byte(k))
	}
	if got, want := fmt.Sprint(StringOrder(keys)), fmt.Sprint(Order(hashes)); got != want {
		t.Errorf("StringOrder = %s, Order of the hashes = %s", got, want)
	}
}
