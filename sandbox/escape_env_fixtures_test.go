//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures of the environment and derived-variable attempts
// (escape_env_test.go): the secret variables and values each pass sets, the
// places the derived rows' variables point at, and the snippet that prints
// every environment the command can see.

// envSecretVars are set, during every pass, to the pass's env secret:
// names that only a strip-env pattern catches.
var envSecretVars = []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "PGPASSWORD",
	// Real names the first patterns missed (strip-passphrase,
	// strip-authtoken, strip-accesstoken, strip-bearer-token, strip-tf-token,
	// strip-poetry-token, strip-op-session, strip-bw-session, ...).
	"AZURE_STORAGE_KEY", "KAGGLE_KEY", "DD_APP_KEY", "RAILS_MASTER_KEY", "SOPS_AGE_KEY", "PRIVATE_KEY",
	"PULUMI_CONFIG_PASSPHRASE", "BORG_PASSPHRASE", "NGROK_AUTHTOKEN", "NPM_CONFIG__AUTHTOKEN", "SYSTEM_ACCESSTOKEN",
	"AWS_BEARER_TOKEN_BEDROCK", "TF_TOKEN_app_terraform_io", "POETRY_PYPI_TOKEN_PYPI", "OP_SESSION_my", "BW_SESSION",
	"GOOGLE_CLOUD_KEYFILE_JSON", "DOCKER_AUTH_CONFIG", "TOKEN", "APIKEY",
	// Lower-case names: Terraform input variables, npm's per-registry password.
	"TF_VAR_db_password", "TF_VAR_api_token", "TF_VAR_client_secret", "TF_VAR_api_key", "npm_config__password",
	// Keys by value under names the first patterns missed (strip-encryption-key,
	// strip-dsn, strip-cookie, ...).
	"N8N_ENCRYPTION_KEY", "JWT_SIGNING_KEY", "NEW_RELIC_LICENSE_KEY", "SUPABASE_SERVICE_KEY", "SUPABASE_SERVICE_ROLE_KEY",
	"TS_AUTHKEY", "TAILSCALE_AUTH_KEY", "DENO_AUTH_TOKENS", "AZURE_OPENAI_KEY", "SENTRY_DSN", "RABBITMQ_ERLANG_COOKIE",
	"API_KEY", "ACCESS_KEY", "APP_KEY", "ENCRYPTION_KEY", "SIGNING_KEY"}

// envSecretValues are set, during every pass, to values that carry the
// pass's value secret under ordinary names (strip-env-values): only their
// values say what they are.
var envSecretValues = map[string]string{
	"REDIS_URL":       "redis://default:%s@127.0.0.1:6379/0",
	"AMQP_URL":        "amqp://app:%s@127.0.0.1:5672/",
	"PIP_INDEX_URL":   "https://__token__:%s@127.0.0.1/simple",
	"SANDTABLE_DB":    "host=127.0.0.1 user=app password=%s dbname=app",
	"SANDTABLE_MYSQL": "app:%s@tcp(127.0.0.1:3306)/app",
}

// envReadAll prints the command's environment, its /proc/self/environ and
// every visible process's.
const envReadAll = `env; tr '\0' '\n' < /proc/self/environ; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f"; done 2>/dev/null`

// derivedFixtures points the derived rows' variables at real places for
// the pass: the runtime's home and socket, an XDG config home and two
// kubeconfigs. Every other derived variable the pass set to a token (the
// stripped ones) is made an absolute path that does not exist, since a
// relative value is refused.
func derivedFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	for _, d := range defaultHidden {
		if v, ok := os.LookupEnv(d.env); ok && d.env != "" && !filepath.IsAbs(v) {
			set(d.env, filepath.Join(p.base, "unset-"+d.env, v))
		}
	}
	home := filepath.Join(p.base, "astrid-home-"+p.astrid)
	p.escMkdir(t, home, 0o700)
	p.fixture["astrid-home"] = home
	p.fixture["astrid-state"] = escToken("astrid-state")
	p.escWrite(t, filepath.Join(home, "state"), p.fixture["astrid-state"]+"\n", 0o600)
	set("ASTRID_HOME", home)

	sock := filepath.Join(p.base, "astrid-"+p.astrid[len(p.astrid)-8:]+".sock")
	secret := escToken("astrid-socket")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	// The file stays until the pass's directory goes (see socketGrace):
	// a spawn that listed the open socket fails if it is unlinked first.
	ln.SetUnlinkOnClose(false)
	p.sockets.Store(true)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(secret + "\n"))
			c.Close()
		}
	}()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	p.chown(t, sock)
	p.fixture["astrid-socket"], p.fixture["astrid-socket-secret"] = sock, secret
	set("ASTRID_SOCKET_PATH", sock)

	p.fixture["derived-secret"] = escToken("derived")
	xdg := filepath.Join(p.base, "xdg")
	p.escMkdir(t, xdg, 0o755)
	p.escMkdir(t, filepath.Join(xdg, "gh"), 0o700)
	p.escWrite(t, filepath.Join(xdg, "gh", "hosts.yml"), "oauth_token: "+p.fixture["derived-secret"]+"\n", 0o600)
	p.fixture["xdg"] = xdg
	set("XDG_CONFIG_HOME", xdg+"/") // a trailing slash, as people write it: cleaned
	a, b := filepath.Join(p.base, "kube-a"), filepath.Join(p.base, "kube-b")
	p.escWrite(t, a, "token: "+p.fixture["derived-secret"]+"\n", 0o600)
	p.escWrite(t, b, "token: "+p.fixture["derived-secret"]+"\n", 0o600)
	p.fixture["kube-b"] = b
	set("KUBECONFIG", a+"::"+b)
}

// envFixtures sets the pass's secret variables.
func envFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	p.fixture["env-secret"] = escToken("env-secret")
	for _, name := range envSecretVars {
		set(name, p.fixture["env-secret"])
	}
	p.fixture["env-value-secret"] = escToken("env-value-secret")
	for name, format := range envSecretValues {
		set(name, fmt.Sprintf(format, p.fixture["env-value-secret"]))
	}
	p.fixture["env-unlisted"] = escToken("env-unlisted")
	set("SANDTABLE_UNLISTED_SETTING", p.fixture["env-unlisted"])
}
