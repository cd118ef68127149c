//go:build linux

package sandbox

import (
	"context"
	"strings"
	"testing"
)

// envSecretVars are set, during every pass, to the pass's env secret:
// names that only a strip-env pattern catches.
var envSecretVars = []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "PGPASSWORD"}

// envReadAll prints the command's environment, its /proc/self/environ and
// every visible process's.
const envReadAll = `env; tr '\0' '\n' < /proc/self/environ; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null`

// envAttempts read secrets from the environment that the strip-env
// patterns remove, and a variable that the allowlist (Config.Env) leaves
// out.
var envAttempts = []*attempt{
	{
		name:    "env-secret-patterns",
		what:    "read GITHUB_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ... (strip-env patterns) from the environment",
		setup:   func(e *escEnv) { e.secret = e.fixture["env-secret"] },
		script:  envReadAll,
		control: func(e *escEnv) escMode { return unstrippedCtl() },
	},
	{
		name:   "env-keep-env",
		what:   "read GITHUB_TOKEN, which only Config.KeepEnv (--keep-env) passes on",
		setup:  func(e *escEnv) { e.secret = e.fixture["env-secret"] },
		script: `printenv GITHUB_TOKEN; tr '\0' '\n' < /proc/self/environ | grep '^GITHUB_TOKEN='`,
		control: func(e *escEnv) escMode {
			e.cfg.KeepEnv = []string{"GITHUB_TOKEN"}
			return escMode{kind: modeSandbox, note: "KeepEnv GITHUB_TOKEN"}
		},
	},
	{
		name:   "env-allowlist",
		what:   "read a variable no strip-env row names, which Config.Env (the allowlist) leaves out",
		setup:  func(e *escEnv) { e.secret = e.fixture["env-unlisted"]; e.cfg.Env = []string{"LANG=C"} },
		script: envReadAll,
		control: func(e *escEnv) escMode {
			e.cfg.Env = nil
			return escMode{kind: modeSandbox, note: "no Env: this process's environment"}
		},
	},
}

// envFixtures sets the pass's secret variables.
func envFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	p.fixture["env-secret"] = escToken("env-secret")
	for _, name := range envSecretVars {
		set(name, p.fixture["env-secret"])
	}
	p.fixture["env-unlisted"] = escToken("env-unlisted")
	set("SANDTABLE_UNLISTED_SETTING", p.fixture["env-unlisted"])
}

func init() {
	escAttempts = append(escAttempts, envAttempts...)
	passFixtures = append(passFixtures, envFixtures)
}

// TestNewCmdStripsEnv checks the other spawn path: a secret a pattern
// catches does not reach a NewCmd's command, and does with KeepEnv.
func TestNewCmdStripsEnv(t *testing.T) {
	requireBwrap(t)
	t.Setenv("GITHUB_TOKEN", "SANDTABLE-NEWCMD-SECRET")
	t.Setenv("SANDTABLE_ORDINARY", "ordinary")
	for _, keep := range []bool{false, true} {
		cfg := Config{Workspace: t.TempDir()}
		if keep {
			cfg.KeepEnv = []string{"GITHUB_TOKEN"}
		}
		c, err := NewCmd(context.Background(), cfg, "sh", "-c", `tr '\0' '\n' < /proc/self/environ`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Output()
		if err != nil {
			t.Fatalf("keep %v: %v", keep, err)
		}
		if got := strings.Contains(string(out), "SANDTABLE-NEWCMD-SECRET"); got != keep {
			t.Errorf("keep %v: the secret reached the command: %v\n%s", keep, got, out)
		}
		if !strings.Contains(string(out), "SANDTABLE_ORDINARY=ordinary") {
			t.Errorf("keep %v: an ordinary variable did not reach the command:\n%s", keep, out)
		}
	}
}
