package main

import (
	"path/filepath"
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

// TestShellNoteOnTerminal: sandtable run -- sh -i on a terminal says, before
// the shell starts, that job control needs --interactive; with
// --interactive it says nothing.
func TestShellNoteOnTerminal(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	// An interactive sh reads $ENV first: the shell exits there.
	rc := e.write(t, filepath.Join(e.ws, "rc"), "exit 0\n", 0o644)
	for _, c := range []struct {
		flags []string
		want  bool
	}{{nil, true}, {[]string{"--interactive"}, false}} {
		args := append(append([]string{"run"}, c.flags...), "--", "sh", "-i")
		cmd := e.command(args...)
		cmd.Env = append(cmd.Env, "ENV="+rc)
		res := onTerminal(t, termUser{label: "caller"}, cmd, 0)
		if got := strings.Contains(res.out, "sandtable: note: sh runs in a session of its own"); got != c.want {
			t.Errorf("sandtable %q on a terminal: note %v, want %v; output %q", args, got, c.want, res.out)
		}
	}
}
