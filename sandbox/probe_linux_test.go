package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrefixWithoutBwrap(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	t.Setenv("PATH", mkdir(t, dir, "emptybin"))

	_, err := Prefix(Config{Workspace: ws})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bwrap not found") || !strings.Contains(err.Error(), "bubblewrap") {
		t.Errorf("Prefix without bwrap: %v", err)
	}
	if cmd, err := Command(t.Context(), Config{Workspace: ws}, "true"); cmd != nil || !errors.Is(err, ErrUnavailable) {
		t.Errorf("Command without bwrap: %v, %v", cmd, err)
	}
	// Rendering does not need bwrap, and assumes a current one.
	w, err := PrefixFor("linux", Config{Workspace: ws})
	if err != nil || w.Program != linuxProgram || !strings.Contains(strings.Join(w.Args, " "), "--disable-userns") {
		t.Errorf("PrefixFor without bwrap: %+v, %v", w, err)
	}
	// Off needs nothing.
	if w, err := Prefix(Config{Workspace: ws, Policy: Off}); err != nil || w.Program != "" {
		t.Errorf("Off without bwrap: %+v, %v", w, err)
	}
}

// TestPrefixProbeFails stands a fake bwrap on PATH that behaves like one on
// a kernel that blocks user namespaces, and checks that its own words reach
// the error, and that an old version drops --disable-userns.
func TestPrefixProbeFails(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	bin := mkdir(t, dir, "bin")
	fake := `#!/bin/sh
if [ "$1" = --version ]; then echo "bubblewrap 0.6.1"; exit 0; fi
for a in "$@"; do if [ "$a" = --disable-userns ]; then echo "bwrap: Unknown option --disable-userns" >&2; exit 1; fi; done
echo "bwrap: setting up uid map: Permission denied" >&2
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)

	_, err := Prefix(Config{Workspace: ws})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"cannot create a sandbox", "bwrap: setting up uid map: Permission denied", PolicyVariable + "=off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	// Cached: a second call gives the same answer without another probe.
	if _, err2 := Prefix(Config{Workspace: ws}); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second call: %v", err2)
	}
	w, err := PrefixFor("linux", Config{Workspace: ws})
	if err != nil || strings.Contains(strings.Join(w.Args, " "), "disable-userns") || w.Program != filepath.Join(bin, "bwrap") {
		t.Errorf("old bwrap: %+v, %v", w, err)
	}
}
