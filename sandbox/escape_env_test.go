//go:build linux

package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// envAttempts read secrets from the environment that the strip-env
// patterns remove, and a variable that the allowlist (Config.Env) leaves
// out.
var envAttempts = []*attempt{
	{
		name:    "env-secret-patterns",
		what:    "read GITHUB_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ... (strip-env patterns and the names of real tools they first missed) from the environment",
		setup:   func(e *escEnv) { e.secret = e.fixture["env-secret"] },
		script:  envReadAll,
		control: func(e *escEnv) escMode { return unstrippedCtl() },
	},
	{
		name:    "env-secret-values",
		what:    "read a password from REDIS_URL, PIP_INDEX_URL, a libpq or Go MySQL connection string under ordinary names (strip-env-values)",
		setup:   func(e *escEnv) { e.secret = e.fixture["env-value-secret"] },
		script:  envReadAll,
		control: func(e *escEnv) escMode { return unstrippedCtl() },
	},
	{
		name:   "env-keep-env-value",
		what:   "read REDIS_URL's password, which only Config.KeepEnv (--keep-env) passes on",
		setup:  func(e *escEnv) { e.secret = e.fixture["env-value-secret"] },
		script: `printenv REDIS_URL`,
		control: func(e *escEnv) escMode {
			e.cfg.KeepEnv = []string{"REDIS_URL"}
			return escMode{kind: modeSandbox, note: "KeepEnv REDIS_URL"}
		},
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

// derivedAttempts reach what the variables of the derived default-hidden
// rows name: the runtime's home and socket (ASTRID_HOME,
// ASTRID_SOCKET_PATH), a store moved by XDG_CONFIG_HOME, and a kubeconfig
// in KUBECONFIG's list. The command is not told the paths through those
// variables (strip-env removes the first two); it is told them as any
// attacker could guess them. Each control drops the one hide step for
// the path.
var derivedAttempts = []*attempt{
	{
		name: "astrid-home-dir",
		what: "read the runtime's state in the directory ASTRID_HOME names (hide-astrid-home)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["astrid-state"]
			e.vars["ASTRID_DIR"] = e.fixture["astrid-home"]
		},
		script:  `cat "$ASTRID_DIR/state"; ls -la "$ASTRID_DIR"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + e.fixture["astrid-home"]) },
	},
	{
		name:  "astrid-socket",
		what:  "connect to the runtime's socket at the path ASTRID_SOCKET_PATH names (hide-astrid-socket)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.secret = e.fixture["astrid-socket-secret"]
			e.vars["SOCK"] = e.fixture["astrid-socket"]
			e.vars["CONNECT_PY"] = connectPy
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.fixture["astrid-socket"]) },
	},
	{
		name: "xdg-config-gh",
		what: "read the GitHub CLI's token where XDG_CONFIG_HOME moves it (hide-xdg-gh)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["derived-secret"]
		},
		script:  `cat "$XDG_CONFIG_HOME/gh/hosts.yml"`,
		control: func(e *escEnv) escMode { return dropRules("hide-dir=" + filepath.Join(e.fixture["xdg"], "gh")) },
	},
	{
		name: "kubeconfig-list",
		what: "read the second kubeconfig of KUBECONFIG's list (hide-kubeconfig, one step per entry)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["derived-secret"]
			e.vars["KUBE_B"] = e.fixture["kube-b"]
		},
		script:  `cat "$KUBE_B"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.fixture["kube-b"]) },
	},
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
