package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// runtimeBanned are the packages no package of this module that the
// runtime links may import itself: nothing at run time parses YAML,
// reflects, runs templates or marshals through reflection; the table was
// compiled away by go generate.
var runtimeBanned = map[string]bool{
	"reflect": true, "text/template": true, "html/template": true,
	"encoding/json": true, "gopkg.in/yaml.v3": true,
	"github.com/sandtable/sandtable/gen": true,
	"net/http":                           true,
}

// linkedBanned are the packages the runtime may not link at all, through
// any import: the table's compilers, templates, and net/http, whose init
// costs every program that imports this package a millisecond per start
// (the network helper is such a start on every spawn in mode proxy).
var linkedBanned = map[string]bool{
	"text/template": true, "html/template": true, "gopkg.in/yaml.v3": true,
	"github.com/sandtable/sandtable/gen": true, "net/http": true,
}

// TestRuntimeImports keeps the promise that nothing at run time parses YAML,
// reflects or runs templates, for every package the library links on
// Linux and macOS (this one and the internal packages it imports), as go
// list finds them: each of the module's packages among them imports none
// of runtimeBanned, and none of linkedBanned is linked at all. The
// command line (cmd/sandtable) may print JSON; it links none of
// linkedBanned either. Control: gen, which the runtime must not link,
// is found importing yaml by the same listing.
func TestRuntimeImports(t *testing.T) {
	list := goList(t, "-deps")
	const mod = "github.com/sandtable/sandtable"
	for _, goos := range []string{"linux", "darwin"} {
		own := 0
		for _, p := range list(goos, "./", "../cmd/sandtable") {
			if linkedBanned[p.ImportPath] {
				t.Errorf("GOOS=%s: the runtime links %s", goos, p.ImportPath)
			}
			if p.Module == nil || p.Module.Path != mod || p.ImportPath == mod+"/cmd/sandtable" {
				continue
			}
			own++
			for _, imp := range p.Imports {
				if runtimeBanned[imp] {
					t.Errorf("GOOS=%s: %s imports %s", goos, p.ImportPath, imp)
				}
			}
		}
		if own < 8 {
			t.Fatalf("GOOS=%s: the listing found %d of the module's packages; is it right?", goos, own)
		}
	}
	found := false
	for _, p := range list("linux", "../gen") {
		if p.ImportPath == mod+"/gen" {
			for _, imp := range p.Imports {
				found = found || imp == "gopkg.in/yaml.v3"
			}
		}
	}
	if !found {
		t.Error("control: the listing does not see gen import gopkg.in/yaml.v3")
	}
}

// listedPkg is a package as go list describes it.
type listedPkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// goList returns a function listing packages with go list and flags
// (-deps: with everything they import), for GOOS goos.
func goList(t *testing.T, flags ...string) func(goos string, pkgs ...string) []listedPkg {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Skipf("no go tool at %s to list the imports with: %v", gobin, err)
	}
	return func(goos string, pkgs ...string) []listedPkg {
		t.Helper()
		args := append([]string{"list"}, flags...)
		cmd := exec.Command(gobin, append(append(args, "-json=ImportPath,Imports,Module"), pkgs...)...)
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v (GOOS=%s): %v", pkgs, goos, err)
		}
		var ps []listedPkg
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p listedPkg
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		return ps
	}
}

// TestInternalImports: the packages under internal/ are leaves, as
// docs/architecture.md ("Packages") says: each imports the standard
// library, golang.org/x/sys and other internal packages only, never
// sandbox, gen or a command. Control: sandbox, listed the same way, is
// found importing internal/proxy.
func TestInternalImports(t *testing.T) {
	list := goList(t)
	const mod = "github.com/sandtable/sandtable"
	for _, goos := range []string{"linux", "darwin"} {
		n := 0
		for _, p := range list(goos, "../internal/...") {
			n++
			for _, imp := range p.Imports {
				first, _, _ := strings.Cut(imp, "/")
				switch {
				case !strings.Contains(first, "."): // the standard library
				case strings.HasPrefix(imp, "golang.org/x/sys/"):
				case strings.HasPrefix(imp, mod+"/internal/"):
				default:
					t.Errorf("GOOS=%s: %s imports %s", goos, p.ImportPath, imp)
				}
			}
		}
		if n < 8 {
			t.Fatalf("GOOS=%s: listed %d internal packages, want the dozen", goos, n)
		}
	}
	found := false
	for _, p := range list("linux", ".") {
		for _, imp := range p.Imports {
			found = found || imp == mod+"/internal/proxy"
		}
	}
	if !found {
		t.Error("control: the listing does not see sandbox import internal/proxy")
	}
}
