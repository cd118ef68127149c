package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestNetnsHelperRefusesHostNamespace starts the helper as a caller that
// replaced its SysProcAttr would: without the namespaces. It must refuse
// to bind its listeners and run bwrap in the caller's network namespace,
// which would be mode host in disguise.
func TestNetnsHelperRefusesHostNamespace(t *testing.T) {
	gate := &netGate{serve: func(ln net.Listener) { ln.Close() }}
	cmd := exec.Command("/bin/true")
	if _, err := gate.prepare(cmd); err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = nil // what a caller replacing it would leave
	if err := cmd.Start(); err != nil {
		gate.abort()
		t.Fatal(err)
	}
	err := gate.started()
	_ = cmd.Wait()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "caller's network namespace") {
		t.Errorf("helper in the caller's namespace: %v, want a refusal", err)
	}
}

// TestNetworkProxyNewCmd runs a command in mode proxy through the library:
// it sees only its own loopback and the proxy variables, and a refused
// destination reaches Network.Refused.
func TestNetworkProxyNewCmd(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	script := `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; echo "$HTTPS_PROXY"; id -u
exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'CONNECT 127.0.0.9:22 HTTP/1.1\r\nHost: 127.0.0.9:22\r\n\r\n' >&3 && head -1 <&3`
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := mkdir(t, base, "ws-"+u.label)
			if err := os.Chown(ws, u.uid, u.gid); err != nil {
				t.Fatal(err)
			}
			var refused []string
			// Built as root and started as the test user, whom the caches
			// made for the caller do not serve (NoCache).
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkProxy,
				Refused: func(m string) { refused = append(refused, m) }}}
			c, err := NewCmd(context.Background(), cfg, "bash", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			if u.cred != nil {
				c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			out, err := c.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := "lo\nhttp://127.0.0.1:3128\n" + strconv.Itoa(u.uid) + "\nHTTP/1.1 403 Forbidden\r\n"
			if string(out) != want {
				t.Errorf("output %q, want %q", out, want)
			}
			if len(refused) != 1 || !strings.Contains(refused[0], "refused 127.0.0.9:22: it is a loopback address") {
				t.Errorf("Refused got %q", refused)
			}
		})
	}
}
