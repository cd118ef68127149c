package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestNetworkHostAbstractScope: in mode host, a listener on a host abstract
// unix socket answers outside the sandbox and not inside, where the kernel
// has Landlock's scope; the control, HostAbstract, reaches it from the
// same sandbox. As root and unprivileged.
func TestNetworkHostAbstractScope(t *testing.T) {
	requireBwrap(t)
	if landlockABI() < 6 {
		t.Skipf("Landlock ABI %d has no abstract-unix-socket scope (needs 6, Linux 6.12)", landlockABI())
	}
	base := sharedBase(t)
	nonce := fmt.Sprintf("reached-%x", rand.Uint64())
	name := fmt.Sprintf("sandtable-scope-%x", rand.Uint64())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	testkit.ServeLine(ln, nonce)
	script := `python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect("\0"+sys.argv[1])
print(s.recv(100).decode())' ` + name
	if out, _ := outside(t, script); !strings.Contains(out, nonce) {
		t.Fatalf("the listener does not answer outside: %s", out)
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := mkdir(t, base, "ws-"+u.label)
			if err := os.Chown(ws, u.uid, u.gid); err != nil {
				t.Fatal(err)
			}
			run := func(hostAbstract bool) string {
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil,
					Network: Network{Mode: NetworkHost, HostAbstract: hostAbstract}}
				c, err := NewCmd(context.Background(), cfg, "bash", "-c", script)
				if err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				out, _ := c.CombinedOutput()
				return string(out)
			}
			if out := run(false); strings.Contains(out, nonce) || !strings.Contains(out, "PermissionError") {
				t.Errorf("ATTACK SUCCEEDED or failed otherwise: mode host reached the host's abstract socket: %s", out)
			}
			if out := run(true); !strings.Contains(out, nonce) {
				t.Errorf("control: with HostAbstract the same sandbox does not reach it, so the attack proves nothing: %s", out)
			}
		})
	}
}
