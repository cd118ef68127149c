package sandbox

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/envval"
)

// macProxyRun starts what a macOS spawn in mode proxy serves while its
// command runs: the plan's listener, its credential and the proxy, with
// dests listed as Network.Private. It stops when the test ends.
func macProxyRun(t *testing.T, dests ...string) (*plan, *[]string) {
	t.Helper()
	var mu sync.Mutex
	refused := &[]string{}
	p := serveMacPlan(t, Network{Mode: NetworkProxy, Private: dests, Refused: func(m string) {
		mu.Lock()
		defer mu.Unlock()
		*refused = append(*refused, m)
	}})
	return p, refused
}

// serveMacPlan makes a macOS spawn's plan in mode proxy with n: its
// listener, its credential, and the proxy serving them until the test
// ends.
func serveMacPlan(t *testing.T, n Network) *plan {
	t.Helper()
	p := &plan{network: true, netProxy: true, net: n}
	if err := attachProxyPort(p, true); err != nil {
		t.Fatal(err)
	}
	stop, err := serveMacProxy(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return p
}

// needCred fails the test when p has no credential: the table lacks the
// proxy-auth row whose work the test checks.
func needCred(t *testing.T, p *plan) {
	t.Helper()
	if p.proxyCred == nil {
		t.Fatal("a macOS spawn in mode proxy has no credential: is the proxy-auth-darwin row gone?")
	}
}

// withoutProxyAuth leaves the proxy-auth row of goos out of the table
// until the test ends: the control of the attacks it stops.
func withoutProxyAuth(t *testing.T, goos string) {
	t.Helper()
	old := proxyAuthTable
	proxyAuthTable = slices.DeleteFunc(slices.Clone(old), func(r proxyAuthRow) bool { return r.goos == goos })
	if len(proxyAuthTable) == len(old) {
		t.Fatalf("the table has no proxy-auth row for %s", goos)
	}
	t.Cleanup(func() { proxyAuthTable = old })
}

// envValue is NAME's value in env, the last one as exec.Cmd keeps it.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if n, val, _ := strings.Cut(kv, "="); n == name {
			v = val
		}
	}
	return v
}

// headerServer answers with its nonce and records every header it was
// sent, so a test can tell that the proxy's credential never went on.
type headerServer struct {
	*httptest.Server
	nonce string
	mu    sync.Mutex
	seen  []string
}

func startHeaderServer(t *testing.T, tlsToo bool) *headerServer {
	s := &headerServer{nonce: fmt.Sprintf("upstream-%d", time.Now().UnixNano())}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		for k, v := range r.Header {
			s.seen = append(s.seen, k+": "+strings.Join(v, ","))
		}
		s.mu.Unlock()
		fmt.Fprintln(w, s.nonce)
	})
	if tlsToo {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

// goGet fetches target through the proxy URL proxyURL (a proxy
// variable's value, parsed as net/http's ProxyFromEnvironment does).
func goGet(t *testing.T, proxyURL, target string) (int, string) {
	t.Helper()
	pu, err := url.Parse(proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // httptest's own certificate
	}}
	resp, err := c.Get(target)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rawProxy sends req to the proxy on port and returns the response's
// status line, its headers and body.
func rawProxy(t *testing.T, port, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// socksGreet sends a SOCKS5 greeting offering methods and, when user is
// not nil, the RFC 1929 credential, and returns every byte the proxy
// answered until it closed or went quiet.
func socksGreet(t *testing.T, port string, methods []byte, user, pass []byte, connect []byte) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := append([]byte{5, byte(len(methods))}, methods...)
	if user != nil {
		msg = append(msg, 1, byte(len(user)))
		msg = append(append(msg, user...), byte(len(pass)))
		msg = append(msg, pass...)
	}
	msg = append(msg, connect...)
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	var out []byte
	br := bufio.NewReader(c)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return out
		}
		out = append(out, b)
	}
}

// TestProxyAuthClients: the credential a macOS spawn's proxy asks for is
// in its proxy variables in the form clients read: Go's net/http gets
// through by HTTP_PROXY (forwarding), HTTPS_PROXY (CONNECT) and ALL_PROXY
// (socks5h), and the destination server never sees it. Without it, with
// another token or user, or another scheme, the HTTP side answers 407
// asking for Basic and the SOCKS5 side refuses; neither answer, nor what
// Network.Refused hears, carries the token.
func TestProxyAuthClients(t *testing.T) {
	up := startHeaderServer(t, false)
	upTLS := startHeaderServer(t, true)
	dest := strings.TrimPrefix(up.URL, "http://")
	destTLS := strings.TrimPrefix(upTLS.URL, "https://")
	p, refused := macProxyRun(t, dest, destTLS)
	needCred(t, p)
	tok := p.proxyCred.Token()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(tok) {
		t.Errorf("token %q, want 128 random bits in hex", tok)
	}
	env := proxyEnv(p)
	for _, c := range []struct{ name, target, want string }{
		{"HTTP_PROXY", up.URL + "/", up.nonce},
		{"http_proxy", up.URL + "/", up.nonce},
		{"HTTPS_PROXY", upTLS.URL + "/", upTLS.nonce},
		{"https_proxy", upTLS.URL + "/", upTLS.nonce},
		{"ALL_PROXY", up.URL + "/", up.nonce},
		{"all_proxy", upTLS.URL + "/", upTLS.nonce},
	} {
		v := envValue(env, c.name)
		if !strings.Contains(v, "://sandtable:"+tok+"@127.0.0.1:"+p.proxyPort) {
			t.Errorf("%s=%s, want the credential in its URL", c.name, v)
		}
		if code, body := goGet(t, v, c.target); code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("net/http through %s=%s: %d %q, want 200 and the server's answer", c.name, v, code, body)
		}
	}
	for _, name := range []string{"NO_PROXY", "no_proxy", "JAVA_TOOL_OPTIONS", "NODE_USE_ENV_PROXY"} {
		if v := envValue(env, name); strings.Contains(v, tok) {
			t.Errorf("%s=%s carries the token", name, v)
		}
	}
	for _, s := range []*headerServer{up, upTLS} {
		s.mu.Lock()
		for _, h := range s.seen {
			if strings.Contains(h, tok) || strings.HasPrefix(strings.ToLower(h), "proxy-") {
				t.Errorf("the destination was sent %q", h)
			}
		}
		s.mu.Unlock()
	}

	basic := func(user, pass string) string {
		return "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)) + "\r\n"
	}
	other := strings.Repeat("0", len(tok))
	for _, c := range []struct{ name, auth string }{
		{"none", ""},
		{"other-token", basic("sandtable", other)},
		{"token-prefix", basic("sandtable", tok[:31])},
		{"other-user", basic("root", tok)},
		{"bearer", "Proxy-Authorization: Bearer " + tok + "\r\n"},
		{"not-base64", "Proxy-Authorization: Basic sandtable:" + tok + "\r\n"},
	} {
		for _, req := range []string{
			"GET " + up.URL + "/ HTTP/1.1\r\nHost: " + dest + "\r\n" + c.auth + "\r\n",
			"CONNECT " + destTLS + " HTTP/1.1\r\nHost: " + destTLS + "\r\n" + c.auth + "\r\n",
		} {
			got := rawProxy(t, p.proxyPort, req)
			if !strings.HasPrefix(got, "HTTP/1.1 407 ") || !strings.Contains(got, "\r\nProxy-Authenticate: Basic realm=\"sandtable\"\r\n") {
				t.Errorf("%s: %s\nanswered %q, want 407 asking for Basic", c.name, strings.SplitN(req, "\r\n", 2)[0], got)
			}
			if strings.Contains(got, up.nonce) || strings.Contains(got, tok) || strings.Contains(got, "200 Connection established") {
				t.Errorf("%s: answered %q", c.name, got)
			}
		}
	}
	if got := rawProxy(t, p.proxyPort, "GET "+up.URL+"/ HTTP/1.1\r\nHost: "+dest+"\r\n"+basic("sandtable", tok)+"\r\n"); !strings.Contains(got, up.nonce) {
		t.Errorf("the right credential by hand: %q", got)
	}

	host, port, _ := net.SplitHostPort(dest)
	ip := net.ParseIP(host).To4()
	connect := []byte{5, 1, 0, 1, ip[0], ip[1], ip[2], ip[3], 0, 0}
	pn, _ := strconv.Atoi(port)
	connect[8], connect[9] = byte(pn>>8), byte(pn)
	req := "GET / HTTP/1.1\r\nHost: " + dest + "\r\nConnection: close\r\n\r\n"
	for _, c := range []struct {
		name       string
		methods    []byte
		user, pass []byte
		want       []byte // the answer's first bytes
		through    bool
	}{
		{"no-auth-only", []byte{0}, nil, nil, []byte{5, 0xff}, false},
		{"other-token", []byte{0, 2}, []byte("sandtable"), []byte(other), []byte{5, 2, 1, 1}, false},
		{"other-user", []byte{2}, []byte("nobody"), []byte(tok), []byte{5, 2, 1, 1}, false},
		{"empty", []byte{2}, []byte{}, []byte{}, []byte{5, 2, 1, 1}, false},
		{"right", []byte{0, 2}, []byte("sandtable"), []byte(tok), []byte{5, 2, 1, 0, 5, 0}, true},
	} {
		got := socksGreet(t, p.proxyPort, c.methods, c.user, c.pass, append(slices.Clone(connect), req...))
		if !slices.Equal(got[:min(len(got), len(c.want))], c.want) {
			t.Errorf("socks5 %s: answered % x, want % x first", c.name, got, c.want)
		}
		if reached := strings.Contains(string(got), up.nonce); reached != c.through {
			t.Errorf("socks5 %s: reached the destination: %v, want %v (% x)", c.name, reached, c.through, got)
		}
	}

	if len(*refused) != 1 || !strings.Contains((*refused)[0], "rule proxy-auth-darwin") {
		t.Errorf("Network.Refused heard %q, want the refusal once, naming proxy-auth-darwin", *refused)
	}
	for _, m := range *refused {
		if strings.Contains(m, tok) {
			t.Errorf("Network.Refused heard the token: %q", m)
		}
	}
}

// TestProxyTokenPerSpawn: every spawn makes its own token, and one
// spawn's proxy refuses another's.
func TestProxyTokenPerSpawn(t *testing.T) {
	up := startHeaderServer(t, false)
	dest := strings.TrimPrefix(up.URL, "http://")
	seen := map[string]bool{}
	var plans []*plan
	for range 8 {
		p, _ := macProxyRun(t, dest)
		needCred(t, p)
		if seen[p.proxyCred.Token()] {
			t.Fatalf("token %s made twice", p.proxyCred.Token())
		}
		seen[p.proxyCred.Token()] = true
		plans = append(plans, p)
	}
	a, b := plans[0], plans[1]
	other := "http://sandtable:" + b.proxyCred.Token() + "@127.0.0.1:" + a.proxyPort
	if code, body := goGet(t, other, up.URL); code != 407 || strings.Contains(body, up.nonce) {
		t.Errorf("another spawn's token: %d %q, want 407", code, body)
	}
	if code, body := goGet(t, envValue(proxyEnv(a), "HTTP_PROXY"), up.URL); code != 200 || !strings.Contains(body, up.nonce) {
		t.Errorf("its own token: %d %q, want 200", code, body)
	}
}

// TestProxyTokenOnlyInEnv: the token of a macOS spawn is in its proxy
// variables and nowhere else the spawn shows: not sandbox-exec's argv
// (ps shows it to every user) or the profile, and a rendered wrapper
// (PrefixFor, explain) has no credential at all.
func TestProxyTokenOnlyInEnv(t *testing.T) {
	cfg := Config{Workspace: t.TempDir(), Network: Network{Mode: NetworkProxy}, Policy: Required}
	w, p, hf, err := prefix("darwin", cfg, checkNone)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range w.Env {
		if strings.Contains(kv, "@127.0.0.1") {
			t.Errorf("rendered env has a credential: %s", kv)
		}
	}
	steps, err := Explain("darwin", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(steps); strings.Contains(s, "@127.0.0.1") || strings.Contains(s, "sandtable:") {
		t.Errorf("explain shows a credential: %s", s)
	}
	// The spawn's assembly, as prefix makes it on a Mac: the spawn's
	// listener is a host fact, made in the copy the builders read.
	p = p.with(hf)
	if err := attachProxyPort(p, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { refuseMacProxy(p, "test") })
	needCred(t, p)
	tok := p.proxyCred.Token()
	prof := darwinProfile(p)
	args := darwinArgs(prof)
	env := tmpdirEnv(p, append(tableEnv(p), proxyEnv(p)...))
	if strings.Contains(prof, tok) || strings.Contains(strings.Join(args, " "), tok) {
		t.Errorf("the profile or sandbox-exec's argv carries the token")
	}
	if !strings.Contains(prof, `(remote ip "localhost:`+p.proxyPort+`")`) {
		t.Errorf("the spawn's profile does not name its port %s", p.proxyPort)
	}
	var with []string
	for _, kv := range env {
		if strings.Contains(kv, tok) {
			n, _, _ := strings.Cut(kv, "=")
			with = append(with, n)
		}
	}
	want := []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"}
	slices.Sort(with)
	slices.Sort(want)
	if !slices.Equal(with, want) {
		t.Errorf("the token is in %q, want exactly %q", with, want)
	}
}

// TestProxyCredentialSurvivesStrip: the strip-env-values row
// strip-url-password removes a caller's variable holding a URL with a
// password, and would remove the proxy variables too (they are such
// URLs); they are set after it, so the command gets them, in place of the
// caller's proxy variables, and not beside them.
func TestProxyCredentialSurvivesStrip(t *testing.T) {
	p, _ := macProxyRun(t)
	needCred(t, p)
	ours := proxyEnv(p)
	https := envValue(ours, "HTTPS_PROXY")
	if !envval.URLPassword(https) {
		t.Fatalf("HTTPS_PROXY=%s: the url-password matcher does not catch it, so this test proves nothing", https)
	}
	caller := []string{
		"PATH=/usr/bin:/bin",
		"HTTPS_PROXY=http://corp:s3cret@proxy.corp.example:3128", // removed by its value
		"http_proxy=http://proxy.corp.example:3128",              // kept by the strip rows, replaced by ours
		"REDIS_URL=redis://default:s3cret@127.0.0.1:6379/0",
	}
	env := commandEnv(Config{}, caller, append(tableEnv(p), ours...))
	if v := envValue(env, "REDIS_URL"); v != "" {
		t.Errorf("REDIS_URL=%s survived the strip rows", v)
	}
	for _, name := range []string{"HTTPS_PROXY", "http_proxy", "ALL_PROXY"} {
		n := 0
		for _, kv := range env {
			if strings.HasPrefix(kv, name+"=") {
				n++
			}
		}
		if got, want := envValue(env, name), envValue(ours, name); got != want || n != 1 {
			t.Errorf("%s: %d entries, last %q, want ours alone: %q", name, n, got, want)
		}
	}
	if _, err := exec.LookPath("env"); err != nil {
		t.Skip("no env program to show what a child gets")
	}
	cmd := exec.Command("env")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "HTTPS_PROXY="+https+"\n") || strings.Contains(string(out), "corp") {
		t.Errorf("the child's environment:\n%s", out)
	}
}
