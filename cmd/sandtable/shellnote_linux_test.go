package main

import (
	"path/filepath"
	"strings"
	"testing"
)

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
