package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineErrors runs the tool (the test binary standing in for
// it) with bad invocations and checks the exit code and message.
func TestCommandLineErrors(t *testing.T) {
	notELF, _ := filepath.Abs("main_test.go")
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string // substring of stderr
		stdout string // substring of stdout, if any
	}{
		{"unknown flag", []string{"--bogus"}, "", 2, "unknown argument '--bogus'", ""},
		{"single-dash long flag", []string{"-obj=x", "0x1"}, "", 2, "unknown argument '-obj=x', did you mean '--obj'?", ""},
		{"typo", []string{"--output-styl=JSON"}, "", 2, "did you mean '--output-style'?", ""},
		{"missing value", []string{"--obj"}, "", 2, "--obj: missing argument", ""},
		{"flag with value", []string{"--inlines=yes", "0x1"}, "", 2, "--inlines: option takes no value", ""},
		{"bad adjust-vma", []string{"--adjust-vma=zz", "0x1"}, "", 2, "--adjust-vma: expected a non-negative integer, but got 'zz'", ""},
		{"bad group", []string{"-Cfz", "0x1"}, "", 2, "unknown argument '-Cfz'", ""},
		{"usage hint", []string{"--bogus"}, "", 2, "run 'symbolize --help' for usage", ""},
		{"missing binary", []string{"--obj=/nonexistent/bin", "0x1"}, "", 1, "'/nonexistent/bin': No such file or directory", ""},
		{"not ELF", []string{"--obj=" + notELF, "0x1"}, "", 1, "The file was not recognized as a valid object file", ""},
		{"missing binary JSON", []string{"--obj=/nonexistent/bin", "--output-style=JSON", "0x1"}, "", 1, "",
			`{"Address":"0x0","Error":{"Message":"No such file or directory"},"ModuleName":"/nonexistent/bin"}`},
		{"disassemble without obj", []string{"--disassemble"}, "", 2, "--disassemble needs --obj=BINARY", ""},
		{"disassemble with addresses", []string{"--disassemble", "--obj=" + notELF, "0x1"}, "", 2, "--disassemble takes no addresses", ""},
		{"missing binary per line", nil, "/nonexistent/bin 0x10\n", 1, "'/nonexistent/bin': No such file or directory", "??\n??:0:0\n"},
		{"missing binary, stdin requests", []string{"--obj=/nonexistent/bin"}, "0x1\n", 1, "No such file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runTool(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit code = %d, want %d\nstderr: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.stderr)
			}
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout, tc.stdout)
			}
			if tc.stderr != "" && !strings.HasPrefix(stderr, "symbolize: error: ") {
				t.Errorf("stderr = %q, want it to start with %q", stderr, "symbolize: error: ")
			}
		})
	}
}

func TestHelp(t *testing.T) {
	stdout, stderr, code := runTool(t, "", "--help")
	if code != 0 || stderr != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"USAGE: symbolize [options] addresses...", "--obj=<file>, --exe=<file>, -e <file>",
		"--output-style=LLVM|GNU|JSON", "--functions=linkage|short|none", "--disassemble", "Examples:", "Exit status"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--help output lacks %q", want)
		}
	}
}

// TestStdinProtocol checks the request forms on a real binary: the test
// binary itself (Go binaries carry DWARF), so it needs no compiler.
func TestStdinProtocol(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// An empty line is answered without a message; a malformed one gets a
	// message on stderr and an unknown answer on stdout; both succeed.
	stdout, stderr, code := runTool(t, "\n12zz\nFRAME 0x0\n", "--obj="+exe, "--output-style=JSON")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d JSON lines, want 3:\n%s", len(lines), stdout)
	}
	if !strings.HasPrefix(lines[0], `{"ModuleName":"","Symbol":[{"Column":0`) {
		t.Errorf("empty line answer = %s", lines[0])
	}
	if !strings.HasPrefix(lines[1], `{"ModuleName":"`+exe+`","Symbol":[{"Column":0`) {
		t.Errorf("malformed line answer = %s", lines[1])
	}
	if lines[2] != `{"Address":"0x0","Frame":[],"ModuleName":"`+exe+`"}` {
		t.Errorf("FRAME answer = %s", lines[2])
	}
	for _, want := range []string{"symbolize: error: '12zz': expected a number as module offset", "symbolize: warning: FRAME requests are not supported"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	// --fatal-warnings turns the warning into exit status 1.
	if _, _, code := runTool(t, "FRAME 0x0\n", "--obj="+exe, "--fatal-warnings"); code != 1 {
		t.Errorf("--fatal-warnings: exit code %d, want 1", code)
	}
}
