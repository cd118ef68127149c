package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// hostClient runs argv on the host, outside any sandbox, as u, with only
// env and a PATH, and returns its stdout and stderr together.
func hostClient(t *testing.T, u *escUser, env []string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	home, err := os.MkdirTemp("", "sandtable-client-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	if err := os.Chown(home, u.uid, u.gid); err != nil {
		t.Fatal(err)
	}
	c.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}, env...)
	c.Dir = home
	if u.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	out, _ := c.CombinedOutput()
	return string(out)
}

// withoutNoProxy is the proxy variables without NO_PROXY, whose
// 127.0.0.1 would send a client straight to the tests' servers.
func withoutNoProxy(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(strings.ToUpper(kv), "NO_PROXY=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestProxyAuthAttack: a macOS run's proxy listens on the host's
// loopback, where every local process reaches it. A second local client
// outside the sandbox, which does not know the run's token (curl as root
// and as the unprivileged user, by HTTP forwarding, CONNECT and SOCKS5,
// without a credential or with a guessed one), tries to use a live run's
// proxy to reach the 127.0.0.1 server the run lists: refused with the
// proxy-auth row, through without it (the control). The run's own client,
// with the proxy variables the command gets, goes through with the row.
func TestProxyAuthAttack(t *testing.T) {
	needTool(t, "curl")
	s := testkit.StartNetServers(t)
	dest, destTLS := "127.0.0.1:"+s.Port, "127.0.0.1:"+s.TLS
	guess := strings.Repeat("0", 32)
	attacks := func(port string) map[string][]string {
		proxy := "127.0.0.1:" + port
		return map[string][]string{
			"http-forward":   {"-x", "http://" + proxy, "http://" + dest + "/"},
			"connect-https":  {"-k", "-x", "http://" + proxy, "https://" + destTLS + "/"},
			"connect-tunnel": {"-p", "-x", "http://" + proxy, "http://" + dest + "/"},
			"socks5":         {"-x", "socks5h://" + proxy, "http://" + dest + "/"},
			"guessed-token":  {"-x", "http://sandtable:" + guess + "@" + proxy, "http://" + dest + "/"},
			"guessed-socks":  {"-x", "socks5h://sandtable:" + guess + "@" + proxy, "http://" + dest + "/"},
		}
	}
	curl := func(args []string) []string {
		return append([]string{"curl", "-sS", "--max-time", "10", "--noproxy", ""}, args...)
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			p, refused := macProxyRun(t, dest, destTLS)
			for name, args := range attacks(p.proxyPort) {
				if out := hostClient(t, u, nil, curl(args)...); strings.Contains(out, s.Nonce) {
					t.Errorf("ATTACK SUCCEEDED: %s: a client without the run's token used its proxy: %q", name, out)
				}
			}
			needCred(t, p)
			if len(*refused) == 0 || strings.Contains(strings.Join(*refused, "\n"), p.proxyCred.Token()) {
				t.Errorf("Network.Refused heard %q, want the refusal without the token", *refused)
			}
			// The run's own client: the variables the command gets.
			env := withoutNoProxy(proxyEnv(p))
			for _, c := range []struct {
				name string
				env  []string
				url  string
			}{
				{"http_proxy", env, "http://" + dest + "/"},
				{"HTTPS_PROXY", env, "https://" + destTLS + "/"},
				{"ALL_PROXY", []string{"ALL_PROXY=" + envValue(env, "ALL_PROXY")}, "http://" + dest + "/"},
			} {
				if out := hostClient(t, u, c.env, "curl", "-sSk", "--max-time", "10", c.url); !strings.Contains(out, s.Nonce) {
					t.Errorf("the run's own curl through %s did not get through: %q", c.name, out)
				}
			}
			// Control: the same attacks with the row left out reach the server.
			t.Run("control", func(t *testing.T) {
				withoutProxyAuth(t, "darwin")
				p, _ := macProxyRun(t, dest, destTLS)
				if p.proxyCred != nil {
					t.Fatal("a credential without the row")
				}
				for name, args := range attacks(p.proxyPort) {
					if out := hostClient(t, u, nil, curl(args)...); !strings.Contains(out, s.Nonce) {
						t.Errorf("control %s did not reach the server without the row, so the attack proves nothing: %q", name, out)
					}
				}
			})
		})
	}
}

// gitRefsServer answers a dumb-HTTP git client's info/refs with one ref
// named after nonce, so that git ls-remote prints it.
func gitRefsServer(t *testing.T, nonce string, tlsToo bool) string {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/info/refs") {
			fmt.Fprintf(w, "0123456789abcdef0123456789abcdef01234567\trefs/heads/%s\n", nonce)
			return
		}
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(h)
	if tlsToo {
		srv.Close()
		srv = httptest.NewTLSServer(h)
	}
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestProxyAuthToolClients: the proxy variables a macOS spawn's command
// gets carry the credential in the form the common clients read: curl,
// git (which asks without it first and answers the 407), Python's urllib,
// pip's requests, and npm, each through HTTP_PROXY/http_proxy, and those
// that make TLS through HTTPS_PROXY's CONNECT. (Node 20's fetch reads no
// proxy variable; Go's net/http is TestProxyAuthClients.) Run here,
// outside a sandbox, as root.
func TestProxyAuthToolClients(t *testing.T) {
	s := testkit.StartNetServers(t)
	nonce := "refs-" + s.Nonce
	gitDest := gitRefsServer(t, nonce, false)
	gitTLS := gitRefsServer(t, nonce, true)
	npmDest := strings.TrimPrefix(startPingServer(t), "http://")
	dest, destTLS := "127.0.0.1:"+s.Port, "127.0.0.1:"+s.TLS
	p, _ := macProxyRun(t, dest, destTLS, gitDest, gitTLS, npmDest)
	needCred(t, p)
	env := withoutNoProxy(proxyEnv(p))
	u := escUsers(t)[0]
	py := `import sys, ssl, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10, context=ssl._create_unverified_context()).read().decode())`
	pipReq := `import sys, warnings; warnings.simplefilter("ignore")
from pip._vendor import requests
print(requests.get(sys.argv[1], timeout=10, verify=False).text)`
	for _, c := range []struct {
		tool string // needed; pip and npm, which CI does not install, skip when missing
		argv []string
		want string
	}{
		{"curl", []string{"curl", "-sS", "--max-time", "10", "http://" + dest + "/"}, s.Nonce},
		{"curl", []string{"curl", "-sSk", "--max-time", "10", "https://" + destTLS + "/"}, s.Nonce},
		{"git", []string{"git", "ls-remote", "http://" + gitDest + "/r.git"}, nonce},
		{"git", []string{"env", "GIT_SSL_NO_VERIFY=1", "git", "ls-remote", "https://" + gitTLS + "/r.git"}, nonce},
		{"python3", []string{"python3", "-c", py, "http://" + dest + "/"}, s.Nonce},
		{"python3", []string{"python3", "-c", py, "https://" + destTLS + "/"}, s.Nonce},
		{"pip", []string{"python3", "-c", pipReq, "http://" + dest + "/"}, s.Nonce},
		{"pip", []string{"python3", "-c", pipReq, "https://" + destTLS + "/"}, s.Nonce},
		{"npm", []string{"npm", "ping", "--registry", "http://" + npmDest + "/", "--fetch-retries", "0"}, "PONG"},
	} {
		scheme, _, _ := strings.Cut(c.argv[len(c.argv)-1], ":")
		if c.tool == "npm" {
			scheme = "http"
		}
		t.Run(c.tool+"-"+scheme, func(t *testing.T) {
			switch c.tool {
			case "pip":
				if err := exec.Command("python3", "-c", "import pip._vendor.requests").Run(); err != nil {
					t.Skipf("python3 has no pip: %v", err)
				}
			case "npm":
				if _, err := exec.LookPath("npm"); err != nil {
					t.Skipf("npm is not installed: %v", err)
				}
			default:
				needTool(t, c.tool)
			}
			out := hostClient(t, u, env, c.argv...)
			if !strings.Contains(out, c.want) {
				t.Errorf("%q through the proxy variables: %q, want %q", c.argv, out, c.want)
			}
			// Control: the same client with the credential taken out of
			// the variables is refused, so it went through the proxy.
			bare := strings.ReplaceAll(strings.Join(env, "\n"), p.proxyCred.Userinfo(), "")
			if out := hostClient(t, u, strings.Split(bare, "\n"), c.argv...); strings.Contains(out, c.want) {
				t.Errorf("%q got through without the credential, so it did not use the proxy: %q", c.argv, out)
			}
		})
	}
}

// startPingServer answers npm ping.
func startPingServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "{}")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestProxyListenersPrivate is why Linux has no proxy-auth row: while a
// run in mode proxy lasts, its command reaches the proxy's listeners
// (127.0.0.1:3128 and 1080 in its own network namespace), and a process
// outside the sandbox, root or the unprivileged user, at the same
// addresses does not: the listeners are not in the host's namespace, and
// the caller holds them through a socketpair, which has no address.
func TestProxyListenersPrivate(t *testing.T) {
	requireBwrap(t)
	needTool(t, "curl")
	s := testkit.StartNetServers(t)
	dest := "127.0.0.1:" + s.Port
	base := sharedBase(t)
	users := escUsers(t)
	for _, u := range users {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkProxy, Private: []string{dest}}}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			script := `curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 http://` + dest + `/; curl -sS --max-time 10 --noproxy '' -x socks5h://127.0.0.1:1080 http://` + dest + `/; echo ready; read line`
			c, err := NewCmd(ctx, cfg, "bash", "-c", script)
			if err != nil {
				t.Fatal(err)
			}
			if u.cred != nil {
				c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			stdin, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			c.Stderr = os.Stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			var inside strings.Builder
			br := bufio.NewReader(stdout)
			for {
				l, err := br.ReadString('\n')
				inside.WriteString(l)
				if err != nil || l == "ready\n" {
					break
				}
			}
			if n := strings.Count(inside.String(), s.Nonce); n != 2 {
				t.Errorf("the command reached the server through its listeners %d times, want 2 (HTTP and SOCKS5): %q", n, inside.String())
			}
			// The run is live: its command waits on its stdin.
			for _, out := range users {
				for _, proxy := range []string{"http://127.0.0.1:3128", "socks5h://127.0.0.1:1080"} {
					got := hostClient(t, out, nil, "curl", "-sS", "--max-time", "5", "--noproxy", "", "-x", proxy, "http://"+dest+"/")
					if strings.Contains(got, s.Nonce) {
						t.Errorf("ATTACK SUCCEEDED: %s outside the sandbox used the run's listener %s: %q", out.label, proxy, got)
					}
				}
			}
			io.WriteString(stdin, "done\n")
			stdin.Close()
			io.Copy(io.Discard, br)
			if err := c.Wait(); err != nil {
				t.Errorf("the run: %v", err)
			}
		})
	}
}
