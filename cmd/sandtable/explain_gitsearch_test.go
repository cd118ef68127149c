package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainGitSearchCut: a workspace deeper than the git-search-depth
// row lets the walk reach is named on stderr, with the row and the first
// directory left out; a shallow one prints nothing there.
func TestExplainGitSearchCut(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.ws, "shallow/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := e.run(t, "", "explain"); r.code != 0 || r.stderr != "" {
		t.Fatalf("explain: exit %d, stderr %q; want nothing on stderr", r.code, r.stderr)
	}
	deep := filepath.Join(e.ws, "1/2/3/4/5/6/7")
	if err := os.MkdirAll(filepath.Join(deep, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "", "explain")
	if r.code != 0 || !strings.Contains(r.stderr, "(rule git-search-depth), at "+deep+": the repositories there and beyond are not protected") {
		t.Fatalf("explain: exit %d, stderr %q; want the git-search-depth cut at %s", r.code, r.stderr, deep)
	}
}
