package llvmrelease

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	if _, ok := Lookup(Default); !ok {
		t.Fatalf("Default %d is not a supported release", Default)
	}
	if _, ok := Lookup(17); ok {
		t.Errorf("Lookup(17) found a release")
	}
	prev := 0
	for _, r := range All() {
		if r.Major <= prev {
			t.Errorf("releases not in increasing order at %d", r.Major)
		}
		prev = r.Major
		if !r.Reads(r.IndexVersion, r.MemProfVersion) {
			t.Errorf("LLVM %d does not read its own default output %+v", r.Major, r)
		}
	}
	if got := SupportedText(); got != "16, 19 or 22" {
		t.Errorf("SupportedText() = %q", got)
	}
	if got := ErrUnsupported("x", 20).Error(); got != "x: unsupported LLVM release 20 (want 16, 19 or 22)" {
		t.Errorf("ErrUnsupported = %q", got)
	}
}

// TestVersionsHelp: the facts checked against clang 19 and 22 on this
// project's CI machine (a V0 profile is rejected by clang 22, a V3 one with
// index version 12 is read by both).
func TestVersionsHelp(t *testing.T) {
	h := VersionsHelp()
	for _, want := range []string{
		"  --llvm-version 22   index version 13, MemProf V3            (clang 22 reads V2-V4)\n",
		"Without --llvm-version: 22, whose output is read by clang 22 only.",
		"One profile for clang 19 and 22: --llvm-version 19 --memprof-version 3.",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("VersionsHelp() lacks %q:\n%s", want, h)
		}
	}
}
