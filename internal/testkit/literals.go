package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// Literal is one string literal of a Go file: its position and value.
type Literal struct {
	Pos   token.Position
	Value string
}

// StringLiterals lists the string literals of the .go files in dir that are
// not tests and whose names keep accepts, and how many files it read.
func StringLiterals(dir string, keep func(name string) bool) ([]Literal, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, 0, err
	}
	fset := token.NewFileSet()
	var out []Literal
	read := 0
	for _, path := range files {
		if name := filepath.Base(path); strings.HasSuffix(name, "_test.go") || !keep(name) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, read, err
		}
		read++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					out = append(out, Literal{Pos: fset.Position(lit.Pos()), Value: s})
				}
			}
			return true
		})
	}
	return out, read, nil
}
