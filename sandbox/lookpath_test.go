package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindProgramSkipsWritable plants a fake "bwrap" in the workspace, in a
// Write path and behind a relative PATH entry, and checks that the lookup
// takes none of them.
func TestFindProgramSkipsWritable(t *testing.T) {
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	grant := mkdir(t, dir, "grant")
	good := mkdir(t, dir, "good")
	for _, d := range []string{filepath.Join(ws, "bin"), grant, good, filepath.Join(dir, "rel")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "fakewrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A PATH entry that reaches the workspace through a symlink.
	if err := os.Symlink(filepath.Join(ws, "bin"), filepath.Join(dir, "sneaky")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "noexec/fakewrap", "not executable")
	t.Chdir(dir)
	t.Setenv("PATH", strings.Join([]string{"", "rel", filepath.Join(ws, "bin"), filepath.Join(dir, "sneaky"), grant + "/", filepath.Join(dir, "noexec"), good}, string(os.PathListSeparator)))

	got, ok := findProgram("fakewrap", []string{ws, grant})
	if want := filepath.Join(good, "fakewrap"); !ok || got != want {
		t.Errorf("findProgram = %q, %v; want %q", got, ok, want)
	}
	t.Setenv("PATH", filepath.Join(ws, "bin"))
	if got, ok := findProgram("fakewrap", []string{ws}); ok {
		t.Errorf("found %q inside the workspace", got)
	}
	// A link in the workspace to a program outside it: the sandbox could
	// point it at any program.
	if err := os.Symlink(filepath.Join(good, "fakewrap"), filepath.Join(ws, "bin", "linked")); err != nil {
		t.Fatal(err)
	}
	if got, ok := findProgram("linked", []string{ws}); ok {
		t.Errorf("found %q through a link in the workspace", got)
	}
}
