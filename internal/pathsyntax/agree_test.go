package pathsyntax_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/gen"
	"github.com/sandtable/sandtable/internal/pathsyntax"
	"github.com/sandtable/sandtable/sandbox"
)

// genAccepts reports whether the generator takes p as a constant path of
// the table: a default-hidden row, checked by gen.Check.
func genAccepts(t *testing.T, p string) bool {
	t.Helper()
	tab := &gen.Table{Common: gen.Common{DefaultHidden: []gen.Entry{{ID: "fuzz-path", Value: p, Why: "fuzz"}}}}
	err := gen.Check(tab)
	if err != nil && !strings.Contains(err.Error(), `rule "fuzz-path": path `+strconv.Quote(p)+": ") {
		t.Fatalf("gen.Check of a table with the one row %q: %v", p, err)
	}
	return err == nil
}

// sandboxWorkspace is a workspace that does not exist: the sandbox checks
// every path's syntax before it looks at any of them, so a hidden path it
// takes fails later, on the workspace.
const sandboxWorkspace = "/nonexistent/sandtable-pathsyntax-ws"

// sandboxAccepts reports whether the sandbox takes p as a hidden path of a
// Config: PrefixFor refuses it with ErrBadPath and one of the syntax
// problems, or gets past it.
func sandboxAccepts(t *testing.T, p string) bool {
	t.Helper()
	_, err := sandbox.PrefixFor("darwin", sandbox.Config{Workspace: sandboxWorkspace, Hidden: []string{p}, Policy: sandbox.Required})
	if err == nil {
		t.Fatalf("PrefixFor with workspace %s accepted", sandboxWorkspace)
	}
	problem, ok := strings.CutPrefix(err.Error(), "sandbox: hidden path "+strconv.Quote(p)+": ")
	if !ok {
		return true
	}
	if !errors.Is(err, sandbox.ErrBadPath) {
		t.Fatalf("hidden path %q: %v, which is not an ErrBadPath", p, err)
	}
	for pr := pathsyntax.Empty; pr <= pathsyntax.NotClean; pr++ {
		if problem == pr.String() || strings.HasPrefix(problem, pr.String()+" (want ") {
			return false
		}
	}
	return true // refused, but not for its syntax ("/", the workspace)
}

// agree fails unless the generator and the sandbox give p the verdict of
// pathsyntax.Check. A $ is the table's variable syntax, never part of a
// constant path, so the generator is not asked about one.
func agree(t *testing.T, p string) {
	t.Helper()
	want := pathsyntax.Check(p) == pathsyntax.OK
	if got := sandboxAccepts(t, p); got != want {
		t.Errorf("sandbox accepts %q: %v, pathsyntax.Check says %v", p, got, pathsyntax.Check(p))
	}
	if strings.Contains(p, "$") {
		return
	}
	if got := genAccepts(t, p); got != want {
		t.Errorf("gen accepts %q: %v, pathsyntax.Check says %v", p, got, pathsyntax.Check(p))
	}
}

func TestGenAndSandboxAgree(t *testing.T) {
	for _, tc := range syntaxCases {
		agree(t, tc.path)
	}
}

// FuzzGenAndSandboxAgree holds the generator and the sandbox to one
// definition of a path; its seeds run with every go test.
func FuzzGenAndSandboxAgree(f *testing.F) {
	for _, tc := range syntaxCases {
		f.Add(tc.path)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "/" || p == sandboxWorkspace {
			return // refused as a hidden path for what it is, not how it is written
		}
		agree(t, p)
	})
}
