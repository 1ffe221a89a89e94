package demangle

import (
	"os"
	"strconv"
	"strings"
	"testing"

	ianlancetaylor "github.com/ianlancetaylor/demangle"

	"github.com/rules-pgo/rules_pgo/internal/testenv"
)

// readTable reads testdata/llvm-cxxfilt-22.tsv: mangled name, tab, what
// llvm-cxxfilt-22 printed for it (the name itself when LLVM fails).
func readTable(t testing.TB) [][2]string {
	data, err := os.ReadFile("testdata/llvm-cxxfilt-22.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m, d, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("testdata/llvm-cxxfilt-22.tsv:%d: no tab", i+1)
		}
		rows = append(rows, [2]string{m, d})
	}
	return rows
}

// TestTable checks names recorded from llvm-cxxfilt-22 (so it runs without
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
	for _, n := range nameCases {
		f.Add(n)
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
		// A fresh parser state (the pool's hide slices sized by earlier names).
		if b, ok := new(state).demangle(s, nil); ok != okA || ok && string(b) != a {
			t.Fatalf("Demangle(%q) with a fresh state = %q,%v; pooled = %q,%v", s, b, ok, a, okA)
		}
		n := Name(s)
		dot := len(s) > 0 && s[0] == '.'
		if okA && n != a || !okA && !dot && n != s {
			t.Fatalf("Name(%q) = %q; Demangle = %q,%v", s, n, a, okA)
		}
		if m := string(AppendName([]byte("x"), s)); m != "x"+n {
			t.Fatalf("AppendName(%q) = %q, Name = %q", s, m, n)
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

// nameCases exercise Name's choice of what to demangle: the leading dot,
// the one to four underscores before 'Z', block invocation functions, dot
// suffixes, and names of other schemes.
var nameCases = []string{
	"main", "", ".", "_", "_Z", "._Z", "..Z3foov", "_Z3foov", "__Z3foov", "___Z3foov", "____Z3foov", "_____Z3foov",
	"._Z3foov", ".__Z3foov", ".___Z3foov_block_invoke", "_Z3foov.", "_Z3foov.cold", "_Z3foov.a.b",
	"___Z3foov_block_invoke", "___Z3foov_block_invoke_", "___Z3foov_block_invoke_2", "___Z3foov_block_invoke12",
	"___Z3foov_block_invoke_12.cold", "___Z3foov_block_invokex", "____Z3foov_block_invoke",
	"___ZN1A1fEv_block_invoke_3", "_Z3foov_block_invoke", "_ZN1ApmERKS_", "_ZN1AcpEv", "_Z1fIiEDTcp1gfp_EET_",
	"_ZN1A1fIiEEvT_IS1_E",
	// C++20 (clang++-22 -std=c++20): constraints, requires, friends, folds,
	// new, floating-point arguments, lambdas with template parameters.
	"_ZNKSt6ranges12__advance_fnclITkSt24input_or_output_iteratorN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEETkSt12sentinel_forIT_ES8_EEvRSA_T0_",
	"_ZNKSt8__detail10_Synth3wayclIPiS2_EEDaRKT_RKT0_QrqXltfp_fp0_RNS_18__boolean_testableEXltfp0_fp_RNS_18__boolean_testableEE",
	"_ZNSt6ranges14transform_viewINS_11filter_viewINS_8ref_viewISt6vectorIiSaIiEEEEZ4mainE3$_0EEZ4mainE3$_1E3endEvQ12common_rangeIT_E",
	"_Z4halfIdQsr3stdE14floating_pointIT_EES0_S0_", "_ZN1AF1fEv", "_ZN1AFC1Ev", "_Z1fIJiEEDTfLplLi1Efp_EDpT_",
	"_Z1fIJiEEDTfrpmfp_EDpT_", "_Z1fIiEDTnwfp_Li2E_T_piEES0_", "_Z1fIiEDTgsdlfp_ET_", "_Z1fILd000f000000000000EEvv",
	"_Z1fILf00000001EEvv", "_Z1fILdfff8000000000000EEvv", "_Z1fIiEDTplgtfp_Li1ELi2EET_", "_Z1fIiEvT_QrqQgtLi1ELi2EE",
	"_ZZ1fiENKUlTyTniTtTyET_E_clIiLi3ESt15type_identity_tEEDaS_", "_ZZ1fiENKUlTpTnmSt16integer_sequenceImJXspT_EEEE_clIJLm0ELm1ELm2EEEEDaS0_",
	"_ZZ1fiENKUlTkSt8integralT_E_clIiEEDaS_QgtstS_Li1E", "_ZZ1fiENKUlTyT_T0_E_clIilEEDaS_S0_",
	// Constrained placeholders, explicit object parameters (C++23),
	// designated initializers, sizeof... of a captured pack.
	"_ZN4demo5twiceIDkSt8integraliEET_S1_", "_Z1fDkSt8integralDKSt8integralS_S0_", "_Z1fIiEvDk1CS_",
	"_Z1gIiEDKSt8integralIT_Ev", "_ZNH1S3fooERKS_", "_ZNH1S3fooIS_EEvOT_i", "_ZNKH1S3fooERKS_",
	"_Z1fIiEvDTildi1aLi1EdxLi2ELi3EdXLi4ELi5ELi6EEE", "_Z1fIiEvDTtl1AdiaLi1EdibdicLi2EEEE",
	"_Z1fIiEvDTtl1AdxLi0EdxLi1ELi2EEE", "_Z1fIJiiEEvDTsPDpT_EE", "_Z1fIiEvDTsPEE",
	// Modules.
	"_ZN2nsW4demoW4core6WidgetC1Ei", "_ZW1AW1BWP1C1fv", "_ZW1AS_1fv", "_ZNW1A1XC1Ev", "_ZW1A1fB3tagv",
	"_ZGIW1AWP1B", "_ZNW1A1BS_1fEv", "_ZNSt1AW1B1fEv", "_ZStW1A1fv",
	// Structured bindings, pointer-to-member conversions.
	"_ZDC1a1bE", "_ZN1NDC1a1bEE", "_ZZ1fvEDC1a1bE_0", "_ZGVZ1fvEDC1a1bE", "_ZN1ADC1aE",
	"_Z1fIiEvDTmcM1AFivEadL_ZN1A1gEvEEE", "_Z1fIiEvDTmcM1AFivEadL_ZN1A1gEvEn8EE",
	"_Z1fDF16b", "_Z1fDF16_", "_RNvC6_123foo3bar", "_D3foo3barFZv", "__imp_foo", "_Znotmangled", "_ZZ", "_Z1fv_",
}

// TestNameAgainstLLVM compares Name with llvm-cxxfilt-22 on nameCases.
func TestNameAgainstLLVM(t *testing.T) {
	want := cxxfilt(t, testenv.Tool(t, "llvm-cxxfilt-22"), nameCases)
	for i, n := range nameCases {
		if n == "" || strings.HasPrefix(n, "_R") || strings.HasPrefix(n, "_D") {
			continue // not a word for llvm-cxxfilt; Rust and D: see below
		}
		if got := Name(n); got != want[i] {
			t.Errorf("Name(%q) = %q, llvm-cxxfilt-22 prints %q", n, got, want[i])
		}
		if got := string(AppendName([]byte("x"), n)); got != "x"+want[i] {
			t.Errorf("AppendName(%q) = %q, want %q", n, got, "x"+want[i])
		}
	}
	// Rust v0 and D names are printed as they are (LLVM demangles them).
	for _, n := range []string{"_RNvC6_123foo3bar", "_D3foo3barFZv"} {
		if got := Name(n); got != n {
			t.Errorf("Name(%q) = %q, want it unchanged", n, got)
		}
	}
}
