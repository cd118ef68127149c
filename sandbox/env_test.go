package sandbox

import (
	"errors"
	"slices"
	"testing"
)

func TestStripEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/me",
		"ASTRID_HOME=/home/me/.astrid", "ASTRID_SOCKET_PATH=/run/astrid.sock", "ASTRID_SESSION_TOKEN=secret",
		"astrid_home=kept", "ASTRID_SESSION_TOKEN_X=kept", "ASTRID_HOMEX=kept", "NOEQUALS",
		"ASTRID_SESSION_TOKEN=second",
		"GITHUB_TOKEN=t", "AWS_SECRET_ACCESS_KEY=s", "OPENAI_API_KEY=k", "ANTHROPIC_API_KEY=k", "NPM_TOKEN=t",
		"PGPASSWORD=p", "SSH_AUTH_SOCK=/run/user/1/ssh", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus",
		"npm_config_//registry.npmjs.org/:_authToken=t",
		"TOKENIZERS_PARALLELISM=false", "GIT_AUTHOR_NAME=me", "LD_LIBRARY_PATH=/opt/lib", "PWD=/src", "OLDPWD=/",
		"PASSWORD_STORE_DIR=/p", "AWS_ACCESS_KEY_ID=AKIA", "SSH_ASKPASS=/usr/bin/ssh-askpass", "TERM=xterm",
		"ssh_auth_sock=lower-case-kept", "github_token=t", "TF_VAR_db_password=p",
	}
	want := []string{
		"PATH=/usr/bin", "HOME=/home/me", "astrid_home=kept", "ASTRID_SESSION_TOKEN_X=kept", "ASTRID_HOMEX=kept", "NOEQUALS",
		"TOKENIZERS_PARALLELISM=false", "GIT_AUTHOR_NAME=me", "LD_LIBRARY_PATH=/opt/lib", "PWD=/src", "OLDPWD=/",
		"PASSWORD_STORE_DIR=/p", "AWS_ACCESS_KEY_ID=AKIA", "SSH_ASKPASS=/usr/bin/ssh-askpass", "TERM=xterm",
		"ssh_auth_sock=lower-case-kept",
	}
	if got := stripEnv(in); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, name := range strippedEnv {
		if envStrippedBy(name) < 0 {
			t.Errorf("%s not stripped", name)
		}
	}
	// The table's always-kept names survive every row.
	for _, name := range []string{"HOME", "PATH"} {
		if !envKept(name) || envStrippedBy(name) >= 0 {
			t.Errorf("%s: kept %v, stripped by %d", name, envKept(name), envStrippedBy(name))
		}
	}
}

func TestChildEnvKeep(t *testing.T) {
	in := []string{"PATH=/bin", "GITHUB_TOKEN=t", "NPM_TOKEN=n", "SSH_AUTH_SOCK=/s", "FOO=bar"}
	got := childEnv(Config{KeepEnv: []string{"GITHUB_TOKEN", "NEVER_STRIPPED", "SSH_AUTH_SOCK"}}, in)
	want := []string{"PATH=/bin", "GITHUB_TOKEN=t", "SSH_AUTH_SOCK=/s", "FOO=bar"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestChildEnvAllowlist(t *testing.T) {
	in := []string{"PATH=/bin", "HOME=/home/me", "GITHUB_TOKEN=t", "FOO=bar", "KEEPME=1", "TERM=xterm"}
	cfg := Config{
		Env:     []string{"LANG=C.UTF-8", "OPENAI_API_KEY=sk", "ANTHROPIC_API_KEY=passed", "PATH=/usr/bin"},
		KeepEnv: []string{"ANTHROPIC_API_KEY", "KEEPME"},
	}
	got := childEnv(cfg, in)
	// Env's own PATH wins over this process's; HOME comes from here; a
	// secret in Env is still stripped unless kept; FOO and TERM are not
	// listed, so they are not passed.
	want := []string{"LANG=C.UTF-8", "ANTHROPIC_API_KEY=passed", "PATH=/usr/bin", "HOME=/home/me", "KEEPME=1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := childEnv(Config{Env: []string{}}, in); !slices.Equal(got, []string{"PATH=/bin", "HOME=/home/me"}) {
		t.Errorf("empty Env: got %q, want only HOME and PATH", got)
	}
}

func TestEnvConfigRefused(t *testing.T) {
	ws := t.TempDir()
	for _, cfg := range []Config{
		{KeepEnv: []string{""}},
		{KeepEnv: []string{"A=B"}},
		{KeepEnv: []string{"*_TOKEN"}},
		{KeepEnv: []string{"A\x00B"}},
		{Env: []string{"NOEQUALS"}},
		{Env: []string{"=value"}},
		{Env: []string{"A=b\x00c"}},
	} {
		cfg.Workspace = ws
		_, err := PrefixFor("linux", cfg)
		if !errors.Is(err, ErrBadEnv) {
			t.Errorf("%+v: err = %v, want ErrBadEnv", cfg, err)
		}
	}
}

func TestRemovedEnv(t *testing.T) {
	got := RemovedEnv(Config{KeepEnv: []string{"NPM_TOKEN", "ASTRID_HOME"}}, []string{"GITHUB_TOKEN=x", "NPM_TOKEN=y", "FOO=z", "DISPLAY=:0", "GITHUB_TOKEN=again"})
	var names []string
	for _, v := range got {
		names = append(names, v.Name+"/"+v.Rule)
	}
	want := []string{"ASTRID_SOCKET_PATH/strip-astrid-socket-path", "ASTRID_SESSION_TOKEN/strip-astrid-session-token"}
	for _, name := range strippedEnv {
		if name != "ASTRID_HOME" && name != "ASTRID_SOCKET_PATH" && name != "ASTRID_SESSION_TOKEN" {
			want = append(want, name+"/"+envStripRules[envStrippedBy(name)])
		}
	}
	want = append(want, "GITHUB_TOKEN/strip-token")
	if !slices.Equal(names, want) {
		t.Errorf("got %q\nwant %q", names, want)
	}
}
