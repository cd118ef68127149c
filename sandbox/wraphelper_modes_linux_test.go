package sandbox

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWrapHelperModes: in modes host and off the wrap helper in front of
// Command's bwrap starts no proxy and no namespace helper: it holds no
// socket, and its child is bwrap itself. The control, mode proxy, holds
// the proxy's listeners. As root and unprivileged.
func TestWrapHelperModes(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			sockets := func(mode NetworkMode) (int, string) {
				t.Helper()
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: mode}}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				c, err := Command(ctx, cfg, "bash", "-c", "echo ready; read line")
				if err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				in, err := c.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out, err := c.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				defer c.Wait()
				defer in.Close()
				if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
					t.Fatalf("mode %v: the command did not start: %q, %v", mode, line, err)
				}
				pid := strconv.Itoa(c.Process.Pid)
				n := 0
				fds, _ := os.ReadDir("/proc/" + pid + "/fd")
				for _, fd := range fds {
					if l, _ := os.Readlink("/proc/" + pid + "/fd/" + fd.Name()); strings.HasPrefix(l, "socket:") {
						n++
					}
				}
				var kids []string // a child of any thread (mode host forks from a scoped one)
				tasks, _ := os.ReadDir("/proc/" + pid + "/task")
				for _, task := range tasks {
					b, _ := os.ReadFile("/proc/" + pid + "/task/" + task.Name() + "/children")
					kids = append(kids, strings.Fields(string(b))...)
				}
				var comms []string
				for _, k := range kids {
					b, _ := os.ReadFile("/proc/" + k + "/comm")
					comms = append(comms, strings.TrimSpace(string(b)))
				}
				return n, strings.Join(comms, " ")
			}
			for _, mode := range []NetworkMode{NetworkHost, NetworkOff} {
				if n, kids := sockets(mode); n != 0 || kids != "bwrap" {
					t.Errorf("mode %v: the helper holds %d sockets and its children are %q, want none and bwrap", mode, n, kids)
				}
			}
			if n, _ := sockets(NetworkProxy); n == 0 {
				t.Error("control: in mode proxy the helper holds no socket, so the check proves nothing")
			}
		})
	}
}
