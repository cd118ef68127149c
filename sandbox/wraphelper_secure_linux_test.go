package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// secureParentEnv makes TestWrapHelperSecureExecParent block until its stdin
// ends: the parent process of TestWrapHelperRefusesSecureExec's attack.
const secureParentEnv = "SANDTABLE_TEST_SECURE_PARENT"

// TestWrapHelperSecureExecParent is no test of its own: run with
// secureParentEnv by TestWrapHelperRefusesSecureExec's attacker, it keeps
// this executable running as the wrap helper's parent until its stdin ends.
func TestWrapHelperSecureExecParent(t *testing.T) {
	if os.Getenv(secureParentEnv) != "1" {
		t.Skip("the parent process of TestWrapHelperRefusesSecureExec")
	}
	io.Copy(io.Discard, os.Stdin)
}

// secureExecAttack forks; the parent becomes the program (a copy of this
// test binary) and blocks; the child waits for that exec, then runs the
// same program as the wrap helper with every mark of a re-exec by Command
// (argv[0] /proc/self/exe, the variable naming its parent, the parent
// running the same executable), the helper's argv running touch MARKER
// outside any sandbox.
const secureExecAttack = `
import os, sys
prog, marker = sys.argv[1], sys.argv[2]
r, w = os.pipe()  # close-on-exec: the parent's exec ends it
if os.fork() == 0:
    os.close(w)
    ppid = os.getppid()
    os.read(r, 1)
    os.execve(prog, ["/proc/self/exe", "-sandtable-network-proxy-helper", "network=host", "stdio=as-is",
                     "--", "/usr/bin/touch", marker],
              {"PATH": "/usr/bin:/bin", "SANDTABLE_WRAP_PARENT": str(ppid)})
os.close(r)
os.execve(prog, [prog, "-test.run=^TestWrapHelperSecureExecParent$"],
          {"PATH": "/usr/bin:/bin", "SANDTABLE_TEST_SECURE_PARENT": "1"})
`

// TestWrapHelperRefusesSecureExec: a program that imports this package and is
// set-user-ID (or set-group-ID, or has file capabilities) would run the
// wrap helper for whoever executes it, with the helper's argv and
// environment chosen by that user: the attacker forks, the parent execs
// the program, the child execs it again as the helper, and the program
// after the helper's "--" runs with the program's owner's rights, outside
// any sandbox. The kernel marks such an execution (AT_SECURE), and the
// helper refuses to run in it. Each user attacks a set-user-ID copy of
// this test binary owned by the other one (root's gives the unprivileged
// user root; the unprivileged user's would give root nothing, and is
// refused all the same). The control runs the same attack on a plain copy
// of the attacker's own, which runs the helper as the attacker.
func TestWrapHelperRefusesSecureExec(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
		t.Skip("python3: ", err)
	}
	users := escUsers(t)
	if len(users) < 2 {
		t.Skip("needs root and an unprivileged user")
	}
	base, self := secureExecFixture(t)
	for i, u := range users {
		owner := users[1-i]
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			dir := mkdir(t, base, "attack-"+u.label)
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			run := func(prog, marker string) (ran bool, out string) {
				t.Helper()
				c := exec.Command("/usr/bin/python3", "-c", secureExecAttack, prog, marker)
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				stdin, err := c.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				var buf lockedBuffer
				c.Stdout, c.Stderr = &buf, &buf
				c.WaitDelay = time.Second
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				// The parent blocks until its stdin ends: the helper has
				// either touched the marker or said why not by then.
				for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(marker); err == nil || strings.Contains(buf.String(), "wrap helper:") {
						break
					}
				}
				stdin.Close()
				werr := c.Wait()
				fi, err := os.Stat(marker)
				if err == nil {
					st := fi.Sys().(*syscall.Stat_t)
					t.Logf("%s ran the helper: marker owned by uid %d", filepath.Base(prog), st.Uid)
				}
				t.Logf("%s: %v: %s", filepath.Base(prog), werr, escShort(buf.String()))
				return err == nil, buf.String()
			}
			suid := installCopy(t, dir, self, "suid", owner, 0o755|os.ModeSetuid)
			if ran, _ := run(suid, filepath.Join(dir, "ran-suid")); ran {
				t.Errorf("ATTACK SUCCEEDED: a set-user-ID copy owned by uid %d ran the helper's program for uid %d", owner.uid, u.uid)
			}
			plain := installCopy(t, dir, self, "plain", u, 0o755)
			if ran, out := run(plain, filepath.Join(dir, "ran-plain")); !ran {
				t.Errorf("control: the same attack on a plain copy did not run the helper, so the attack proves nothing:\n%s", out)
			}
		})
	}
}

// TestNetnsHelperRefusesSecureExec: the network helper needs no parent, so
// a set-user-ID program that imports this package runs it for whoever
// executes it with its argv[0], its variable and a socket: the helper
// binds the proxy's listeners and then executes the variable's program,
// with the program owner's rights (outside any sandbox when nothing made
// it a namespace). The variable here names the attacker's own network
// namespace, where a helper that runs refuses to go on before it changes
// anything: that refusal, on the socket, is the sign it ran. In a secure
// execution (AT_SECURE) it refuses before. Each user executes a
// set-user-ID copy of this test binary owned by the other one; the
// control executes a plain copy of its own, where the helper runs.
func TestNetnsHelperRefusesSecureExec(t *testing.T) {
	requireBwrap(t)
	users := escUsers(t)
	if len(users) < 2 {
		t.Skip("needs root and an unprivileged user")
	}
	here, err := netnsID()
	if err != nil {
		t.Fatal(err)
	}
	base, self := secureExecFixture(t)
	for i, u := range users {
		owner := users[1-i]
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			dir := mkdir(t, base, "attack-"+u.label)
			run := func(prog string) string {
				t.Helper()
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				mine, theirs := os.NewFile(uintptr(fds[0]), "caller"), os.NewFile(uintptr(fds[1]), "helper")
				defer mine.Close()
				c := exec.Command(prog, "-test.run=^$")
				c.Args[0] = netnsArg0
				c.Env = []string{"PATH=/usr/bin:/bin", netnsEnv + "=3:" + here + "::/bin/echo"}
				c.ExtraFiles = []*os.File{theirs}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				c.WaitDelay = time.Second
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				theirs.Close()
				mine.SetReadDeadline(time.Now().Add(10 * time.Second))
				b := make([]byte, 512)
				n, _ := mine.Read(b)
				mine.Close()
				werr := c.Wait()
				t.Logf("%s: %v: it said %q", filepath.Base(prog), werr, b[:n])
				return string(b[:n])
			}
			suid := installCopy(t, dir, self, "suid", owner, 0o755|os.ModeSetuid)
			if msg := run(suid); !strings.Contains(msg, "no helper runs in it") {
				t.Errorf("ATTACK SUCCEEDED: a set-user-ID copy owned by uid %d ran the network helper for uid %d: it said %q", owner.uid, u.uid, msg)
			}
			plain := installCopy(t, dir, self, "plain", u, 0o755)
			if msg := run(plain); !strings.Contains(msg, "caller's network namespace") {
				t.Errorf("control: a plain copy did not run the network helper, so the attack proves nothing: it said %q", msg)
			}
		})
	}
}

// installCopy writes self to dir/name, owned by who, with mode (chown
// clears the set-user-ID bit, so the mode comes after).
func installCopy(t *testing.T, dir string, self []byte, name string, who *escUser, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, self, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, who.uid, who.gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// secureExecFixture is a host directory every test user can traverse and
// the bytes of this test binary, which the attacks install copies of.
func secureExecFixture(t *testing.T) (base string, self []byte) {
	t.Helper()
	base = hostDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	return base, self
}
