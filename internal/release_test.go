package internal_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// releaseName matches the names a release number goes by: release,
// llvmRelease, Release, Release, LLVM, llvm, rel, minRelease...
var releaseName = regexp.MustCompile(`(?i)^(llvm|rel|.*release)$`)

// isReleaseExpr reports whether e names a release: an identifier or a
// selector whose name is a release name, or a call of one (a conversion
// to llvmrelease.Release, a method returning the release).
func isReleaseExpr(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return releaseName.MatchString(e.Name)
	case *ast.SelectorExpr:
		return releaseName.MatchString(e.Sel.Name)
	case *ast.CallExpr:
		// llvmrelease.Release(n), o.release(), opts.llvm()
		return isReleaseExpr(e.Fun)
	}
	return false
}

func isIntLit(e ast.Expr) bool {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		e = u.X
	}
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.INT
}

// fileComparisons lists the comparisons of a release with an integer
// literal in f: a binary ==, !=, <, <=, >, >= or a switch on a release
// with an integer case.
func fileComparisons(fset *token.FileSet, f *ast.File) []string {
	var bad []string
	report := func(n ast.Node, what string) {
		bad = append(bad, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				if (isReleaseExpr(n.X) && isIntLit(n.Y)) || (isReleaseExpr(n.Y) && isIntLit(n.X)) {
					report(n, "release compared with an integer")
				}
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && isReleaseExpr(n.Tag) {
				for _, s := range n.Body.List {
					for _, e := range s.(*ast.CaseClause).List {
						if isIntLit(e) {
							report(e, "switch on a release with an integer case")
						}
					}
				}
			}
		}
		return true
	})
	return bad
}

// releaseComparisons lists, for every non-test Go file of the module
// outside internal/llvmrelease, each comparison of a release with an
// integer literal: a binary ==, !=, <, <=, >, >= or a switch on a release
// with an integer case.
func releaseComparisons(t *testing.T) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != ".." && (name == "testdata" || name == "out" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "bazel-")) {
				return filepath.SkipDir
			}
			if filepath.ToSlash(path) == "../internal/llvmrelease" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		bad = append(bad, fileComparisons(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestReleaseFacts: what an LLVM release does is a named predicate or value
// of internal/llvmrelease (r.MemProfFrameID17Bytes(), r.MemProfRawVersions()
// ...); no other file compares a release number with an integer.
func TestReleaseFacts(t *testing.T) {
	for _, b := range releaseComparisons(t) {
		t.Errorf("%s: name the fact in internal/llvmrelease", strings.TrimPrefix(b, "../"))
	}
}

// TestReleaseFactsCheck: the check finds each form of comparison and lets
// the named facts and other numbers pass.
func TestReleaseFactsCheck(t *testing.T) {
	const src = `package p

func f(o Options, release, llvm, n int) {
	_ = release < 19
	_ = 22 <= o.Release
	_ = o.Release != 0
	_ = o.llvm() == 16
	_ = llvmrelease.Release(llvm) >= 20
	switch rel {
	case 16, 19:
	}
	_ = o.Release.HasVTableTypeProfiles()
	_ = n < 19
	_ = release == o.Release
	switch llvm {
	case o.Release:
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range fileComparisons(fset, f) {
		var l, c int
		if _, err := fmt.Sscanf(b, "p.go:%d:%d:", &l, &c); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		lines = append(lines, l)
	}
	if want := []int{4, 5, 6, 7, 8, 10, 10}; fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("flagged lines %v, want %v", lines, want)
	}
}
