package gen

import (
	"fmt"
	"slices"
	"testing"
)

// TestSemDiffProxyAuth: a proxy-auth row removed widens (every client
// that reaches the listener may use the proxy), one added narrows, a new
// user name keeps the reach, a new platform is unclear; more pending
// connections or a longer auth-timeout widens, fewer or shorter narrows.
func TestSemDiffProxyAuth(t *testing.T) {
	old := []ProxyAuth{{ID: "a", Platform: "darwin", User: "sandtable", Pending: 32, AuthSeconds: 5}, {ID: "b", Platform: "linux", User: "x", Pending: 32, AuthSeconds: 5}, {ID: "c", Platform: "darwin", User: "y", Pending: 32, AuthSeconds: 5},
		{ID: "e", Platform: "darwin", User: "y", Pending: 32, AuthSeconds: 5}, {ID: "f", Platform: "darwin", User: "y", Pending: 32, AuthSeconds: 5}}
	new := []ProxyAuth{{ID: "b", Platform: "linux", User: "z", Pending: 32, AuthSeconds: 5}, {ID: "c", Platform: "linux", User: "y", Pending: 32, AuthSeconds: 5}, {ID: "d", Platform: "darwin", User: "sandtable", Pending: 32, AuthSeconds: 5},
		{ID: "e", Platform: "darwin", User: "y", Pending: 64, AuthSeconds: 5}, {ID: "f", Platform: "darwin", User: "y", Pending: 32, AuthSeconds: 1}}
	var got []string
	proxyAuthDiff(func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }, old, new)
	want := []string{
		`proxy-auth "a": removed: darwin: user sandtable, pending 32, auth-timeout 5s (widened)`,
		`proxy-auth "b": changed: linux: user x, pending 32, auth-timeout 5s -> linux: user z, pending 32, auth-timeout 5s (same reach)`,
		`proxy-auth "c": changed: darwin: user y, pending 32, auth-timeout 5s -> linux: user y, pending 32, auth-timeout 5s (effect unclear)`,
		`proxy-auth "d": added: darwin: user sandtable, pending 32, auth-timeout 5s (narrowed)`,
		`proxy-auth "e": changed: darwin: user y, pending 32, auth-timeout 5s -> darwin: user y, pending 64, auth-timeout 5s (widened)`,
		`proxy-auth "f": changed: darwin: user y, pending 32, auth-timeout 5s -> darwin: user y, pending 32, auth-timeout 1s (narrowed)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("diff:\n%q\nwant:\n%q", got, want)
	}
}
