package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunOffline: with the network off, the offline-env rows are set and
// npm fails at once from its cache (ENOTCACHED) rather than retrying the
// unreachable registry; control: without npm_config_offline (and with its
// retries off, to keep the test short) the same install fails on the name
// lookup (EAI_AGAIN), the failure npm retries for 70 s by default. With the
// host's network the rows are not set.
func TestRunOffline(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	r := e.run(t, "", "run", "--network", "off", "--", "sh", "-c", `echo "$npm_config_offline $GOPROXY $CARGO_NET_OFFLINE"`)
	if r.code != 0 || r.stdout != "true off true\n" {
		t.Errorf("network off: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "run", "--network", "host", "--", "sh", "-c", `echo "${npm_config_offline-unset}"`)
	if r.code != 0 || r.stdout != "unset\n" {
		t.Errorf("network host: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm")
	}
	e.write(t, e.ws+"/package.json", `{"name": "offline", "version": "1.0.0"}`+"\n", 0o644)
	install := npm + " install --no-audit --no-fund --no-update-notifier sandtable-no-such-package-x1"
	r = e.run(t, "", "run", "--network", "off", "--", "sh", "-c", install)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "ENOTCACHED") {
		t.Errorf("npm offline: exit %d, want ENOTCACHED:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "run", "--network", "off", "--", "sh", "-c", "unset npm_config_offline; npm_config_fetch_retries=0 "+install)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "EAI_AGAIN") {
		t.Errorf("control: exit %d, want EAI_AGAIN:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
