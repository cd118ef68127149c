package sandbox

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// withoutDNSStub leaves the dns-stub row out of a NewCmd's spawn: Start
// builds bwrap's argv anew from the plan, whose resolv.conf descriptor is
// the row's condition. The descriptor itself stays, as the escape suite's
// controls leave a dropped rule's files, and the stub is still served.
func withoutDNSStub(t *testing.T, c *Cmd) {
	t.Helper()
	if c.checked == nil || c.checked.plan.resolvFD == "" || !slices.ContainsFunc(linuxSteps(c.checked.plan), func(s Step) bool { return s.Rule == "dns-stub" }) {
		t.Fatal("the spawn has no dns-stub step to leave out")
	}
	c.checked.plan.resolvFD = ""
	if slices.ContainsFunc(linuxSteps(c.checked.plan), func(s Step) bool { return s.Rule == "dns-stub" }) {
		t.Fatal("the dns-stub step is still there")
	}
}

// TestDNSStubNodeNeedsStub is the dns-stub row's control for Node 20's
// fetch, which reads no proxy variable: with the destination listed, its
// fetch by name reaches the test's server with the row (as in
// TestDNSStubRoutes' node-fetch control), and the same run with the row's
// condition false, so that bwrap's argv lacks it, fails, its resolv.conf the host's; as
// root and unprivileged.
func TestDNSStubNodeNeedsStub(t *testing.T) {
	requireBwrap(t)
	needTool(t, "node")
	if b, err := os.ReadFile("/etc/resolv.conf"); err == nil && regexp.MustCompile(`(?m)^\s*nameserver\s+127\.0\.0\.1\s*$`).Match(b) {
		t.Skip("the host's resolv.conf names 127.0.0.1, where the stub listens in the sandbox: without the row it is asked all the same")
	}
	s := testkit.StartNetServers(t)
	stub := stubName("")
	base := sharedBase(t)
	dest := stubTestName + ":" + s.Port
	script := `if grep -q '^nameserver 127\.0\.0\.1$' /etc/resolv.conf; then echo resolv=stub; else echo resolv=host; fi
node -e 'fetch("http://` + dest + `/").then(r => r.text()).then(t => console.log(t), e => console.log("fetch failed", e.cause && e.cause.code))'`
	run := func(t *testing.T, u *escUser, ws string, dropStub bool) string {
		t.Helper()
		cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Private: []string{dest}, testProxy: stub}}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := NewCmd(ctx, cfg, "bash", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		if dropStub {
			withoutDNSStub(t, c)
		}
		if u.cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
		}
		out, _ := c.CombinedOutput()
		return string(out)
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			out := run(t, u, ws, false)
			if !strings.Contains(out, "resolv=stub") || !strings.Contains(out, s.Nonce) {
				t.Errorf("with the dns-stub row, Node's fetch of %s: %q, want the server's answer", dest, out)
			}
			out = run(t, u, ws, true)
			if !strings.Contains(out, "resolv=host") {
				t.Fatalf("the control still has the stub's resolv.conf, so it proves nothing: %q", out)
			}
			t.Logf("without the dns-stub row: %q", out)
			if strings.Contains(out, s.Nonce) || !strings.Contains(out, "fetch failed") {
				t.Errorf("without the dns-stub row, Node's fetch of %s: %q, want it to fail", dest, out)
			}
		})
	}
}
