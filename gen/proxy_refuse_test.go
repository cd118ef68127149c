package gen

import (
	"fmt"
	"slices"
	"testing"
)

// TestSemDiffProxyRefuse: a refused range removed or made smaller widens
// what the command reaches; one added or made larger narrows it.
func TestSemDiffProxyRefuse(t *testing.T) {
	old := []ProxyRefuse{{ID: "a", CIDR: "10.0.0.0/8"}, {ID: "b", CIDR: "100.64.0.0/10"}, {ID: "c", CIDR: "fc00::/7"}, {ID: "d", CIDR: "198.18.0.0/15"}}
	new := []ProxyRefuse{{ID: "b", CIDR: "100.64.0.0/12"}, {ID: "c", CIDR: "fc00::/6"}, {ID: "d", CIDR: "198.51.100.0/24"}, {ID: "e", CIDR: "127.0.0.0/8"}}
	var got []string
	proxyRefuseDiff(func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }, old, new)
	want := []string{
		`proxy-refuse "a": removed: 10.0.0.0/8 (widened)`,
		`proxy-refuse "b": changed: 100.64.0.0/10 -> 100.64.0.0/12 (widened)`,
		`proxy-refuse "c": changed: fc00::/7 -> fc00::/6 (narrowed)`,
		`proxy-refuse "d": changed: 198.18.0.0/15 -> 198.51.100.0/24 (widened and narrowed)`,
		`proxy-refuse "e": added: 127.0.0.0/8 (narrowed)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("diff:\n%q\nwant\n%q", got, want)
	}
}
