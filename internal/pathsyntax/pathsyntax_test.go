package pathsyntax_test

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	. "github.com/sandtable/sandtable/internal/pathsyntax"
)

// syntaxCases are the paths the generator and the sandbox once judged
// differently, and one of each problem.
var syntaxCases = []struct {
	path string
	want Problem
}{
	{"/", OK},
	{"/a/b", OK},
	{"/a b/ü", OK},
	{"/a$b", OK},
	{"/a\u2028b", OK}, // LINE SEPARATOR is a format character, not a control
	{"/a\u202eb", OK}, // RIGHT-TO-LEFT OVERRIDE: a bidi control is format (Cf)
	{"/a\u2066b", OK}, // LEFT-TO-RIGHT ISOLATE
	{"/a\u200bb", OK}, // ZERO WIDTH SPACE
	{"/a\ufeffb", OK}, // BYTE ORDER MARK
	{"", Empty},
	{"/a\xffb", NotUTF8},
	{"/\xc0\xaf", NotUTF8}, // an overlong "/"
	{"/a\x00b", NUL},
	{"/a\"b", Quote},
	{`/a\b`, Backslash},
	{"/a\nb", Control},
	{"/a\tb", Control},
	{"/a\x1bb", Control},
	{"/a\x7fb", Control},
	{"/a\u0080b", Control}, // C1: the generator accepted these before
	{"/a\u0085b", Control}, // NEXT LINE
	{"/a\u009bb", Control}, // the C1 CSI
	{"/a\u009fb", Control},
	{"a/b", NotAbsolute},
	{"./a", NotAbsolute},
	{"~/a", NotAbsolute},
	{"..", NotAbsolute},
	{"/..", NotClean},
	{"/a/../b", NotClean},
	{"/a/..", NotClean},
	{"/a/./b", NotClean},
	{"//a", NotClean},
	{"/a//b", NotClean},
	{"/a/", NotClean},
	{"/a\"/../b", Quote}, // the first problem wins
	{"a\x00/", NUL},
}

func TestCheck(t *testing.T) {
	for _, tc := range syntaxCases {
		if got := Check(tc.path); got != tc.want {
			t.Errorf("Check(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestIsControl(t *testing.T) {
	for r := rune(0); r < 0x110000; r++ {
		want := r < 0x20 || r >= 0x7f && r <= 0x9f
		if IsControl(r) != want {
			t.Errorf("IsControl(%U) = %v, want %v", r, !want, want)
		}
	}
}

func TestProblemString(t *testing.T) {
	for p := OK; p <= NotClean; p++ {
		if s := p.String(); s == "" || s == "unknown problem" {
			t.Errorf("Problem(%d) has no words: %q", p, s)
		}
	}
	if s := (NotClean + 1).String(); s != "unknown problem" {
		t.Errorf("past the last problem: %q", s)
	}
}

// TestLeaf keeps the package a leaf both the generator and the sandbox may
// import: the standard library only.
func TestLeaf(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "pathsyntax.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("pathsyntax.go imports %s, which is not the standard library", p)
		}
	}
}
