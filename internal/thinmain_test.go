package internal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThinMains: a tool's package main parses flags, prints help and calls
// its library driver (profmerge.Run, profgen.Run, symbolizer's); the
// pipeline lives in internal/. Counted without blank lines, comments and
// string literals (the help text), each main stays within 300 lines.
func TestThinMains(t *testing.T) {
	const limit = 300
	mains, err := filepath.Glob("../tools/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, path := range mains {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		excluded := map[int]bool{}
		mark := func(from, to token.Pos) {
			a, b := fset.Position(from).Line, fset.Position(to).Line
			for l := a; l <= b; l++ {
				excluded[l] = true
			}
		}
		for _, cg := range f.Comments {
			mark(cg.Pos(), cg.End())
		}
		// A line that is only (part of) a string literal is help text.
		lit := map[int]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				a, b := fset.Position(bl.Pos()).Line, fset.Position(bl.End()).Line
				for l := a + 1; l <= b; l++ {
					lit[l] = true
				}
			}
			return true
		})
		data, err := readLines(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, line := range data {
			l := i + 1
			trimmed := strings.TrimSpace(line)
			if trimmed == "" || lit[l] || excluded[l] && (strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "/*") || strings.HasPrefix(trimmed, "*")) {
				continue
			}
			n++
		}
		per[filepath.Dir(path)] += n
	}
	for dir, n := range per {
		if n > limit {
			t.Errorf("%s: package main has %d lines of code (help text, comments and blank lines aside); the limit is %d: move the logic into its library driver", dir, n, limit)
		} else {
			t.Logf("%s: %d lines of code", dir, n)
		}
	}
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}
