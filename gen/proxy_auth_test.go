package gen

import (
	"fmt"
	"slices"
	"testing"
)

// TestSemDiffProxyAuth: a proxy-auth row removed widens (every client
// that reaches the listener may use the proxy), one added narrows, a new
// user name keeps the reach, a new platform is unclear.
func TestSemDiffProxyAuth(t *testing.T) {
	old := []ProxyAuth{{ID: "a", Platform: "darwin", User: "sandtable"}, {ID: "b", Platform: "linux", User: "x"}, {ID: "c", Platform: "darwin", User: "y"}}
	new := []ProxyAuth{{ID: "b", Platform: "linux", User: "z"}, {ID: "c", Platform: "linux", User: "y"}, {ID: "d", Platform: "darwin", User: "sandtable"}}
	var got []string
	proxyAuthDiff(func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }, old, new)
	want := []string{
		`proxy-auth "a": removed: darwin: user sandtable (widened)`,
		`proxy-auth "b": changed: linux: user x -> linux: user z (same reach)`,
		`proxy-auth "c": changed: darwin: user y -> linux: user y (effect unclear)`,
		`proxy-auth "d": added: darwin: user sandtable (narrowed)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("diff:\n%q\nwant:\n%q", got, want)
	}
}
