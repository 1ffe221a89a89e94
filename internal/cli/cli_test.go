package cli

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type parsed struct {
	obj    string
	inl    bool
	style  string
	list   []string
	fn     string
	events []string
}

func newTestSet(p *parsed) *FlagSet {
	fs := NewFlagSet("tool", "tool [options] inputs...")
	fs.StringValue(&p.obj, "<file>", "object", "--obj", "--exe", "-e")
	fs.BoolFlag(&p.inl, true, "inline", "--inlines", "-i", "--inlining=true")
	fs.BoolFlag(&p.inl, false, "no inline", "--no-inlines", "--inlining=false")
	fs.StringValue(&p.style, "S", "style", "--output-style")
	fs.ListValue(&p.list, "<dir>", "dirs", "--dir")
	fs.Add(&Option{Names: []string{"--functions", "-f"}, Kind: Flag, Help: "f", Set: func(n, v string) error {
		p.fn = "linkage"
		p.events = append(p.events, n)
		return nil
	}})
	fs.Add(&Option{Names: []string{"--functions=", "-f="}, Kind: JoinedValue, MetaVar: "K", Help: "f=", Set: func(n, v string) error {
		p.fn = v
		p.events = append(p.events, n+"="+v)
		return nil
	}})
	fs.Add(&Option{Names: []string{"-C"}, Kind: Flag, Help: "c", Set: func(n, v string) error {
		p.events = append(p.events, n)
		return nil
	}})
	fs.Add(&Option{Names: []string{"--num"}, Kind: Value, Help: "n", Set: func(n, v string) error {
		if _, ok := ParseUint(v); !ok {
			return fmt.Errorf("expected a number, got %q", v)
		}
		return nil
	}})
	return fs
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want parsed
		pos  []string
	}{
		{[]string{"--obj=a", "1", "2"}, parsed{obj: "a"}, []string{"1", "2"}},
		{[]string{"1", "--obj", "a", "2"}, parsed{obj: "a"}, []string{"1", "2"}},
		{[]string{"-e", "a"}, parsed{obj: "a"}, nil},
		{[]string{"-ea"}, parsed{obj: "a"}, nil},
		{[]string{"-e=a"}, parsed{obj: "a"}, nil},
		{[]string{"--exe=a=b"}, parsed{obj: "a=b"}, nil},
		{[]string{"--inlines", "--no-inlines"}, parsed{}, nil},
		{[]string{"--no-inlines", "--inlining=true"}, parsed{inl: true}, nil},
		{[]string{"--dir=x", "--dir", "y"}, parsed{list: []string{"x", "y"}}, nil},
		{[]string{"--functions"}, parsed{fn: "linkage", events: []string{"--functions"}}, nil},
		{[]string{"--functions=short"}, parsed{fn: "short", events: []string{"--functions=short"}}, nil},
		{[]string{"-f=none"}, parsed{fn: "none", events: []string{"-f=none"}}, nil},
		{[]string{"-Cfi"}, parsed{fn: "linkage", inl: true, events: []string{"-C", "-f"}}, nil},
		{[]string{"-", "--", "--obj=a"}, parsed{}, []string{"-", "--obj=a"}},
	} {
		var got parsed
		pos, err := newTestSet(&got).Parse(tc.args)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(pos, tc.pos) {
			t.Errorf("Parse(%q) = %+v %q, want %+v %q", tc.args, got, pos, tc.want, tc.pos)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown argument '--bogus'"},
		{[]string{"--obj"}, "--obj: missing argument"},
		{[]string{"--functions="}, ""}, // empty joined value is a value
		{[]string{"--inlines=1"}, "--inlines: option takes no value"},
		{[]string{"-Cx"}, "unknown argument '-Cx'"},
		{[]string{"-obj=a"}, "did you mean '--obj'?"},
		{[]string{"--inline"}, "did you mean '--inlines'?"},
		{[]string{"--num=zz"}, "--num: expected a number, got \"zz\""},
	} {
		var p parsed
		_, err := newTestSet(&p).Parse(tc.args)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%q): unexpected error %v", tc.args, err)
			}
			continue
		}
		var u *UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v, want a UsageError containing %q", tc.args, err, tc.want)
		}
		if ExitCode(err) != ExitUsage {
			t.Errorf("ExitCode(%v) = %d, want %d", err, ExitCode(err), ExitUsage)
		}
	}
}

func TestParseUint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"10", 10, true}, {"0x1F", 31, true}, {"0X1f", 31, true},
		{"010", 8, true}, {"0o17", 15, true}, {"0b11", 3, true}, {"00", 0, true},
		{"0xffffffffffffffff", 1<<64 - 1, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false}, {"0x10000000000000000", 0, false},
		{"", 0, false}, {"0x", 0, false}, {"1f", 0, false}, {"08", 0, false},
		{"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"0b2", 0, false},
	} {
		got, ok := ParseUint(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseUint(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReporter(t *testing.T) {
	var b bytes.Buffer
	r := NewReporter("tool", &b)
	r.Progress("hidden %d", 1) // not a terminal: prints nothing
	r.Warnf("odd %s", "thing")
	r.Errorf("bad")
	if got, want := b.String(), "tool: warning: odd thing\ntool: error: bad\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	if r.Err() != nil {
		t.Errorf("Err() = %v without FatalWarnings", r.Err())
	}
	r.FatalWarnings = true
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "odd thing") {
		t.Errorf("Err() = %v, want the first warning", err)
	}
}

func TestHelp(t *testing.T) {
	var p parsed
	fs := newTestSet(&p)
	fs.Summary = "Does things."
	var b bytes.Buffer
	fs.PrintHelp(&b)
	for _, want := range []string{"USAGE: tool [options] inputs...", "Does things.", "--obj=<file>, --exe=<file>, -e <file>", "--functions=K, -f=K"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "--inlining=true") {
		t.Errorf("help lists a fixed compatibility alias:\n%s", b.String())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"--obj=a 1", "-Cfi", "-e a", "--functions=short", "-- -x", "--bogus", "-=", "-e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var p parsed
		newTestSet(&p).Parse(strings.Fields(line))
	})
}

func FuzzParseUint(f *testing.F) {
	for _, s := range []string{"0x10", "010", "0b1", "99999999999999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseUint(s)
		if ok && s == "" {
			t.Fatal("empty string parsed")
		}
		if ok && strings.HasPrefix(s, "0x") {
			if w := fmt.Sprintf("%x", v); !strings.EqualFold(strings.TrimLeft(s[2:], "0"), strings.TrimLeft(w, "0")) {
				t.Fatalf("ParseUint(%q) = %#x", s, v)
			}
		}
	})
}

func TestIntValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		n    int
		u    uint64
		err  string
	}{
		{[]string{"--n", "12", "--u=0x10"}, 12, 16, ""},
		{[]string{"-n010", "--u", "0b11"}, 8, 3, ""}, // LLVM reads a leading 0 as octal
		{[]string{"--u=18446744073709551615"}, 7, 1<<64 - 1, ""},
		{[]string{"--n=-1"}, 7, 7, "--n: expected a non-negative integer, but got '-1'"},
		{[]string{"-n", "x"}, 7, 7, "-n: expected a non-negative integer, but got 'x'"},
		{[]string{"--n=9223372036854775808"}, 7, 7, "--n: expected a non-negative integer, but got '9223372036854775808'"},
		{[]string{"--u", "18446744073709551616"}, 7, 7, "--u: expected a non-negative integer"},
		{[]string{"--u="}, 7, 7, "--u: expected a non-negative integer, but got ''"},
	} {
		n, u := 7, uint64(7)
		fs := NewFlagSet("tool", "tool")
		fs.IntValue(&n, "<N>", "an int", "--n", "-n")
		fs.Uint64Value(&u, "<N>", "a uint64", "--u")
		_, err := fs.Parse(tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || ExitCode(err) != ExitUsage) {
			t.Errorf("Parse(%q): error %v, want %q", tc.args, err, tc.err)
		}
		if n != tc.n || u != tc.u {
			t.Errorf("Parse(%q): n=%d u=%d, want %d %d", tc.args, n, u, tc.n, tc.u)
		}
	}
}
