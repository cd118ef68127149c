package sandbox

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// openSockets counts this process's socket descriptors.
func openSockets() int {
	n := 0
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, _ := os.Readlink("/proc/self/fd/" + fd.Name()); strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// waitSockets waits up to 10 s for this process's sockets to number want.
func waitSockets(want int) int {
	n := openSockets()
	for end := time.Now().Add(10 * time.Second); n != want && time.Now().Before(end); n = openSockets() {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// TestNetworkProxyCommandRefused: a refusal by the proxy in Command's wrap
// helper reaches Network.Refused in the caller, as NewCmd's does, and the
// socket that carries it (both ends) is closed once the helper has ended,
// or once an exec.Cmd that never started is collected. As root and
// unprivileged.
func TestNetworkProxyCommandRefused(t *testing.T) {
	requireBwrap(t)
	s := testkit.StartNetServers(t)
	base, _, _ := fixture(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	want := "refused localhost:" + s.Port + ": not in the allowlist"
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			ws := netWrapWorkspace(t, base, u)
			var mu sync.Mutex
			var heard []string
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{
				Mode: NetworkProxy, Allow: []string{"localhost:" + s.Port2},
				Refused: func(msg string) { mu.Lock(); heard = append(heard, msg); mu.Unlock() },
			}}
			before := openSockets()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := Command(ctx, cfg, "curl", "-sS", "--max-time", "10", "--noproxy", "", "http://localhost:"+s.Port+"/")
			if err != nil {
				t.Fatal(err)
			}
			if u.cred != nil {
				c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			out, _ := c.CombinedOutput()
			if !strings.Contains(string(out), want) {
				t.Fatalf("the command did not see the refusal %q: %s", want, out)
			}
			if n := waitSockets(before); n != before {
				t.Errorf("%d sockets after the helper ended, %d before: the report socket stays open", n, before)
			}
			mu.Lock()
			got := strings.Join(heard, "\n")
			mu.Unlock()
			if !strings.Contains(got, want) {
				t.Errorf("Network.Refused heard %q, want %q", got, want)
			}
			runtime.KeepAlive(c)

			// Never started: collected, it closes both ends.
			if _, err := Command(ctx, cfg, "true"); err != nil {
				t.Fatal(err)
			}
			if n := waitSockets(before); n != before {
				t.Errorf("%d sockets after an unstarted Command was collected, %d before", n, before)
			}
		})
	}
}
