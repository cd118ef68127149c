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
	} {
		x := e.explainJSON(t, append(c.args, "--", "true")...)
		if got := slices.Contains(x.Args, "--share-net"); got != c.share {
			t.Errorf("explain %q: --share-net %v, want %v", c.args, got, c.share)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--network", "on"}, `--network: sandbox: network mode "on"`},
		{[]string{"--no-network", "--network", "host"}, "--no-network contradicts --network host"},
	} {
		r := e.run(t, "", append(append([]string{"explain"}, c.args...), "--", "true")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("explain %q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
