package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// netUser is who runs sandtable in the network tests: the test's own user,
// and sandtable-test when the test runs as root, so that the network
// helper's namespaces are made by an unprivileged caller too.
type netUser struct {
	name     string
	cred     *syscall.Credential
	bin      string // a copy of sandtable the user can run
	home, ws string
	uid, gid int
}

func netUsers(t *testing.T) []*netUser {
	t.Helper()
	self := &netUser{name: "self", uid: os.Getuid(), gid: os.Getgid()}
	us := []*netUser{self}
	if os.Getuid() == 0 {
		self.name = "root"
		if u, err := user.Lookup("sandtable-test"); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			us = append(us, &netUser{name: "sandtable-test", uid: uid, gid: gid,
				cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}})
		} else if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatalf("no sandtable-test user to run the network tests unprivileged: %v", err)
		}
	}
	for _, u := range us {
		dir := testkit.HostDir(t)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		u.bin, u.home, u.ws = filepath.Join(dir, "sandtable"), filepath.Join(dir, "home"), filepath.Join(dir, "ws")
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(u.bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{u.home, u.ws} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(d, u.uid, u.gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	return us
}

// run runs sandtable as u with args, from u's workspace.
func (u *netUser) run(t *testing.T, args ...string) result {
	t.Helper()
	return u.exec(t, u.bin, args...)
}

// exec runs prog as u, outside any sandbox unless prog makes one.
func (u *netUser) exec(t *testing.T, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = u.ws
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + u.home}
	if u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	timer := time.AfterFunc(60*time.Second, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s %q: %v", prog, args, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

const connectAbstractPy = `import socket,sys
s=socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect("\0"+sys.argv[1])
print(s.recv(100).decode())`

// TestNetworkProxyAttacks runs each attack on the host's network in mode
// proxy, as root and unprivileged: it fails there, and its control (the
// same script in mode host, outside the sandbox, or with the destination
// listed) gets through, so no check passes vacuously.
func TestNetworkProxyAttacks(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("needs curl")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	s := testkit.StartNetServers(t)
	curl := "curl -sS --max-time 10 --noproxy '' "
	attempts := []struct {
		name    string
		script  string
		args    []string // the attack's flags
		control []string // the control's; nil: outside the sandbox
		refused []string // what sandtable's stderr must say in the attack
	}{
		{
			name:    "abstract-unix",
			script:  `python3 -c '` + connectAbstractPy + `' ` + s.Abstract,
			args:    []string{"--network", "proxy"},
			control: []string{"--network", "host", "--host-abstract"},
		},
		{
			name:    "abstract-unix-host-mode",
			script:  `python3 -c '` + connectAbstractPy + `' ` + s.Abstract,
			args:    []string{"--network", "host"},
			control: []string{"--network", "host", "--host-abstract"},
		},
		{
			name:   "abstract-unix-outside",
			script: `python3 -c '` + connectAbstractPy + `' ` + s.Abstract,
			args:   []string{"--network", "proxy"},
		},
		{
			name:    "loopback-direct",
			script:  `exec 3<>/dev/tcp/127.0.0.1/` + s.Port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`,
			args:    []string{"--network", "proxy"},
			control: []string{"--network", "host"},
		},
		{
			// No flag: the default mode (network-default-linux).
			name:    "loopback-direct-default",
			script:  `exec 3<>/dev/tcp/127.0.0.1/` + s.Port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`,
			args:    []string{},
			control: []string{"--network", "host"},
		},
		{
			name:    "abstract-unix-default",
			script:  `python3 -c '` + connectAbstractPy + `' ` + s.Abstract,
			args:    []string{},
			control: []string{"--network", "host", "--host-abstract"},
		},
		{
			name:    "loopback-through-proxy",
			script:  curl + "http://127.0.0.1:" + s.Port + "/",
			args:    []string{"--network", "proxy"},
			control: []string{"--network", "proxy", "--allow-private", "127.0.0.1:" + s.Port},
			refused: []string{"refused 127.0.0.1:" + s.Port + ": it is a loopback address", "--allow-private 127.0.0.1:" + s.Port},
		},
		{
			name:    "loopback-through-socks",
			script:  curl + "--proxy socks5h://127.0.0.1:1080 http://localhost:" + s.Port + "/",
			args:    []string{"--network", "proxy"},
			control: []string{"--network", "proxy", "--allow-private", "localhost:" + s.Port},
			refused: []string{"refused localhost:" + s.Port + ": it resolves to 127.0.0.1, a loopback address"},
		},
		{
			name:    "allowlist-unlisted-name",
			script:  curl + "http://localhost:" + s.Port + "/",
			args:    []string{"--allow-host", "localhost:" + s.Port2},
			control: []string{"--allow-host", "localhost:" + s.Port},
			refused: []string{"refused localhost:" + s.Port + ": not in the allowlist", "--allow-host localhost:" + s.Port},
		},
		{
			name:    "allowlist-ip-literal",
			script:  curl + "http://127.0.0.1:" + s.Port + "/",
			args:    []string{"--allow-host", "localhost:" + s.Port},
			control: []string{"--allow-host", "127.0.0.1:" + s.Port},
			refused: []string{"refused 127.0.0.1:" + s.Port + ": not in the allowlist"},
		},
		{
			// curl reads only HTTPS_PROXY for an https URL: the tunnel
			// works, and without the variable nothing gets out.
			name:   "https-proxy-variable",
			script: `env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy -u NO_PROXY -u no_proxy -u HTTPS_PROXY -u https_proxy curl -sSk --max-time 10 https://localhost:` + s.TLS + `/`,
			args:   []string{"--network", "proxy", "--allow-private", "localhost:" + s.TLS},
		},
	}
	for _, u := range netUsers(t) {
		t.Run(u.name, func(t *testing.T) {
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					if a.name == "https-proxy-variable" {
						// Inverted: the control strips the variable.
						ok := u.run(t, append(append([]string{"run"}, a.args...), "--", "bash", "-c", strings.Replace(a.script, "-u HTTPS_PROXY -u https_proxy ", "", 1))...)
						if !strings.Contains(ok.stdout, s.Nonce) {
							t.Fatalf("curl with only HTTPS_PROXY did not get through: exit %d\n%s%s", ok.code, ok.stdout, ok.stderr)
						}
						no := u.run(t, append(append([]string{"run"}, a.args...), "--", "bash", "-c", a.script)...)
						if strings.Contains(no.stdout, s.Nonce) {
							t.Fatalf("without HTTPS_PROXY curl still got through: the proxy is not what carried it")
						}
						return
					}
					r := u.run(t, append(append([]string{"run"}, a.args...), "--", "bash", "-c", a.script)...)
					if r.code == 125 || strings.Contains(r.stderr, "sandbox: unavailable") {
						t.Fatalf("the sandbox did not run: exit %d\n%s", r.code, r.stderr)
					}
					if strings.Contains(r.stdout, s.Nonce) {
						t.Errorf("ATTACK SUCCEEDED: reached the host's service\nstdout %q\nstderr %q", r.stdout, r.stderr)
					}
					for _, want := range a.refused {
						if !strings.Contains(r.stderr, want) {
							t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
						}
					}
					var c result
					if a.control == nil {
						c = u.exec(t, "/bin/bash", "-c", a.script)
					} else {
						c = u.run(t, append(append([]string{"run"}, a.control...), "--", "bash", "-c", a.script)...)
					}
					if !strings.Contains(c.stdout, s.Nonce) {
						t.Errorf("control %q did not reach the service, so the attack proves nothing: exit %d\n%s%s", a.control, c.code, c.stdout, c.stderr)
					}
				})
			}
		})
	}
}
