//go:build linux

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures of the default-hidden attempts (escape_defaults_test.go):
// the secrets planted in the pass's home, and the check they share.

// defaultFixtures puts one secret in the pass's home where each of
// defaultAttempts looks for it.
func defaultFixtures(t *testing.T, p *escPass, _ func(k, v string)) {
	secret := escToken("agent-secret")
	p.fixture["agent-secret"] = secret
	for _, d := range []string{".claude", ".codex"} {
		p.escMkdir(t, filepath.Join(p.home, d), 0o700)
	}
	for _, f := range []string{".claude/.credentials.json", ".codex/auth.json", ".bash_history"} {
		p.escWrite(t, filepath.Join(p.home, f), secret+"\n", 0o600)
	}
}

// containsAny reports whether s contains any of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
