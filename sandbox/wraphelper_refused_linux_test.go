package sandbox

import (
	"context"
	"os"
	"os/exec"
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
// helper reaches Network.Refused in the caller, as NewCmd's does. The
// socket that carries it is closed on the caller's side at the helper's
// end (the helper's end is the exec.Cmd's, in ExtraFiles); a helper killed
// before its end, and an exec.Cmd never started, have both ends closed
// once the exec.Cmd is collected. As root and unprivileged.
func TestNetworkProxyCommandRefused(t *testing.T) {
	requireBwrap(t)
	s := testkit.StartNetServers(t)
	base := sharedBase(t)
	want := "refused localhost:" + s.Port + ": not in the allowlist"
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			var mu sync.Mutex
			var heard []string
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{
				Mode: NetworkProxy, Allow: []string{"localhost:" + s.Port2},
				Refused: func(msg string) { mu.Lock(); heard = append(heard, msg); mu.Unlock() },
			}}
			command := func(ctx context.Context, args ...string) *exec.Cmd {
				c, err := Command(ctx, cfg, args[0], args[1:]...)
				if err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				return c
			}
			before := openSockets()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := command(ctx, "curl", "-sS", "--max-time", "10", "--noproxy", "", "http://localhost:"+s.Port+"/")
			out, _ := c.CombinedOutput()
			if !strings.Contains(string(out), want) {
				t.Fatalf("the command did not see the refusal %q: %s", want, out)
			}
			// The exec.Cmd still holds the helper's end: the bye closed
			// the caller's.
			if n := waitSockets(before + 1); n != before+1 {
				t.Errorf("%d sockets after the helper ended, %d before and the helper's end: the caller's end stays open", n, before)
			}
			c.ExtraFiles[len(c.ExtraFiles)-1].Close()
			if n := waitSockets(before); n != before {
				t.Errorf("%d sockets once the helper's end is closed too, %d before", n, before)
			}
			runtime.KeepAlive(c)
			mu.Lock()
			got := strings.Join(heard, "\n")
			mu.Unlock()
			if !strings.Contains(got, want) {
				t.Errorf("Network.Refused heard %q, want %q", got, want)
			}

			// Killed: no end said; collected, the exec.Cmd closes both.
			kctx, kill := context.WithCancel(ctx)
			c = command(kctx, "sleep", "30")
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			kill()
			_ = c.Wait()
			c = nil
			if n := waitSockets(before); n != before {
				t.Errorf("%d sockets after a killed Command was collected, %d before", n, before)
			}

			// Never started: likewise.
			command(ctx, "true")
			if n := waitSockets(before); n != before {
				t.Errorf("%d sockets after an unstarted Command was collected, %d before", n, before)
			}
		})
	}
}
