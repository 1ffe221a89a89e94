package memprof

import "testing"

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

func TestCanonicalName(t *testing.T) {
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
		if got := CanonicalName(tt.in); got != tt.want {
			t.Errorf("CanonicalName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := canonicalNameForRelease("foo.llvm.1.cold", 16); got != "foo" {
		t.Errorf("LLVM 16 name of foo.llvm.1.cold = %q, want foo", got)
	}
}
