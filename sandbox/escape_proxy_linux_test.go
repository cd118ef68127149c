package sandbox

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProxyConnectionLimit: a command in mode proxy opens 32 tunnels to a
// server that floods them and reads none. Each stalled tunnel held a
// 1 MiB relay buffer in the caller's process, outside every limit of the
// sandbox. With rule limit-proxy-connections (here 8) the proxy relays 8
// and answers the rest 503; the control (ProxyConnections -1, no bound)
// shows all 32 established and the caller's heap grown by them. As root
// and unprivileged.
func TestProxyConnectionLimit(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	port := floodServer(t)
	const tunnels, bound = 32, 8
	for _, u := range escUsers(t) {
		for _, c := range []struct {
			name  string
			limit int
		}{{"bounded", bound}, {"control-unbounded", -1}} {
			t.Run(u.label+"/"+c.name, func(t *testing.T) {
				u.spawnAs(t)
				ws := mkdir(t, base, "ws-"+u.label+"-"+c.name)
				if err := os.Chown(ws, u.uid, u.gid); err != nil {
					t.Fatal(err)
				}
				var refused []string
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil,
					Limits: Limits{ProxyConnections: c.limit},
					Network: Network{Mode: NetworkProxy, Private: []string{"127.0.0.1:" + port},
						Refused: func(m string) { refused = append(refused, m) }}}
				cmd, err := NewCmd(context.Background(), cfg, "python3", "-c", proxyHoldScript(tunnels, port))
				if err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				stop := make(chan struct{})
				grown := heapPeak(stop)
				out, err := cmd.CombinedOutput()
				close(stop)
				growth := grown() >> 20
				t.Logf("%s; caller's heap grew %d MiB", strings.TrimSpace(string(out)), growth)
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if c.limit == -1 {
					if want := fmt.Sprintf("established %d refused 0\n", tunnels); string(out) != want {
						t.Fatalf("control: %q, want %q", out, want)
					}
					if growth < tunnels*3/4 {
						t.Errorf("control: the caller's heap grew %d MiB for %d stalled tunnels, want at least %d", growth, tunnels, tunnels*3/4)
					}
					return
				}
				if want := fmt.Sprintf("established %d refused %d\n", bound, tunnels-bound); string(out) != want {
					t.Errorf("bounded: %q, want %q", out, want)
				}
				if len(refused) != 1 || !strings.Contains(refused[0], "rule limit-proxy-connections") {
					t.Errorf("Refused heard %q, want one message naming the rule", refused)
				}
			})
		}
	}
}

// TestProxyConnectionLimitCommand: the bound travels in the wrap helper's
// argv (Command and Prefix), the table's default when Config.Limits has
// none, and the helper enforces it (root and unprivileged).
func TestProxyConnectionLimitCommand(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	ws := mkdir(t, base, "ws-prefix")
	w, err := Prefix(Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkProxy}})
	if err != nil {
		t.Fatal(err)
	}
	// Without a value of the caller's the argv names none, and the helper
	// takes the table's default, as a pasted line does.
	if slices.ContainsFunc(w.Args, func(a string) bool { return strings.HasPrefix(a, wrapHelperConns) }) {
		t.Errorf("Prefix's argv %q names a bound, want the table's default", w.Args)
	}
	if got := newProxyOK(t, Network{}).Stats().Max; got == 0 || got != limitTable[limitProxyConnections].value {
		t.Errorf("the proxy's default bound %d, want the table's %d", got, limitTable[limitProxyConnections].value)
	}
	if got := newProxyOK(t, Network{conns: -1}).Stats().Max; got != 0 {
		t.Errorf("ProxyConnections -1: bound %d, want none", got)
	}
	w, err = Prefix(Config{Workspace: ws, Policy: Required, Limits: Limits{ProxyConnections: -1}, Network: Network{Mode: NetworkProxy}})
	if err != nil || !slices.Contains(w.Args, wrapHelperConns+"none") {
		t.Errorf("ProxyConnections -1: Prefix's argv %q (%v), want %snone", w.Args, err, wrapHelperConns)
	}
	port := floodServer(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Limits: Limits{ProxyConnections: 3},
				Network: Network{Mode: NetworkProxy, Private: []string{"127.0.0.1:" + port}}}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c, err := Command(ctx, cfg, "python3", "-c", proxyHoldScript(5, port))
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
			if string(out) != "established 3 refused 2\n" {
				t.Errorf("through Command: %q, want 3 established and 2 refused", out)
			}
		})
	}
}

// TestProxyConnectionLimitStub: the DNS stub's route (a connection to a
// name's address, which the helper relays as name:port) counts against
// rule limit-proxy-connections like a CONNECT: 32 connections to a
// flooding server, 8 relayed and 24 refused; control without a bound, 32
// relayed. As root and unprivileged.
func TestProxyConnectionLimitStub(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	port := floodServer(t)
	stub := stubName("")
	const conns, bound = 32, 8
	for _, u := range escUsers(t) {
		for _, c := range []struct {
			name  string
			limit int
		}{{"bounded", bound}, {"control-unbounded", -1}} {
			t.Run(u.label+"/"+c.name, func(t *testing.T) {
				u.spawnAs(t)
				ws := mkdir(t, base, "ws-stub-"+u.label+"-"+c.name)
				if err := os.Chown(ws, u.uid, u.gid); err != nil {
					t.Fatal(err)
				}
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil,
					Limits:  Limits{ProxyConnections: c.limit},
					Network: Network{Mode: NetworkProxy, Private: []string{stubTestName + ":" + port}, testProxy: stub}}
				cmd, err := NewCmd(context.Background(), cfg, "python3", "-c", stubHoldScript(conns, port))
				if err != nil {
					t.Fatal(err)
				}
				if u.cred != nil {
					cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				want := fmt.Sprintf("established %d refused %d\n", bound, conns-bound)
				if c.limit == -1 {
					want = fmt.Sprintf("established %d refused 0\n", conns)
				}
				if string(out) != want {
					t.Errorf("%s: %q, want %q", c.name, out, want)
				}
			})
		}
	}
}
