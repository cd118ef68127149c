//go:build linux

package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestEscapeListComplete: every package-level list of attempts in this
// package's tests runs, from escAttempts or from a test of its own; a list
// that is defined and named nowhere else would never run and prove
// nothing.
func TestEscapeListComplete(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	defined := map[string]string{}
	used := map[string]int{}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) && isAttemptList(vs.Values[i]) {
						defined[n.Name] = f
					}
				}
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name]++
			}
			return true
		})
	}
	if len(defined) < 20 {
		t.Fatalf("found %d lists of attempts: the test no longer recognises them", len(defined))
	}
	for name, f := range defined {
		if used[name] < 2 {
			t.Errorf("%s (%s) is named nowhere else: add it to escAttempts in escape_attempts_test.go", name, f)
		}
	}
}

// isAttemptList reports whether e builds a []*attempt: a composite literal
// of that type, or a function literal called at once that returns one.
func isAttemptList(e ast.Expr) bool {
	isType := func(e ast.Expr) bool {
		a, ok := e.(*ast.ArrayType)
		if !ok || a.Len != nil {
			return false
		}
		s, ok := a.Elt.(*ast.StarExpr)
		if !ok {
			return false
		}
		id, ok := s.X.(*ast.Ident)
		return ok && id.Name == "attempt"
	}
	switch v := e.(type) {
	case *ast.CompositeLit:
		return v.Type != nil && isType(v.Type)
	case *ast.CallExpr:
		if fl, ok := v.Fun.(*ast.FuncLit); ok && fl.Type.Results != nil && len(fl.Type.Results.List) == 1 {
			return isType(fl.Type.Results.List[0].Type)
		}
	}
	return false
}
