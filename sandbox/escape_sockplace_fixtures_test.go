//go:build linux

package sandbox

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// serveUnixAs starts a python3 service, as the pass's user, in dir, that
// binds name (a relative name, or one through /proc/self/fd/{dirfd}, its
// descriptor of dir) and sends the attempt's secret to every client. A
// process of its own: in this one, /proc/self/fd/N would name the
// directory for the planner too. With forked, it forks once it listens:
// the child serves, and the parent, which keeps the socket, moves to /.
func (e *escEnv) serveUnixAs(dir, name string, forked bool) {
	e.secret = escToken(e.a.name)
	if e.py == "" {
		e.t.Skip("no python3 on " + escPath)
	}
	cmd := exec.Command(e.py, "-c", `
import os, socket, sys
name = sys.argv[1].replace("{dirfd}", str(os.open(".", os.O_RDONLY | os.O_DIRECTORY)))
s = socket.socket(socket.AF_UNIX)
s.bind(name)
os.chmod(name, 0o777)
s.listen(8)
if sys.argv[3] == "fork" and os.fork() != 0:
    os.chdir("/")
    while True:
        os.pause()
print("ready", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(sys.argv[2].encode() + b"\n")
    c.close()
`, name, e.secret, map[bool]string{true: "fork", false: "-"}[forked])
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred, Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	buf := make([]byte, 6)
	done := make(chan error, 1)
	go func() { _, err := out.Read(buf); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			e.t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		e.t.Fatal("the service did not start")
	}
	e.sockets.Store(true)
	e.vars["SOCK"] = filepath.Join(dir, filepath.Base(name))
	e.vars["CONNECT_PY"] = connectPy
}
