package perfscript

import (
	"bytes"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/rules-pgo/rules_pgo/internal/decode"
)

// TestReadUnsymbolizedRoundTrip writes a profile as --skip-symbolization
// does and reads it back: the same counters, with the base subtracted and
// added again (wrapping like uint64_t, as ExternalAddr's offset does).
func TestReadUnsymbolizedRoundTrip(t *testing.T) {
	p := &Profile{Counter: *newCounter()}
	p.Ranges[Branch{0x401000, 0x401010}] = 7
	p.Ranges[Branch{0x401020, 0x401030}] = 1 << 40
	p.Branches[Branch{ExternalAddr, 0x401000}] = 3
	p.Branches[Branch{0x401010, 0x401020}] = 9
	var buf bytes.Buffer
	if err := p.WriteUnsymbolized(&buf, 0x400000); err != nil {
		t.Fatal(err)
	}
	u, err := ReadUnsymbolized("t", bytes.NewReader(buf.Bytes()), 0x400000)
	if err != nil {
		t.Fatal(err)
	}
	if u.CS || len(u.Counters) != 1 {
		t.Fatalf("CS %v, %d counters; want one context-insensitive counter", u.CS, len(u.Counters))
	}
	if got := u.Counters[0]; !maps.Equal(got.Ranges, p.Ranges) || !maps.Equal(got.Branches, p.Branches) {
		t.Errorf("read back %v %v, wrote %v %v", got.Ranges, got.Branches, p.Ranges, p.Branches)
	}
}

// TestReadUnsymbolizedContexts reads a CS profile: contexts in the order
// they first appear, repeated ones (and "[]" with a block without a
// context line) added up, leading white space ignored.
func TestReadUnsymbolizedContexts(t *testing.T) {
	text := "[main:3 @ foo]\n  1\n  10-20:5\n  1\n  20->30:2\n[]\n  0\n  1\n  1->10:4\n" +
		"[main:3 @ foo]\n  1\n  10-20:1\n  0\n0\n1\n1->10:1\n"
	u, err := ReadUnsymbolized("t", strings.NewReader(text), 0x1000)
	if err != nil {
		t.Fatal(err)
	}
	if !u.CS || len(u.Counters) != 2 || u.Counters[0].Context != "main:3 @ foo" || u.Counters[1].Context != "" {
		t.Fatalf("got CS %v, %d counters", u.CS, len(u.Counters))
	}
	if n := u.Counters[0].Ranges[Branch{0x1010, 0x1020}]; n != 6 {
		t.Errorf("range count %d, want 6", n)
	}
	if n := u.Counters[1].Branches[Branch{0x1001, 0x1010}]; n != 5 {
		t.Errorf("branch count %d, want 5", n)
	}
	if u.Counters[0].Line != 1 || u.Counters[0].Offset != 0 {
		t.Errorf("context at line %d offset %d, want 1, 0", u.Counters[0].Line, u.Counters[0].Offset)
	}
}

// FuzzReadUnsymbolized feeds the reader mutated unsymbolized profiles:
// every outcome is a *decode.Error saying where, or counters that read
// back the same after writing them again (context-insensitive ones).
func FuzzReadUnsymbolized(f *testing.F) {
	f.Add([]byte("2\n10-20:5\n30-3f:1\n2\nffffffffffc01001->10:3\n20->30:4\n"))
	f.Add([]byte("[main:3 @ foo:2.1 @ bar]\n  1\n  10-20:5\n  1\n  20->30:2\n[]\n  0\n  0\n"))
	f.Add([]byte("[0x1a @ 0x2b]\n  0\n  1\n  1->2:3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ReadUnsymbolized("fuzz", bytes.NewReader(data), 0x400000)
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) || !(strings.HasPrefix(de.Msg, "line ") || strings.HasPrefix(de.Msg, "unexpected end of file") || strings.HasPrefix(de.Msg, "empty file")) {
				t.Fatalf("error %v is not a decode error naming a line", err)
			}
			return
		}
		if len(u.Counters) == 0 {
			t.Fatal("no counters and no error")
		}
		if u.CS {
			return
		}
		var buf bytes.Buffer
		p := &Profile{Counter: u.Counters[0].Counter}
		if err := p.WriteUnsymbolized(&buf, 0x400000); err != nil {
			t.Fatal(err)
		}
		again, err := ReadUnsymbolized("again", &buf, 0x400000)
		if err != nil {
			t.Fatalf("reading back what we wrote: %v", err)
		}
		if !maps.Equal(again.Counters[0].Ranges, p.Ranges) || !maps.Equal(again.Counters[0].Branches, p.Branches) {
			t.Fatal("counters differ after a round trip")
		}
	})
}
