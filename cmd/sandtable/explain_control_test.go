package main

import (
	"strings"
	"testing"
)

// TestExplainControlChars: a terminal's escape in a stripped variable's
// name reaches explain's output escaped ($'...'), and one in the value of
// a variable a derived hidden row reads reaches the error quoted: never
// as the raw byte, which would act on the caller's terminal.
func TestExplainControlChars(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "X\x1b[2J\x1b[31m_TOKEN=v")
	x := e.run(t, "", "explain", "--policy", "off", "--", "true")
	if x.code != 0 || strings.ContainsRune(x.stdout+x.stderr, 0x1b) || !strings.Contains(x.stdout, `-u $'X\x1b[2J\x1b[31m_TOKEN'`) {
		t.Errorf("explain: exit %d, stdout %q, stderr %q; want the name as $'X\\x1b[2J\\x1b[31m_TOKEN'", x.code, x.stdout, x.stderr)
	}
	e.vars = append(e.vars, "XDG_CONFIG_HOME=/var/tmp/\x1b]0;owned\x07\x1b[31mred")
	for _, cmd := range []string{"explain", "run"} {
		r := e.run(t, "", cmd, "--", "true")
		if r.code == 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stderr, `$env:XDG_CONFIG_HOME="/var/tmp/\x1b]0;owned\a\x1b[31mred"`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want an error naming the value quoted", cmd, r.code, r.stdout, r.stderr)
		}
	}
}
