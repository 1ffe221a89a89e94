package symbolizer

import (
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	s := newSession(&Options{Obj: "bin"}, nil, nil)
	for _, tc := range []struct {
		in      string
		cmd     command
		module  string
		addr    uint64
		symbol  string
		wantErr string
	}{
		{in: "0x10", module: "bin", addr: 0x10},
		{in: "16", module: "bin", addr: 16},
		{in: "020", module: "bin", addr: 16},
		{in: "0b101", module: "bin", addr: 5},
		{in: "CODE 0x10", module: "bin", addr: 0x10},
		{in: "DATA 0x10", cmd: cmdData, module: "bin", addr: 0x10},
		{in: "  0x10 rest", module: "bin", addr: 0x10},
		{in: "main", module: "bin", symbol: "main"},
		{in: "main+0x8", module: "bin", symbol: "main", addr: 8},
		{in: "a+b", module: "bin", symbol: "a+b"},
		{in: "12zz", module: "bin", wantErr: "expected a number as module offset"},
		{in: "0x", module: "bin", wantErr: "expected a number as module offset"},
		{in: "FILE:x 0x1", module: "bin", wantErr: "input file has already been specified"},
		{in: "CODE ", module: "bin", wantErr: "no module offset has been specified"},
	} {
		cmd, r, err := s.parseCommand(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseCommand(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || cmd != tc.cmd || r.module != tc.module || r.addr != tc.addr || r.symbol != tc.symbol {
			t.Errorf("parseCommand(%q) = %v %+v %v, want cmd %v module %q addr %#x symbol %q",
				tc.in, cmd, r, err, tc.cmd, tc.module, tc.addr, tc.symbol)
		}
	}
	s = newSession(&Options{}, nil, nil)
	for _, tc := range []struct{ in, module string }{
		{"bin 0x1", "bin"},
		{`"a b" 0x1`, "a b"},
		{`'a b' 0x1`, "a b"},
		{"FILE:bin 0x1", "bin"},
		{"CODE FILE:bin 0x1", "bin"},
	} {
		_, r, err := s.parseCommand(tc.in)
		if err != nil || r.module != tc.module || r.addr != 1 {
			t.Errorf("parseCommand(%q) = %+v, %v; want module %q addr 1", tc.in, r, err, tc.module)
		}
	}
}

// FuzzParseCommand: any input line parses or fails without panicking, and
// handle() answers it with some output.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"0x10", "CODE 0x10", "DATA 0x1", "FRAME 0x1", "bin 0x1", `"a b" 0x1`, "main+4", "FILE:x 1", "BUILDID:abcd 0x1", "12zz", "", "'", `"`} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, withObj bool) {
		c := &Options{}
		if withObj {
			c.Obj = "bin"
		}
		s := newSession(c, nil, nil)
		s.parseCommand(in)
	})
}
