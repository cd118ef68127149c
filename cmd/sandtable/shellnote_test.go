package main

import (
	"strings"
	"testing"
)

// TestShellNote: an interactive shell at a terminal without --interactive
// gets the note naming --interactive; a script, a command string, a
// shell with --interactive, one whose stdin is no terminal, and macOS get
// none.
func TestShellNote(t *testing.T) {
	for _, c := range []struct {
		goos, name  string
		args        []string
		interactive bool
		tty         bool
		want        bool
	}{
		{"linux", "bash", []string{"-i"}, false, true, true},
		{"linux", "/bin/bash", nil, false, true, true},
		{"linux", "zsh", []string{"-il"}, false, true, true},
		{"linux", "sh", []string{"--interactive"}, false, true, true},
		{"linux", "bash", []string{"-i"}, true, true, false},
		{"linux", "bash", []string{"-i"}, false, false, false},
		{"linux", "bash", []string{"-c", "echo hi"}, false, true, false},
		{"linux", "bash", []string{"script.sh"}, false, true, false},
		{"linux", "bash", []string{"-e"}, false, true, false},
		{"linux", "python3", nil, false, true, false},
		{"darwin", "bash", []string{"-i"}, false, true, false},
	} {
		got := shellNote(c.goos, c.name, c.args, c.interactive, c.tty)
		if (got != "") != c.want || c.want && !strings.Contains(got, "--interactive") {
			t.Errorf("shellNote(%s, %s %q, interactive %v, tty %v) = %q; want a note: %v", c.goos, c.name, c.args, c.interactive, c.tty, got, c.want)
		}
	}
}
