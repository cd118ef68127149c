package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHiddenStar: the * of hide-nvm-npmrc stands for each version
// directory's name, so every version's npmrc is hidden (a missing one kept
// as missing), none with a literal *, and so is $NVM_DIR's; revealing the row as spelled
// reveals them all; a file where the directory should be names nothing;
// more than maxStarNames names is refused, not partly hidden.
func TestHiddenStar(t *testing.T) {
	clearDerivedEnv(t)
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	node := filepath.Join(home, ".nvm", "versions", "node")
	a := writeFile(t, node, "v20.0.0/etc/npmrc", "//r/:_authToken=x\n")
	b := filepath.Join(node, "v22.1.0", "etc", "npmrc")
	mkdir(t, node, "v22.1.0")

	got := hiddenPaths(t, Config{Workspace: ws})
	for _, want := range []string{a, b} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not hidden: %q", want, got)
		}
	}
	for _, p := range got {
		if strings.Contains(p, "*") {
			t.Errorf("hidden path with a literal *: %s", p)
		}
	}

	got = hiddenPaths(t, Config{Workspace: ws, Reveal: []string{home + "/.nvm/versions/node/*/etc/npmrc"}})
	if slices.Contains(got, a) || slices.Contains(got, b) {
		t.Errorf("revealed row still hides: %q", got)
	}

	nvmDir := mkdir(t, dir, "nvm")
	c := writeFile(t, nvmDir, "versions/node/v18.0.0/etc/npmrc", "//r/:_authToken=x\n")
	t.Setenv("NVM_DIR", nvmDir)
	if got := hiddenPaths(t, Config{Workspace: ws, Reveal: []string{home + "/.nvm/versions/node/*/etc/npmrc"}}); !slices.Contains(got, c) {
		t.Errorf("%s not hidden through NVM_DIR: %q", c, got)
	}
	t.Setenv("NVM_DIR", "")

	for i := range maxStarNames - 1 {
		mkdir(t, node, fmt.Sprintf("v%d", i))
	}
	if _, err := newPlan("linux", Config{Workspace: ws}); err == nil || !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "more than 256 names") {
		t.Errorf("%d names: err = %v, want ErrBadPath naming the bound", maxStarNames+1, err)
	}

	if err := os.RemoveAll(filepath.Join(home, ".nvm")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, ".nvm/versions/node", "not a directory")
	for _, p := range hiddenPaths(t, Config{Workspace: ws}) {
		if strings.HasPrefix(p, node) {
			t.Errorf("hidden below a file: %s", p)
		}
	}
}
