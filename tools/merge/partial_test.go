package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialFlags: --memprof-partial-state-output and
// --memprof-partial-input on the command line: two shards merged with
// their states give the one-merge bytes; a state of another partial, and
// the flags with appended contexts or stdout, are refused. (The
// byte-identity over every split of runs whose order-dependent counters
// matter: internal/profmerge TestShardedMemProf.)
func TestPartialFlags(t *testing.T) {
	dir := fixtures(t)
	bin := filepath.Join(dir, "app-llvm19-nopie")
	a, b, d := bin+"-a.memprofraw", bin+"-b.memprofraw", bin+"-dump.memprofraw"
	tmp := t.TempDir()
	p := func(name string) string { return filepath.Join(tmp, name) }
	run := func(want int, args ...string) string {
		t.Helper()
		_, stderr, code := runTool(t, append([]string{"merge", "--llvm-version", "19", "--profiled-binary", bin}, args...)...)
		if code != want {
			t.Fatalf("merge %s: exit %d, want %d: %s", strings.Join(args, " "), code, want, stderr)
		}
		return stderr
	}
	run(0, "-o", p("one"), a, b, d)
	run(0, "-o", p("s0"), "--memprof-partial-state-output", p("s0.state"), a)
	run(0, "-o", p("s1"), "--memprof-partial-state-output", p("s1.state"), b, d)
	run(0, "-o", p("final"), "--memprof-partial-input", p("s0")+","+p("s0.state"), "--memprof-partial-input="+p("s1")+","+p("s1.state"))
	one, err := os.ReadFile(p("one"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := os.ReadFile(p("final"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one, final) {
		t.Errorf("two shards merged with their states differ from one merge")
	}
	if msg := run(1, "-o", p("bad"), "--memprof-partial-input", p("s0")+","+p("s1.state")); !strings.Contains(msg, "belongs to another profile") {
		t.Errorf("a state of another partial: %s", msg)
	}
	if _, err := os.Stat(p("bad")); err == nil {
		t.Errorf("a failed merge left its output")
	}
	run(2, "-o", p("bad"), "--memprof-merge-contexts=false", "--memprof-partial-input", p("s0")+","+p("s0.state"))
	run(2, "-o", "-", "--memprof-partial-state-output", p("x.state"), a)
	run(2, "-o", p("bad"), "--memprof-partial-input", p("s0"))
	run(2, "-o", p("bad"), "--memprof-partial-input", a+","+p("s0.state"))
}
