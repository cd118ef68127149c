package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/proxy"
	"github.com/sandtable/sandtable/internal/testkit"
)

// stubTestName stands for a remote host in the DNS stub's tests: the
// proxy resolves it to 127.0.0.1 (stubName), and the test lists it
// with its port (Network.Private), so only the stub route and the policy
// decide whether the command reaches the test's server.
const stubTestName = "stub-test.sandtable.example"

// stubName makes each proxy of the Network it is set on resolve
// stubTestName to 127.0.0.1, and dial its port 22 at sshPort instead.
func stubName(sshPort string) *proxyTest {
	return &proxyTest{config: func(c *proxy.Config) {
		c.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host == stubTestName {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == "127.0.0.1:22" && sshPort != "" {
				addr = "127.0.0.1:" + sshPort
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
	}}
}

// needTool fails (SANDTABLE_REQUIRE_BWRAP=1) or skips without tool.
func needTool(t *testing.T, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", tool, err)
		}
		t.Skipf("%s is not installed: %v", tool, err)
	}
}

// runNewCmdAs runs script through NewCmd as u and returns its output and
// what the proxy refused.
func runNewCmdAs(t *testing.T, u *escUser, ws string, n Network, script string) (string, []string) {
	t.Helper()
	// The proxy's goroutines call Refused with no ordering to Wait's return.
	var mu sync.Mutex
	var refused []string
	n.Refused = func(m string) { mu.Lock(); refused = append(refused, m); mu.Unlock() }
	cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: n}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := NewCmd(ctx, cfg, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if u.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	out, _ := c.CombinedOutput()
	mu.Lock()
	defer mu.Unlock()
	return string(out), slices.Clone(refused)
}

// TestDNSStubRoutes: in the default mode, tools that ignore the proxy
// variables reach a listed destination by name through the DNS stub
// (Node 20's fetch on its port, ssh on port 22), curl with only
// HTTPS_PROXY reaches it through the proxy, and the JVM is told the
// proxy. Each attack, the same command without the destination listed (or
// listing another one), is refused by the proxy's policy on the stub's
// route too; as root and unprivileged.
func TestDNSStubRoutes(t *testing.T) {
	requireBwrap(t)
	for _, tool := range []string{"node", "curl", "ssh"} {
		needTool(t, tool)
	}
	s := testkit.StartNetServers(t)
	sshBanner := fmt.Sprintf("SSH-2.0-sandtable%x", rand.Uint64())
	sshLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sshLn.Close() })
	go func() {
		for {
			c, err := sshLn.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, sshBanner+"\r\n")
			time.AfterFunc(2*time.Second, func() { c.Close() })
		}
	}()
	_, sshPort, _ := net.SplitHostPort(sshLn.Addr().String())
	stub := stubName(sshPort)
	base := sharedBase(t)
	dest := stubTestName + ":" + s.Port
	node := `node -e 'fetch("http://` + dest + `/").then(r => r.text()).then(t => console.log(t), e => console.log("fetch failed", e.cause && e.cause.code))'`
	curl := `env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy curl -sSkv --max-time 10 https://` + stubTestName + `:` + s.TLS + `/ 2>&1`
	ssh := `ssh -v -o BatchMode=yes -o ConnectTimeout=10 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null git@` + stubTestName + ` true 2>&1`
	attempts := []struct {
		name            string
		script, want    string
		attack, control Network // default mode: no Mode
		refused         string
	}{
		// The attack lists another name on the same port, so that the stub
		// serves it and only the policy stands in the way.
		{"node-fetch", node, s.Nonce, Network{Private: []string{"other.example:" + s.Port}}, Network{Private: []string{dest}}, "refused " + dest + ": it resolves to 127.0.0.1"},
		{"node-fetch-allowlist", node, s.Nonce, Network{Allow: []string{"other.example:" + s.Port}}, Network{Allow: []string{dest}}, "refused " + dest + ": not in the allowlist"},
		{"curl-https-proxy", curl, s.Nonce, Network{}, Network{Private: []string{stubTestName + ":" + s.TLS}}, "refused " + stubTestName + ":" + s.TLS},
		{"ssh", ssh, sshBanner[8:], Network{}, Network{Private: []string{stubTestName + ":22"}}, "refused " + stubTestName + ":22"},
	}
	for i := range attempts {
		attempts[i].attack.testProxy, attempts[i].control.testProxy = stub, stub
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					out, refused := runNewCmdAs(t, u, ws, a.attack, a.script)
					if strings.Contains(out, a.want) {
						t.Errorf("ATTACK SUCCEEDED: reached the unlisted destination: %q", out)
					}
					if !strings.Contains(strings.Join(refused, "\n"), a.refused) {
						t.Errorf("the proxy refused %q, want %q (output %q)", refused, a.refused, out)
					}
					out, _ = runNewCmdAs(t, u, ws, a.control, a.script)
					if !strings.Contains(out, a.want) {
						t.Errorf("control did not reach the listed destination, so the attack proves nothing: %q", out)
					}
					if a.name == "curl-https-proxy" && !strings.Contains(out, "CONNECT "+stubTestName+":"+s.TLS) {
						t.Errorf("curl did not use HTTPS_PROXY: %q", out)
					}
				})
			}
		})
	}
}

// TestDNSStubJVM: the JVM reads the proxy from JAVA_TOOL_OPTIONS in mode
// proxy (proxy-env), and is not told in mode host.
func TestDNSStubJVM(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("java"); err != nil {
		// CI installs no JRE for this one check of an environment variable.
		t.Skipf("java is not installed: %v", err)
	}
	_, _, ws := fixture(t)
	u := escUsers(t)[0]
	script := `java -XshowSettings:properties -version 2>&1 | grep -E '^ *https?\.(proxyHost|proxyPort|nonProxyHosts)' | tr -d ' ' | sort`
	out, _ := runNewCmdAs(t, u, ws, Network{}, script)
	want := "http.nonProxyHosts=localhost|127.0.0.1|[::1]\nhttp.proxyHost=127.0.0.1\nhttp.proxyPort=3128\nhttps.proxyHost=127.0.0.1\nhttps.proxyPort=3128\n"
	if out != want {
		t.Errorf("the JVM's proxy settings %q, want %q", out, want)
	}
	if out, _ := runNewCmdAs(t, u, ws, Network{Mode: NetworkHost}, script); strings.Contains(out, "proxyHost") {
		t.Errorf("mode host told the JVM a proxy: %q", out)
	}
}

// TestDNSStubAddrConfig: a lookup with AI_ADDRCONFIG (getent ahostsv4)
// finds the stub's answer, since lo has an address besides 127.0.0.1, as
// root and unprivileged.
func TestDNSStubAddrConfig(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			out, _ := runNewCmdAs(t, u, ws, Network{}, "getent ahostsv4 "+stubTestName+" | head -1")
			if !strings.HasPrefix(out, "127.77.") {
				t.Errorf("getent ahostsv4: %q, want the stub's 127.77.x.y", out)
			}
		})
	}
}
