package sandbox

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRuntimeImports keeps the promise that nothing at run time parses YAML,
// reflects or runs templates: the table was compiled away by go generate.
func TestRuntimeImports(t *testing.T) {
	banned := map[string]bool{
		"reflect": true, "text/template": true, "html/template": true,
		"encoding/json": true, "gopkg.in/yaml.v3": true,
		"github.com/sandtable/sandtable/gen": true,
		// Not a promise about the table: its init costs every program that
		// imports this package a millisecond per start, and the network
		// helper is such a start on every spawn in mode proxy.
		"net/http": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if banned[path] {
				t.Errorf("%s imports %s", name, path)
			}
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("checked only %d files; is the glob right?", checked)
	}
}
