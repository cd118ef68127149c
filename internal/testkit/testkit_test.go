package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestForksStarted(t *testing.T) {
	for out, want := range map[string]int{
		"STARTED=200\n":                      200,
		"FORKFAIL errno=11\nSTARTED=63\n":    63,
		"":                                   -1,
		"STARTED=x\n":                        -1,
		"Traceback (most recent call last):": -1,
	} {
		if got := ForksStarted(out); got != want {
			t.Errorf("ForksStarted(%q) = %d, want %d", out, got, want)
		}
	}
}

func TestStringLiterals(t *testing.T) {
	lits, read, err := StringLiterals(".", func(name string) bool { return name == "testkit.go" })
	if err != nil || read != 1 {
		t.Fatalf("read %d files: %v", read, err)
	}
	found := false
	for _, l := range lits {
		found = found || l.Value == "STARTED=" && l.Pos.Filename == "testkit.go" && l.Pos.Line > 0
	}
	if !found {
		t.Errorf("testkit.go's \"STARTED=\" is not among %d literals", len(lits))
	}
}

// TestRemoveAll removes a tree with a read-only directory in it, as the
// module cache leaves one.
func TestRemoveAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	ro := filepath.Join(dir, "mod@v1", "pkg")
	if err := os.MkdirAll(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ro, "a.go"), nil, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ro, filepath.Dir(ro)} {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", dir, err)
	}
}
