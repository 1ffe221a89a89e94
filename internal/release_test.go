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
// llvmRelease, LLVMRelease, Release, LLVM, llvm, rel, minRelease...
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestReleaseFacts: what an LLVM release does is a named predicate or value
// of internal/llvmrelease (HasMemProfV3, InstrProfIndexVersion...); no other
// file compares a release number with an integer.
func TestReleaseFacts(t *testing.T) {
	for _, b := range releaseComparisons(t) {
		t.Errorf("%s: name the fact in internal/llvmrelease", strings.TrimPrefix(b, "../"))
	}
}
