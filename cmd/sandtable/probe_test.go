package main

import (
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	empty := t.TempDir()
	for _, c := range []struct {
		name string
		vars []string
		code int
		want []string
	}{
		{"works", nil, 0, []string{"sandbox: works\n", "policy: required: commands run only inside the sandbox\n"}},
		{"policy off", []string{"ASTRID_SANDBOX_POLICY=off"}, 0, []string{"sandbox: works\n", "policy: off (ASTRID_SANDBOX_POLICY): commands run WITHOUT a sandbox\n"}},
		{"bad policy", []string{"ASTRID_SANDBOX_POLICY=maybe"}, 1, []string{"sandbox: works\n", "bad policy", "fix: unset ASTRID_SANDBOX_POLICY"}},
		{"no bwrap", []string{"PATH=" + empty}, 1, []string{"sandbox: does not work here\n", "  sandbox: unavailable: bwrap not found on PATH", "\n  cause: bubblewrap", "\n  fix: install it: ", "\n  or set ASTRID_SANDBOX_POLICY=off"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.vars = c.vars
			r := e.run(t, "", "probe")
			if r.code != c.code || r.stderr != "" {
				t.Errorf("probe: exit %d, stderr %q; want %d", r.code, r.stderr, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("probe output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
	// The probe's workspace goes, with the placeholders bwrap made in it
	// for the protected paths.
	t.Run("leaves nothing", func(t *testing.T) {
		tmp := t.TempDir()
		os.Chmod(tmp, 0o755)
		e.vars = []string{"TMPDIR=" + tmp}
		if r := e.run(t, "", "probe"); r.code != 0 {
			t.Fatalf("probe: exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("probe left %v in TMPDIR", left)
		}
	})
}
