package main

import (
	"slices"
	"strings"
	"testing"
)

// TestNetworkFlags checks that --network and --no-network choose the mode's
// rows, and that a bad or contradictory choice is a usage error.
func TestNetworkFlags(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args  []string
		share bool
	}{
		{nil, true},
		{[]string{"--network", "host"}, true},
		{[]string{"--network", "off"}, false},
		{[]string{"--no-network"}, false},
		{[]string{"--no-network", "--network", "off"}, false},
		{[]string{"--network", "proxy"}, true},
		{[]string{"--allow-host", "example.org:443"}, true},
	} {
		x := e.explainJSON(t, append(c.args, "--", "true")...)
		if got := slices.Contains(x.Args, "--share-net"); got != c.share {
			t.Errorf("explain %q: --share-net %v, want %v", c.args, got, c.share)
		}
		proxied := slices.Contains(x.Args, "HTTPS_PROXY")
		if want := slices.Contains(c.args, "--allow-host") || slices.Contains(c.args, "proxy"); proxied != want {
			t.Errorf("explain %q: proxy variables %v, want %v", c.args, proxied, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--network", "on"}, `--network: sandbox: network mode "on"`},
		{[]string{"--no-network", "--network", "host"}, "--no-network contradicts --network host"},
		{[]string{"--network", "host", "--allow-host", "example.org"}, "Network.Allow and Network.Private need network mode proxy, not host"},
		{[]string{"--allow-host", "*.*.org"}, `Network.Allow: "*.*.org"`},
		{[]string{"--allow-private", "*.lan"}, "a wildcard cannot reach non-public addresses"},
	} {
		r := e.run(t, "", append(append([]string{"explain"}, c.args...), "--", "true")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("explain %q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestExplainProxyNotPasteable: in mode proxy the argv's --share-net keeps
// the helper's namespace, so a pasted line would share the host's network;
// explain refuses to print one, and says so beside --rules (--json is for
// programs, which read the rows).
func TestExplainProxyNotPasteable(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "", "explain", "--network", "proxy", "--", "true")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "a pasted line would share the host's network") {
		t.Errorf("explain --network proxy: exit %d, stdout %q, stderr %q; want a refusal", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "explain", "--rules", "--network", "proxy", "--", "true")
	if r.code != 0 || !strings.Contains(r.stdout, "--share-net") || !strings.Contains(r.stderr, "run alone, its --share-net shares the host's network") {
		t.Errorf("explain --rules --network proxy: exit %d, stderr %q", r.code, r.stderr)
	}
}
