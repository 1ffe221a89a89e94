package llvmname

import (
	"crypto/md5"
	"encoding/binary"
	"strings"
	"testing"
)

func TestGUID(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		{"main", 15822663052811949562},
		// Values printed by llvm-profdata-19 show --memory for app.cc.
		{"_Z9alloc_bufm", 6413687637511256084},
		{"_Z9hot_allocm", 2623413114525717606},
		{"_Z12alloc_zeroedm", 11531663515238971452},
	}
	for _, tt := range tests {
		if got := GUID(tt.name); got != tt.want {
			t.Errorf("GUID(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestGUIDLong: a name longer than the buffer GUID hashes it through has
// the hash of its whole digest.
func TestGUIDLong(t *testing.T) {
	for _, n := range []int{4096, 4097, 8192, 10000} {
		s := strings.Repeat("ab", n)[:n]
		sum := md5.Sum([]byte(s))
		if got, want := GUID(s), binary.LittleEndian.Uint64(sum[:8]); got != want {
			t.Errorf("GUID of %d bytes = %d, want %d", n, got, want)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"main", "main"},
		{"foo.llvm.123", "foo"},
		{"foo.part.0", "foo"},
		{"foo.llvm.1.cold", "foo.llvm.1.cold"},
		{"foo.__uniq.999", "foo.__uniq.999"},
		{"foo.__uniq.999.llvm.5", "foo.__uniq.999"},
		{"foo.part.1.llvm.7", "foo"},
		{"foo.llvm.2.part.1", "foo.llvm.2"},
		{"_ZN1a1bEv.cold", "_ZN1a1bEv.cold"},
	}
	for _, tt := range tests {
		if got := Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := CanonicalForRelease(tt.in, 19); got != tt.want {
			t.Errorf("CanonicalForRelease(%q, 19) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := CanonicalForRelease("foo.llvm.1.cold", 16); got != "foo" {
		t.Errorf("LLVM 16 name of foo.llvm.1.cold = %q, want foo", got)
	}
}
