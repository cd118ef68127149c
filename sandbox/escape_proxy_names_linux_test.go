package sandbox

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"unicode"

	"github.com/sandtable/sandtable/internal/proxy"
)

// TestProxyForgedName: a command in mode proxy cannot put control
// characters into the caller's log through Network.Refused (what sandtable
// run prints on stderr): the proxy refuses a destination that is not a
// host name or IP address without a zone, quoted. The control (the check
// off) shows the newline and the escape sequence reaching the caller. As
// root and unprivileged; the bytes in a name, and in an IPv6 literal's
// zone.
func TestProxyForgedName(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	forms := []struct{ name, script, reason string }{
		{"name", proxyForgeScript("x.invalid"), "not a host name"},
		// netip reads anything after % as the zone, so the literal parses.
		{"zone", proxyForgeScript("fe80::1%"), "an IPv6 address with a zone"},
	}
	for _, u := range escUsers(t) {
		for _, form := range forms {
			for _, check := range []bool{true, false} {
				name := u.label + "/" + form.name + "/checked"
				if !check {
					name = u.label + "/" + form.name + "/control-unchecked"
				}
				t.Run(name, func(t *testing.T) {
					u.spawnAs(t)
					ws := mkdir(t, base, "ws-"+strings.ReplaceAll(name, "/", "-"))
					if err := os.Chown(ws, u.uid, u.gid); err != nil {
						t.Fatal(err)
					}
					// An allowlist the name is not in: its refusal repeats the
					// destination, unless the name check refuses it first.
					var refused []string
					cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkProxy,
						Allow:     []string{"*.example.org:443"},
						Refused:   func(m string) { refused = append(refused, m) },
						testProxy: &proxyTest{config: func(c *proxy.Config) { c.NoNameCheck = !check }}}}
					c, err := NewCmd(context.Background(), cfg, "python3", "-c", form.script)
					if err != nil {
						t.Fatal(err)
					}
					if u.cred != nil {
						c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
					}
					out, err := c.CombinedOutput()
					if err != nil {
						t.Fatalf("%v: %s", err, out)
					}
					ctl := strings.ContainsFunc(strings.Join(refused, ""), unicode.IsControl)
					if check {
						if string(out) != "reply 2\n" || len(refused) != 1 || ctl || !strings.Contains(refused[0], form.reason) {
							t.Errorf("checked: %q, Refused heard %q; want reply 2 (not allowed) and one quoted refusal", out, refused)
						}
						return
					}
					if len(refused) == 0 || !ctl {
						t.Errorf("control: Refused heard %q (reply %q), want the raw name with its newline", refused, out)
					}
				})
			}
		}
	}
}
