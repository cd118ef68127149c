package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellQuoteControl: a word with a terminal's escapes is written in
// $'...' with them escaped, and bash reads it back as the same bytes.
func TestShellQuoteControl(t *testing.T) {
	for in, want := range map[string]string{
		"A\x1b[2JB_TOKEN":   `$'A\x1b[2JB_TOKEN'`,
		"x\u009b2J":         `$'x\xc2\x9b2J'`,
		"bad\xffutf8":       `$'bad\xffutf8'`,
		"it's\a":            `$'it\'s\x07'`,
		`back\slash` + "\n": `$'back\\slash\x0a'`,
		"plain-name":        "plain-name",
		"with space":        "'with space'",
	} {
		got := shellQuote(in)
		if got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
		if hasTerminalControl(in) && strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f }) {
			t.Errorf("shellQuote(%q) = %q keeps a control character", in, got)
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			continue
		}
		out, err := exec.Command(bash, "-c", "printf %s "+got).Output()
		if err != nil || string(out) != in {
			t.Errorf("bash reads %s back as %q (%v), want %q", got, out, err, in)
		}
	}
}
