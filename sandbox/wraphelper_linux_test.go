package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// sharedBase is a fresh fixture base that every test user can traverse.
func sharedBase(t *testing.T) string {
	t.Helper()
	base, _, _ := fixture(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

// wrapHelperWorkspace makes a workspace under base that u owns.
func wrapHelperWorkspace(t *testing.T, base string, u *escUser) string {
	t.Helper()
	ws := mkdir(t, base, "ws-"+u.label)
	if err := os.Chown(ws, u.uid, u.gid); err != nil {
		t.Fatal(err)
	}
	return ws
}

// runCommandAs runs script through Command as u, and returns its stdout
// and stderr together.
func runCommandAs(t *testing.T, u *escUser, ws string, n Network, script string) string {
	t.Helper()
	cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: n}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Command(ctx, cfg, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if u.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	c.WaitDelay = time.Second
	err = c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if c.ProcessState.ExitCode() == 125 || strings.Contains(out.String(), "bwrap: ") {
		t.Fatalf("the sandbox did not run: %s", out.String())
	}
	return out.String()
}

// TestNetworkProxyCommand runs TestNetworkProxyAttacks' attacks through
// Command, whose argv carries mode proxy in the wrap helper, as root and
// unprivileged: each fails in mode proxy, and its control (mode host, the
// destination listed, or the variable set) reaches the service.
func TestNetworkProxyCommand(t *testing.T) {
	requireBwrap(t)
	for _, tool := range []string{"curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
				t.Fatalf("needs %s", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
	s := testkit.StartNetServers(t)
	base := sharedBase(t)
	curl := "curl -sS --max-time 10 --noproxy '' "
	abstract := `python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect("\0"+sys.argv[1])
print(s.recv(100).decode())' ` + s.Abstract
	proxy := Network{Mode: NetworkProxy}
	attempts := []struct {
		name            string
		script          string
		attack, control Network
		refused         string // in the command's output
	}{
		{"abstract-unix", abstract, proxy, Network{Mode: NetworkHost, HostAbstract: true}, ""},
		{"loopback-direct", `exec 3<>/dev/tcp/127.0.0.1/` + s.Port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`,
			proxy, Network{Mode: NetworkHost}, ""},
		// The zero Network: the default mode (network-default-linux).
		{"loopback-direct-default", `exec 3<>/dev/tcp/127.0.0.1/` + s.Port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`,
			Network{}, Network{Mode: NetworkHost}, ""},
		{"abstract-unix-default", abstract, Network{}, Network{Mode: NetworkHost, HostAbstract: true}, ""},
		{"loopback-through-proxy", curl + "http://127.0.0.1:" + s.Port + "/",
			proxy, Network{Mode: NetworkProxy, Private: []string{"127.0.0.1:" + s.Port}}, "refused 127.0.0.1:" + s.Port + ": it is a loopback address"},
		{"loopback-through-socks", curl + "--proxy socks5h://127.0.0.1:1080 http://localhost:" + s.Port + "/",
			proxy, Network{Mode: NetworkProxy, Private: []string{"localhost:" + s.Port}}, ""},
		{"allowlist-unlisted-name", curl + "http://localhost:" + s.Port + "/",
			Network{Mode: NetworkProxy, Allow: []string{"localhost:" + s.Port2}}, Network{Mode: NetworkProxy, Allow: []string{"localhost:" + s.Port}},
			"refused localhost:" + s.Port + ": not in the allowlist"},
		{"allowlist-ip-literal", curl + "http://127.0.0.1:" + s.Port + "/",
			Network{Mode: NetworkProxy, Allow: []string{"localhost:" + s.Port}}, Network{Mode: NetworkProxy, Allow: []string{"127.0.0.1:" + s.Port}},
			"refused 127.0.0.1:" + s.Port + ": not in the allowlist"},
		{"https-proxy-variable",
			// The attack has no proxy variable: nothing gets out.
			`env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy -u NO_PROXY -u no_proxy -u HTTPS_PROXY -u https_proxy curl -sSk --max-time 10 https://localhost:` + s.TLS + `/`,
			Network{Mode: NetworkProxy, Private: []string{"localhost:" + s.TLS}}, Network{}, ""},
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					out := runCommandAs(t, u, ws, a.attack, a.script)
					if strings.Contains(out, s.Nonce) {
						t.Errorf("ATTACK SUCCEEDED: reached the host's service: %q", out)
					}
					if a.refused != "" && !strings.Contains(out, a.refused) {
						t.Errorf("output lacks %q: %q", a.refused, out)
					}
					control, script := a.control, a.script
					if a.name == "https-proxy-variable" {
						control, script = a.attack, strings.Replace(script, "-u HTTPS_PROXY -u https_proxy ", "", 1)
					}
					if c := runCommandAs(t, u, ws, control, script); !strings.Contains(c, s.Nonce) {
						t.Errorf("control did not reach the service, so the attack proves nothing: %q", c)
					}
				})
			}
		})
	}
}

// TestNetworkProxyCommandLife: the wrapped Command ends as its command
// ends, with its status; a caller's signal reaches bwrap; a descriptor the
// caller appends to ExtraFiles reaches the command; and killing the helper
// (a context's end) takes the sandbox with it.
func TestNetworkProxyCommandLife(t *testing.T) {
	requireBwrap(t)
	_, _, ws := fixture(t)
	cfg := Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkProxy}}

	t.Run("status-and-files", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		c, err := Command(context.Background(), cfg, "bash", "-c", "echo through >&$0; exit 7")
		if err != nil {
			t.Fatal(err)
		}
		if c.Path != wrapHelperExe {
			t.Fatalf("Command's program is %s, want the wrap helper %s", c.Path, wrapHelperExe)
		}
		c.Args = append(c.Args, strconv.Itoa(3+len(c.ExtraFiles))) // $0 of the script
		c.ExtraFiles = append(c.ExtraFiles, pw)
		err = c.Run()
		pw.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 7 {
			t.Errorf("exit: %v, want status 7", err)
		}
		buf := make([]byte, 64)
		n, _ := pr.Read(buf)
		if string(buf[:n]) != "through\n" {
			t.Errorf("the appended descriptor carried %q, want %q", buf[:n], "through\n")
		}
	})

	t.Run("signal", func(t *testing.T) {
		c, err := Command(context.Background(), cfg, "sleep", "60")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the helper installs its handlers before bwrap starts
		_ = c.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = c.Process.Kill()
			t.Fatal("SIGTERM did not end the wrapped command")
		}
		ws, _ := c.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("status %v, want killed by SIGTERM", c.ProcessState)
		}
	})

	t.Run("context-kills-sandbox", func(t *testing.T) {
		mark := fmt.Sprintf("%d.%d", 1000+rand.IntN(1000), rand.IntN(1000000))
		ctx, cancel := context.WithCancel(context.Background())
		c, err := Command(ctx, cfg, "sleep", mark)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !sleepRunning(mark) {
			if time.Now().After(deadline) {
				cancel()
				_ = c.Wait()
				t.Fatal("the sandboxed sleep never started")
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		_ = c.Wait()
		deadline = time.Now().Add(10 * time.Second)
		for sleepRunning(mark) {
			if time.Now().After(deadline) {
				t.Fatal("the sandboxed sleep outlived the killed wrap helper")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// sleepRunning reports whether a process runs `sleep mark`.
func sleepRunning(mark string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(b) == "sleep\x00"+mark+"\x00" {
			return true
		}
	}
	return false
}

// TestNetworkProxyPrefix runs Prefix's wrapper in mode proxy as a caller
// would: only its own loopback, and the proxy refuses the host's.
func TestNetworkProxyPrefix(t *testing.T) {
	requireBwrap(t)
	_, _, ws := fixture(t)
	s := testkit.StartNetServers(t)
	w, err := Prefix(Config{Workspace: ws, Policy: Required, Network: Network{Mode: NetworkProxy}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Program != wrapHelperExe {
		t.Fatalf("Prefix's program is %s, want %s", w.Program, wrapHelperExe)
	}
	fds, owned, err := openFiles(w.Files)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(owned)
	script := `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; curl -s --noproxy '' --max-time 10 -o /dev/null -w '%{http_code}\n' http://127.0.0.1:` + s.Port + `/`
	c := exec.Command(w.Program, append(w.Args, "bash", "-c", script)...)
	c.Env = setEnv(os.Environ(), w.Env)
	c.ExtraFiles = fds
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if string(out) != "lo\n403\n" {
		t.Errorf("output %q, want only lo and the proxy's 403", out)
	}
}
