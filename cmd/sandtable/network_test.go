package main

import (
	"os/exec"
	"runtime"
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
		// No flag: the default mode, proxy on Linux.
		if want := slices.Contains(c.args, "--allow-host") || slices.Contains(c.args, "proxy") || c.args == nil && runtime.GOOS == "linux"; proxied != want {
			t.Errorf("explain %q: proxy variables %v, want %v", c.args, proxied, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--network", "on"}, `sandtable explain: --network "on": want off, proxy or host`},
		{[]string{"--network", ""}, `sandtable explain: --network "": want off, proxy or host`},
		{[]string{"--no-network", "--network", "host"}, "sandtable explain: --no-network contradicts --network host"},
		// Each names the flags given, and no field of the library.
		{[]string{"--network", "host", "--allow-host", "example.org"}, "sandtable explain: --allow-host is for --network proxy, not --network host"},
		{[]string{"--no-network", "--allow-host", "example.org"}, "sandtable explain: --allow-host is for --network proxy, not --no-network"},
		{[]string{"--network", "off", "--allow-private", "db.lan"}, "sandtable explain: --allow-private is for --network proxy, not --network off"},
		{[]string{"--network", "off", "--host-abstract"}, "sandtable explain: --host-abstract is for --network host, not --network off"},
		{[]string{"--allow-host", "*.*.org"}, "sandtable explain: --allow-host *.*.org: want NAME[:PORT], *.NAME[:PORT] or IP[:PORT]"},
		{[]string{"--allow-private", "*.lan"}, "sandtable explain: --allow-private *.lan: a wildcard cannot reach non-public addresses"},
		// A URL: its host and port, or what to write instead.
		{[]string{"--allow-host", "https://pypi.org/simple"}, "sandtable explain: --allow-host https://pypi.org/simple: the proxy allows a host and port, not a path: it lets all of pypi.org:443 through (want pypi.org:443)"},
		{[]string{"--allow-host", "https://u:pw@registry.example/"}, "(want registry.example:443)"},
		{[]string{"--allow-host", "gopher://x.org/"}, "(want x.org:PORT)"},
	} {
		r := e.run(t, "", append(append([]string{"explain"}, c.args...), "--", "true")...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "sandtable explain: ") || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 ||
			strings.Contains(r.stderr, "Network.") {
			t.Errorf("explain %q: exit %d, stderr %q; want 2 and one line with %q, naming no library field", c.args, r.code, r.stderr, c.want)
		}
	}
	// A URL as npm config get registry prints it is its host and port.
	for in, want := range map[string]string{"https://registry.npmjs.org/": "allow=registry.npmjs.org:443", "http://mirror.example:8080": "allow=mirror.example:8080", "HTTPS://Pkgs.Example": "allow=Pkgs.Example:443"} {
		r := e.run(t, "", "explain", "--allow-host", in, "--", "true")
		if r.code != 0 || !slices.Contains(strings.Fields(r.stdout), want) {
			t.Errorf("explain --allow-host %s: exit %d, stdout %q, stderr %q; want %s in the helper's words", in, r.code, r.stdout, r.stderr, want)
		}
	}
}

// TestExplainProxyPasteable: in mode proxy (the default on Linux) the
// argv's --share-net keeps the helper's namespace, so run alone it would
// share the host's network. explain's line runs it through sandtable
// itself as the helper: pasted, the command sees only its own loopback and
// the proxy. Beside --rules it says so (--json is for programs, which read
// the rows).
func TestExplainProxyPasteable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mode proxy is Linux's")
	}
	requireBwrap(t)
	e := newEnv(t)
	for _, args := range [][]string{{"--network", "proxy"}, nil} {
		r := e.run(t, "", append(append([]string{"explain"}, args...), "--", "sh", "-c", `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; echo "$HTTPS_PROXY"`)...)
		if r.code != 0 || !strings.Contains(r.stdout, bin+" -sandtable-network-proxy-helper -- ") {
			t.Fatalf("explain %q: exit %d, stdout %q, stderr %q; want the line through sandtable", args, r.code, r.stdout, r.stderr)
		}
		sh := exec.Command("bash")
		sh.Stdin = strings.NewReader(r.stdout)
		sh.Dir, sh.Env = e.ws, e.environ()
		out, err := sh.CombinedOutput()
		if err != nil || string(out) != "lo\nhttp://127.0.0.1:3128\n" {
			t.Errorf("the pasted line of explain %q: %v, %q; want only lo and the proxy", args, err, out)
		}
	}
	r := e.run(t, "", "explain", "--rules", "--network", "proxy", "--", "true")
	if r.code != 0 || !strings.Contains(r.stdout, "--share-net") || !strings.Contains(r.stderr, "run alone, its --share-net shares the host's network") {
		t.Errorf("explain --rules --network proxy: exit %d, stderr %q", r.code, r.stderr)
	}
}
