package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteMissingSaysMkdir: a write path that does not exist is refused
// with the command that creates it, shell-quoted, and nothing is created.
func TestWriteMissingSaysMkdir(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "out", "dir"), "mkdir -p " + filepath.Join(dir, "out", "dir") + ")"},
		{filepath.Join(dir, "it's here"), `mkdir -p '` + dir + `/it'\''s here')`},
	} {
		_, err := PrefixFor("linux", Config{Workspace: ws, Write: []string{c.path}})
		if !errors.Is(err, ErrBadPath) || !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "does not exist (want it created first: "+c.want) {
			t.Errorf("%s: %v", c.path, err)
		}
		if _, err := os.Lstat(c.path); err == nil {
			t.Errorf("%s was created", c.path)
		}
	}
}
