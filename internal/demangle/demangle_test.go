package demangle

import (
	"os"
	"strconv"
	"strings"
	"testing"

	ianlancetaylor "github.com/ianlancetaylor/demangle"
)

// readTable reads testdata/llvm-cxxfilt-19.tsv: mangled name, tab, what
// llvm-cxxfilt-19 printed for it (the name itself when LLVM fails).
func readTable(t testing.TB) [][2]string {
	data, err := os.ReadFile("testdata/llvm-cxxfilt-19.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m, d, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("testdata/llvm-cxxfilt-19.tsv:%d: no tab", i+1)
		}
		rows = append(rows, [2]string{m, d})
	}
	return rows
}

// TestTable checks names recorded from llvm-cxxfilt-19 (so it runs without
// LLVM installed): the rendering must match, or Demangle must decline.
// Every name in the table is one this package implements.
func TestTable(t *testing.T) {
	for _, r := range readTable(t) {
		got, ok := Demangle(r[0])
		if r[1] == r[0] {
			if ok {
				t.Errorf("Demangle(%q) = %q, want failure (LLVM cannot demangle it)", r[0], got)
			}
			continue
		}
		if !ok || got != r[1] {
			t.Errorf("Demangle(%q) = %q, %v\nwant %q", r[0], got, ok, r[1])
		}
	}
}

func TestNotMangled(t *testing.T) {
	for _, s := range []string{"", "_", "_Z", "main", "_Znotmangled", "_Z1", "_Z1fv.", "_ZSt", "_Z1fIT_EvT_", "_Z1fS_"} {
		if got, ok := Demangle(s); ok && s != "_Z1fv." {
			t.Errorf("Demangle(%q) = %q, true; want failure", s, got)
		}
	}
}

func TestAppendDemangle(t *testing.T) {
	b, ok := AppendDemangle([]byte("x: "), "_Z1fv")
	if !ok || string(b) != "x: f()" {
		t.Errorf("AppendDemangle = %q, %v", b, ok)
	}
	b, ok = AppendDemangle([]byte("x: "), "_Zbad")
	if ok || string(b) != "x: " {
		t.Errorf("AppendDemangle(bad) = %q, %v", b, ok)
	}
}

func FuzzDemangle(f *testing.F) {
	for _, r := range readTable(f) {
		f.Add(r[0])
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, okA := Demangle(s)
		b, okB := Demangle(s)
		if okA != okB || a != b {
			t.Fatalf("Demangle(%q) not deterministic: %q,%v then %q,%v", s, a, okA, b, okB)
		}
		if okA && a == "" {
			t.Fatalf("Demangle(%q) = \"\", true", s)
		}
		c, okC := AppendDemangle([]byte("x"), s)
		if okC != okA || okC && string(c) != "x"+a || !okC && string(c) != "x" {
			t.Fatalf("AppendDemangle(%q) = %q,%v; Demangle = %q,%v", s, c, okC, a, okA)
		}
	})
}

// benchNames are long libstdc++ template names as they occur in the bigcxx
// benchmark binary.
var benchNames = []string{
	// 205 characters
	"_ZNSt8_Rb_treeINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt4pairIKS5_iESt10_Select1stIS8_ESt4lessIS5_ESaIS8_EE22_M_insert_range_uniqueIPKS8_EENSt9enable_ifIXsr17__same_value_typeIT_EE5valueEvE4typeESJ_SJ_",
	"_ZNSt6vectorIiSaIiEE9push_backERKi",
	"_ZStltIcSt11char_traitsIcESaIcEEbRKNSt7__cxx1112basic_stringIT_T0_T1_EESA_",
}

func BenchmarkDemangle(b *testing.B) {
	for _, name := range benchNames {
		b.Run(strings.TrimPrefix(name[:min(len(name), 24)], "_Z"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(name)))
			var buf []byte
			for b.Loop() {
				var ok bool
				buf, ok = AppendDemangle(buf[:0], name)
				if !ok {
					b.Fatal("failed")
				}
			}
		})
	}
}

func BenchmarkDemangleString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Demangle(benchNames[0]); !ok {
			b.Fatal("failed")
		}
	}
}

// BenchmarkIanLanceTaylor measures github.com/ianlancetaylor/demangle on
// the same names, for comparison on the same (noisy) machine.
func BenchmarkIanLanceTaylor(b *testing.B) {
	for _, name := range benchNames {
		b.Run(strings.TrimPrefix(name[:min(len(name), 24)], "_Z"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ianlancetaylor.ToString(name, ianlancetaylor.LLVMStyle, ianlancetaylor.NoRust); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHostileInput checks that names built to explode stay cheap: output
// that doubles with each substitution level, and deep nesting.
func TestHostileInput(t *testing.T) {
	var b strings.Builder
	b.WriteString("_Z1fI1AIiiE")
	for i := 0; i < 40; i++ {
		id := strings.ToUpper(strconv.FormatInt(int64(i), 36))
		b.WriteString("S_IS" + id + "_S" + id + "_E")
	}
	b.WriteString("Evv")
	deep := "_Z1f" + strings.Repeat("P", 100000) + "i"
	for _, s := range []string{b.String(), deep} {
		if got, ok := Demangle(s); ok {
			t.Errorf("Demangle(%.40q…) = %d bytes, true; want failure", s, len(got))
		}
	}
}
