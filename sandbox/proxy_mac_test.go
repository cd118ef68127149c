package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
)

// TestMacProxyServe runs a macOS spawn's proxy here, where its code is
// the same: the plan's listener on 127.0.0.1 serves the Linux proxy, with
// its refusals (a loopback server is refused unless listed) and its
// grants (listed, it answers), and once stopped the port is closed. The
// client presents the spawn's credential, as the proxy variables do.
func TestMacProxyServe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	defer srv.Close()
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	get := func(port string, cred *proxy.Cred) (int, string) {
		pu := &url.URL{Scheme: "http", Host: "127.0.0.1:" + port}
		if cred != nil {
			pu.User = url.UserPassword(cred.User(), cred.Token())
		}
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
		resp, err := c.Get(srv.URL)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, listed := range []bool{false, true} {
		p := &plan{network: true, netProxy: true, net: Network{Mode: NetworkProxy}}
		if listed {
			p.net.Private = []string{hostPort}
		}
		if err := attachProxyPort(p, true); err != nil {
			t.Fatal(err)
		}
		stop, err := serveMacProxy(p)
		if err != nil {
			t.Fatal(err)
		}
		code, body := get(p.proxyPort, p.proxyCred)
		if listed && (code != 200 || body != "hello") {
			t.Errorf("listed: %d %q, want 200 hello", code, body)
		}
		if !listed && (code != 403 || !strings.Contains(body, "refused "+hostPort)) {
			t.Errorf("unlisted: %d %q, want 403 refusing %s", code, body, hostPort)
		}
		stop()
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+p.proxyPort, time.Second); err == nil {
			c.Close()
			t.Errorf("the proxy's port %s still accepts after stop", p.proxyPort)
		}
	}
}

// TestMacProxyEnv: a macOS spawn in mode proxy gets every variable of the
// proxy-env row, each naming the one port its proxy listens on; rendered
// without a spawn, the Linux HTTP port stands in; other modes get none.
func TestMacProxyEnv(t *testing.T) {
	p := &plan{network: true, netProxy: true, proxyPort: "49152"}
	env := proxyEnv(p)
	for _, want := range []string{"HTTP_PROXY=http://127.0.0.1:49152", "https_proxy=http://127.0.0.1:49152", "ALL_PROXY=socks5h://127.0.0.1:49152", "NODE_USE_ENV_PROXY=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %q", env, want)
		}
	}
	if len(env) != len(proxyEnvRow()) || len(env) < 9 {
		t.Errorf("%d variables, want the proxy-env row's %d", len(env), len(proxyEnvRow()))
	}
	for _, kv := range env {
		if strings.Contains(kv, "3128") || strings.Contains(kv, "1080") {
			t.Errorf("%s names a Linux listener's port", kv)
		}
	}
	if env := proxyEnv(&plan{network: true, netHost: true, proxyPort: "49152"}); env != nil {
		t.Errorf("mode host: %q, want none", env)
	}
	ws := t.TempDir()
	w, err := PrefixFor("darwin", Config{Workspace: ws, Network: Network{Mode: NetworkProxy}, Policy: Required})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Profile, `(allow network-outbound (remote ip "localhost:3128"))`) || strings.Contains(w.Profile, `(remote ip "*:*")`) {
		t.Errorf("rendered profile in mode proxy:\n%s", w.Profile)
	}
	if !slices.Contains(w.Env, "HTTPS_PROXY=http://127.0.0.1:3128") {
		t.Errorf("rendered env %q lacks the proxy's", w.Env)
	}
}

// TestMacProxyRefused: Command and Prefix, which return before the
// command runs, cannot carry a macOS spawn's proxy: the listener is
// closed and the refusal is ErrBadPolicy.
func TestMacProxyRefused(t *testing.T) {
	p := &plan{network: true, netProxy: true}
	if err := attachProxyPort(p, true); err != nil {
		t.Fatal(err)
	}
	port := p.proxyPort
	if err := refuseMacProxy(p, "Command"); !errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), "NewCmd") {
		t.Errorf("refusal %v, want ErrBadPolicy naming NewCmd", err)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Errorf("the refused spawn's port %s still accepts", port)
	}
	if err := refuseMacProxy(&plan{network: true, netHost: true}, "Command"); err != nil {
		t.Errorf("mode host: %v, want nil", err)
	}
}
