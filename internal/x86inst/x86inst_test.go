package x86inst

import (
	"encoding/hex"
	"testing"
)

// TestDecode pins LLVM's boundaries and classes of instructions where
// golang.org/x/arch decodes otherwise (as llvm-objdump-19 and -22 print
// them; TestCrafted checks them against the tools).
func TestDecode(t *testing.T) {
	tests := []struct {
		hex   string
		len   int
		ok    bool
		class Class
		kind  Kind
	}{
		{"f0830701", 1, true, Other, KindLock},                 // lock; addl $1,(%rdi)
		{"830701", 3, true, Other, KindX86},                    // the addl after it
		{"f2f00fb10e", 1, true, Other, KindXAcquire},           // xacquire; lock; cmpxchg
		{"66f2f08307", 2, true, Other, KindXAcquire},           // prefixes before xacquire
		{"f38907", 1, true, Other, KindXRelease},               // xrelease; movl %eax,(%rdi)
		{"f28707", 1, true, Other, KindXAcquire},               // xacquire; xchgl
		{"f390", 2, true, Other, KindX86},                      // pause
		{"66f0830701", 5, true, Other, KindX86},                // a LOCK after a prefix stays
		{"f3ab", 2, true, Other, KindX86},                      // rep stosl
		{"f30f1efa", 4, true, Other, KindEndbr64},              // endbr64
		{"c5fd6f07", 4, true, Other, KindVector},               // vmovdqa (%rdi),%ymm0
		{"62f17d486f07", 6, true, Other, KindVector},           // vmovdqa32 (%rdi),%zmm0
		{"c4e37d18c001", 6, true, Other, KindVector},           // vinsertf128 $1
		{"c5f877", 3, true, Other, KindVector},                 // vzeroupper
		{"8fea781000000000000000", 9, true, Other, KindVector}, // XOP bextr imm32
		{"66e90000", 4, true, UncondBranch, KindLegacy},        // jmp rel16
		{"66e800000000", 6, true, Call, KindX86},               // call ignores 66
		{"660f840000", 5, true, Branch, KindLegacy},            // je rel16
		{"40490c1e405", 0, false, Other, KindInvalid},          // (odd length: skipped)
		{"4049c1e405", 5, true, Other, KindX86},                // a REX before a REX is dead
		{"6666666666666666666666666666669090", 16, true, Other, KindX86},
		{"06", 1, false, Other, KindInvalid},
		{"fe ff", 2, false, Other, KindInvalid},
		{"0fff", 2, false, Other, KindInvalid},
		{"82", 1, false, Other, KindInvalid},
		{"0f0f00c3", 4, false, Other, KindInvalid}, // 3DNow! with an unknown suffix
		{"e8fbffffff", 5, true, Call, KindX86},
		{"c3", 1, true, Return, KindX86},
		{"ffe0", 2, true, Branch, KindX86},
		{"eb00", 2, true, UncondBranch, KindX86},
		{"7400", 2, true, Branch, KindX86},
		{"d50001", 4, true, Other, KindREX2}, // REX2 add %ecx,%esp (ModR/M cc)
	}
	for _, tt := range tests {
		b, err := hex.DecodeString(stripSpaces(tt.hex))
		if err != nil {
			continue
		}
		got := Decode(append(b, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc))
		if got.Len != tt.len || got.OK != tt.ok || got.Class != tt.class || got.Kind != tt.kind {
			t.Errorf("Decode(%s) = len %d ok %v class %d kind %d, want %d %v %d %d", tt.hex, got.Len, got.OK, got.Class, got.Kind, tt.len, tt.ok, tt.class, tt.kind)
		}
	}
}

func stripSpaces(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// FuzzDecode checks what holds for any bytes: the length is at least 1
// and no more than the bytes there are (1 for none), only a decoded
// instruction has a class, and only a branch or call a displacement.
func FuzzDecode(f *testing.F) {
	for _, h := range crafted {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		in := Decode(code)
		if in.Len < 1 || in.Len > max(len(code), 1) {
			t.Fatalf("Decode(%x).Len = %d", code, in.Len)
		}
		if !in.OK && (in.Class != Other || in.HasRel || in.Kind != KindInvalid) {
			t.Fatalf("Decode(%x) = %+v: invalid with a class", code, in)
		}
		if in.HasRel && in.Class == Other || in.HasRel && in.Class == Return {
			t.Fatalf("Decode(%x) = %+v: displacement without a branch", code, in)
		}
	})
}
