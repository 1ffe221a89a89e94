package symbolizer

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestJSONString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"t\tn\nr\r", `"t\tn\nr\r"`},
		{"\x01\x1f\x7f", `"\u0001\u001f` + "\x7f" + `"`},
		{"é<>&", `"é<>&"`},
		{"bad\xffutf8", "\"bad\uFFFDutf8\""},
	} {
		if got := string(appendJSONString(nil, tc.in)); got != tc.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzJSONString: any string quotes to valid JSON that decodes back to
// the input (with invalid UTF-8 replaced).
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\xff", "ns::Box<int>::get() const"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("appendJSONString(%q) = %s: invalid JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
	})
}
