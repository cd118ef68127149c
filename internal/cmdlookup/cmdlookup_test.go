package cmdlookup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFind: a shell's 127 and 126 as execvp decides them, from a PATH
// entry or a name with a slash, and what the sandbox does not show is
// missing.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	hidden := filepath.Join(dir, "hidden")
	for _, d := range []string{bin, hidden, filepath.Join(bin, "adir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "tool"), 0o755)
	write(filepath.Join(bin, "noexec"), 0o644)
	write(filepath.Join(hidden, "secret"), 0o755)
	sees := func(p string) bool { return filepath.Dir(p) != hidden }
	env := []string{"PATH=/nonexistent", "PATH=" + hidden + ":" + bin}
	for _, c := range []struct {
		name string
		want Verdict
		why  string
	}{
		{"tool", Found, ""},
		{"missing", NotFound, "command not found"},
		{"secret", NotFound, "command not found"},
		{"adir", CannotRun, "permission denied"},
		{"bin/tool", Found, ""},
		{"bin/missing", NotFound, "no such file or directory"},
		{"bin/adir", CannotRun, "is a directory"},
		{hidden + "/secret", NotFound, "no such file or directory"},
	} {
		v, why := Find(c.name, dir, env, sees)
		if v != c.want || why != c.why {
			t.Errorf("Find(%q) = %v, %q; want %v, %q", c.name, v, why, c.want, c.why)
		}
	}
	if v, _ := Find("noexec", dir, env, sees); v != CannotRun {
		t.Errorf("Find(noexec) = %v, want CannotRun", v)
	}
	if got := SearchPath(nil); got != DefaultPath {
		t.Errorf("SearchPath(nil) = %q, want %q", got, DefaultPath)
	}
}
