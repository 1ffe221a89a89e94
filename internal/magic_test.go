package internal_test

import (
	"encoding/binary"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// magic is a format's magic number or string, as its package declares it.
type magic struct {
	owner, name string // the declaring package (its directory) and constant
	num         uint64 // a number's value, or
	str         string // a string's
}

// TestNoCopiedMagic: a format's magic numbers live in its package (a
// constant named *Magic*: instrprof.Magic, memprof.RawMagic, sampleprof's
// magicExt, ...). Every other package tells the format by the package's
// detector (memprof.Detect, instrprof.Detect, sampleprof.Detect) and
// spells none of them: not the number, not its bytes (in either order),
// not the string. Comments and tests are not looked at.
func TestNoCopiedMagic(t *testing.T) {
	files := goFiles(t)
	var magics []magic
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.Contains(strings.ToLower(n.Name), "magic") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						continue
					}
					m := magic{owner: pkgDir(path), name: n.Name}
					switch lit.Kind {
					case token.INT:
						v, err := strconv.ParseUint(strings.ReplaceAll(lit.Value, "_", ""), 0, 64)
						if err != nil || v < 1<<24 {
							continue
						}
						m.num = v
					case token.STRING:
						s, err := strconv.Unquote(lit.Value)
						if err != nil || len(s) < 4 {
							continue
						}
						m.str = s
					default:
						continue
					}
					magics = append(magics, m)
				}
			}
		}
	}
	if len(magics) < 5 {
		t.Fatalf("found only %d magic constants (%v): the search needs updating", len(magics), magics)
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s scanner.Scanner
		file := fset.AddFile(path, -1, len(src))
		s.Init(file, src, nil, 0) // comments skipped
		var ints []uint64         // the integer literals met so far, in order
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			for _, m := range magics {
				if m.owner == pkgDir(path) {
					continue
				}
				switch {
				case tok == token.STRING && m.str != "":
					if v, err := strconv.Unquote(lit); err == nil && strings.Contains(v, m.str) {
						t.Errorf("%s: the magic string of %s.%s: tell the format with its package's detector", fset.Position(pos), m.owner, m.name)
					}
				case tok == token.INT && m.num != 0:
					v, err := strconv.ParseUint(strings.ReplaceAll(lit, "_", ""), 0, 64)
					if err != nil {
						continue
					}
					if v == m.num {
						t.Errorf("%s: the magic number of %s.%s: tell the format with its package's detector", fset.Position(pos), m.owner, m.name)
					}
					if len(ints) >= 7 && bytesOf(append(ints[len(ints)-7:], v), m.num) {
						t.Errorf("%s: the bytes of the magic number of %s.%s: tell the format with its package's detector", fset.Position(pos), m.owner, m.name)
					}
				}
			}
			if tok == token.INT {
				v, _ := strconv.ParseUint(strings.ReplaceAll(lit, "_", ""), 0, 64)
				ints = append(ints, v)
			} else if tok != token.COMMA {
				ints = ints[:0] // a run of byte literals is broken
			}
		}
	}
}

// bytesOf reports whether the 8 values are the bytes of num in either
// byte order.
func bytesOf(vals []uint64, num uint64) bool {
	var b [8]byte
	for i, v := range vals {
		if v > 0xff {
			return false
		}
		b[i] = byte(v)
	}
	return binary.LittleEndian.Uint64(b[:]) == num || binary.BigEndian.Uint64(b[:]) == num
}

// goFiles returns the module's non-test Go files (as graph walks them).
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	skip := regexp.MustCompile(`^(testdata|out|node_modules|bazel-.*|\..*)$`)
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != ".." && skip.MatchString(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pkgDir is the package directory of a file, inside the module.
func pkgDir(path string) string {
	return filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
}
