package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMountFlagsFromVocab: what a bwrap flag does at its destination is
// the generator's vocabulary (zz_vocab.go); no hand-written file of the
// package names a mount flag or a mount modifier itself.
func TestMountFlagsFromVocab(t *testing.T) {
	if bwrapMount("--tmpfs") != mountFresh || bwrapMount("--ro-bind") != mountShown || bwrapModifier("--size") != 1 {
		t.Fatal("zz_vocab.go does not know --tmpfs, --ro-bind and --size; is it generated?")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && (bwrapMount(s) != mountNone || bwrapModifier(s) > 0) {
					t.Errorf("%s: %q: a mount flag named by hand (use bwrapMount or bwrapModifier)", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("checked %d files; is the glob right?", checked)
	}
}
