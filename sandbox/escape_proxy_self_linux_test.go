package sandbox

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
	"github.com/sandtable/sandtable/internal/testkit"
)

// TestProxyOwnAddress: the host's services listening on every address
// (0.0.0.0) are reachable through the host's own interface address when
// that address is public, or in a range the proxy leaves open: the proxy,
// in the caller's namespace, delivers it through the loopback. In a
// network namespace the test makes, a service on 0.0.0.0 and an interface
// holding 198.51.100.7: the command in mode proxy (through Command, whose
// wrap helper serves the proxy there) is refused, as root and
// unprivileged. Controls: the service answers a direct connection to the
// address outside the sandbox, and the proxy reaches it with
// the own-address check off (proxy.Config.NoOwnAddrCheck).
func TestProxyOwnAddress(t *testing.T) {
	requireBwrap(t)
	if os.Geteuid() != 0 {
		t.Skip("the test's network namespace needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command to set the test's namespace up")
	}
	base := sharedBase(t)
	nonce := fmt.Sprintf("host-service-%x", rand.Uint64())
	inSelfNetns(t, func() {
		ln, err := net.Listen("tcp4", "0.0.0.0:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		testkit.ServeLine(ln, nonce)
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		addr := net.JoinHostPort(selfAddr, port)

		// Control, outside the sandbox: the address is this host's.
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("control: direct %s: %v", addr, err)
		}
		b, _ := io.ReadAll(c)
		c.Close()
		if !strings.Contains(string(b), nonce) {
			t.Fatalf("control: direct %s read %q", addr, b)
		}
		// Control, without the check: the proxy reaches it.
		unchecked := newProxyOK(t, Network{testProxy: &proxyTest{config: func(c *proxy.Config) { c.NoOwnAddrCheck = true }}})
		up, err := unchecked.Connect(context.Background(), selfAddr, ln.Addr().(*net.TCPAddr).Port)
		if err != nil {
			t.Fatalf("control: the proxy without the own-address check: %v", err)
		}
		up.Close()
		if _, err := newProxyOK(t, Network{}).Connect(context.Background(), selfAddr, ln.Addr().(*net.TCPAddr).Port); err == nil || !strings.Contains(err.Error(), "an address of this host") {
			t.Errorf("the proxy with the own-address check: %v, want a refusal", err)
		}

		for _, u := range escUsers(t) {
			u.spawnAs(t) // the unprivileged user comes last
			ws := wrapHelperWorkspace(t, base, u)
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkProxy}}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			cmd, err := Command(ctx, cfg, "python3", "-c", proxySelfScript(port))
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			out, err := cmd.CombinedOutput() // started from this thread: the helper is in the namespace
			cancel()
			if err != nil {
				t.Fatalf("%s: %v: %s", u.label, err, out)
			}
			if strings.Contains(string(out), nonce) || !strings.Contains(string(out), "403") || !strings.Contains(string(out), "an address of this host") {
				t.Errorf("%s: the command through the proxy got %q, want a 403 naming the host's own address", u.label, out)
			}
		}
	})
}
