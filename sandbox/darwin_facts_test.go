package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestFoldPattern checks the case-folded pattern against Go's POSIX
// reader: every letter case of the path and what lies under it match, a
// sibling that shares its prefix does not, and names APFS would also
// normalise are not folded (rows no-caret-hidden and no-unfoldable-hidden
// refuse them where it matters).
func TestFoldPattern(t *testing.T) {
	pat, ok := foldPattern("/Users/u/ws/.env+(1)")
	if !ok {
		t.Fatal("not folded")
	}
	re := regexp.MustCompilePOSIX(pat)
	for _, s := range []string{"/Users/u/ws/.env+(1)", "/users/U/WS/.ENV+(1)", "/Users/u/ws/.Env+(1)/x"} {
		if !re.MatchString(s) {
			t.Errorf("%s does not match %q", pat, s)
		}
	}
	for _, s := range []string{"/Users/u/ws/.env+(1)x", "/Users/u/ws/xenv+(1)", "/Users/u/ws/.env+1", "/x/Users/u/ws/.env+(1)"} {
		if re.MatchString(s) {
			t.Errorf("%s matches %q", pat, s)
		}
	}
	for _, bad := range []string{"/Users/u/ws/секрет", "/Users/u/ws/a^b"} {
		if got, ok := foldPattern(bad); ok || got != "" {
			t.Errorf("foldPattern(%q) = %q, %v; want it not folded", bad, got, ok)
		}
	}
}

// TestDarwinFacts checks which directories the profile guards and lets
// the command stat.
func TestDarwinFacts(t *testing.T) {
	ws := "/Users/u/ws"
	p := &plan{workspace: ws}
	p.write = []pathFact{fact(ws+"/out", kindDir, ws), fact("/Users/u/w2", kindDir, ws)}
	p.read = []pathFact{fact("/opt/sdk/lib", kindDir, ws)}
	p.hidden = []pathFact{
		fact(ws+"/a/b/key.pem", kindFile, ws),
		fact(ws+"/out/c/Cache", kindDir, ws),
		fact(ws+"/missing/.env", kindMissing, ws),
		fact("/Users/u/w2/.token", kindFile, ws),
		fact("/Users/u/.ssh", kindDir, ws),
	}
	if err := darwinFacts(p); err != nil {
		t.Fatal(err)
	}
	paths := func(fs []pathFact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.path)
		}
		return out
	}
	if got, want := paths(p.guards), []string{ws + "/a/b", ws + "/a", ws + "/out/c", ws + "/out"}; !slices.Equal(got, want) {
		t.Errorf("guards %q, want %q (up to the outermost writable root, roots inside it included)", got, want)
	}
	if got, want := paths(p.ancestors), []string{"/Users/u", "/Users", "/opt/sdk", "/opt", ws}; !slices.Equal(got, want) {
		t.Errorf("ancestors %q, want %q", got, want)
	}
	for _, h := range p.hidden {
		wantW := h.path != "/Users/u/.ssh"
		if h.writable != wantW {
			t.Errorf("%s: writable %v, want %v", h.path, h.writable, wantW)
		}
		if h.folded == "" {
			t.Errorf("%s: no folded pattern", h.path)
		}
	}
}

// TestDarwinRefusesUnfoldable: a missing hidden name inside the workspace
// with a character beyond the fold table is refused when the macOS
// profile is built, and only then; one with an accented Latin letter is
// folded instead.
func TestDarwinRefusesUnfoldable(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PrefixFor("darwin", Config{Workspace: ws, Hidden: []string{ws + "/clé.pem"}, Policy: Required}); err != nil {
		t.Errorf("darwin, an accented Latin letter: %v, want no error (folded)", err)
	}
	cfg := Config{Workspace: ws, Hidden: []string{ws + "/ключ.pem"}, Policy: Required}
	if _, err := PrefixFor("darwin", cfg); !errors.Is(err, ErrBadPath) {
		t.Errorf("darwin: %v, want ErrBadPath", err)
	}
	if _, err := PrefixFor("linux", cfg); err != nil {
		t.Errorf("linux: %v, want no error (nothing to hide, nothing folded)", err)
	}
	if err := os.WriteFile(ws+"/ключ.pem", []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := PrefixFor("darwin", cfg); err != nil {
		t.Errorf("darwin, existing: %v, want no error", err)
	}
}

// TestHomePattern: the home directory's metacharacters are bracketed, so
// the rows that start a pattern there match it and nothing else; a home
// with ^ gives patterns that match nothing (row no-caret-home refuses it).
func TestHomePattern(t *testing.T) {
	got := homePattern("/Users/a.b+c")
	if got != "/Users/a[.]b[+]c" {
		t.Fatalf("homePattern = %q", got)
	}
	re := regexp.MustCompilePOSIX("^" + got + "/x$")
	if !re.MatchString("/Users/a.b+c/x") || re.MatchString("/Users/aXbbbc/x") {
		t.Errorf("%s matches the wrong homes", re)
	}
	caret := regexp.MustCompilePOSIX("^" + homePattern("/Users/a^b") + "/x$")
	for _, s := range []string{"/Users/a^b/x", "/Users/ab/x", "/Users/a/x"} {
		if caret.MatchString(s) {
			t.Errorf("a home with ^: %s matches %q", caret, s)
		}
	}
}
