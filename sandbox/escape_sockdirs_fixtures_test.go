//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The fixtures of the attempts on a directory of many host sockets
// (escape_sockdirs_test.go).

// crowdSockets is how many sockets host-socket-crowd's directory holds.
const crowdSockets = 1000

// listenCrowd opens n listening sockets in dir that accept nothing, the
// pass's user's, closed when the attempt ends (their files go with the
// service directory, after socketGrace).
func (e *escEnv) listenCrowd(dir string, n int) {
	e.t.Helper()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("crowd-%d.sock", i))
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
		if err != nil {
			e.t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		e.t.Cleanup(func() { ln.Close() })
		e.chown(e.t, p)
	}
	e.sockets.Store(true)
}

// serveUnixElsewhere is serveUnix with the socket made in a new network
// namespace, on a thread that ends with it: /proc/net/unix, which is the
// caller's namespace's, does not list it, and a connect by its path
// reaches it all the same.
func (e *escEnv) serveUnixElsewhere(path string) {
	e.t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	onDyingThread(func() {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("unshare: %w", err)}
			return
		}
		ln, err := net.Listen("unix", path)
		done <- result{ln, err}
	})
	r := <-done
	if r.err != nil {
		e.t.Skipf("no socket in another network namespace: %v", r.err)
	}
	r.ln.(*net.UnixListener).SetUnlinkOnClose(false)
	e.sockets.Store(true)
	e.secret = escToken(e.a.name)
	e.t.Cleanup(func() { r.ln.Close() })
	go func() {
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(e.secret + "\n"))
			c.Close()
		}
	}()
	if err := os.Chmod(path, 0o777); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, path)
	e.vars["SOCK"] = path
	e.vars["CONNECT_PY"] = connectPy
	if b, _ := os.ReadFile("/proc/net/unix"); strings.Contains(string(b), path) {
		e.t.Fatalf("%s is in this namespace's /proc/net/unix", path)
	}
}

// socketDirOf is the directory the attempt's spawn rebuilds without its
// sockets (hide-socket-dir) that holds p, or "".
func (e *escEnv) socketDirOf(p string) string {
	e.t.Helper()
	steps, err := Explain("linux", e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range steps {
		if s.Rule == "hide-socket-dir" {
			if d := s.Args[len(s.Args)-1]; under(p, d) {
				return d
			}
		}
	}
	return ""
}

// requireSocketDir fails the attempt unless its spawn rebuilds dir, or a
// directory above it, without its sockets: otherwise it would test the
// mount over each socket (hide-host-socket) instead.
func (e *escEnv) requireSocketDir(dir string) {
	e.t.Helper()
	if d := e.socketDirOf(filepath.Join(dir, "x")); d == "" {
		e.t.Fatalf("the spawn does not rebuild %s without its sockets (no hide-socket-dir step above it)", dir)
	}
}

// symlink makes a symlink the user owns.
func (e *escEnv) symlink(target, path string) {
	e.t.Helper()
	if err := os.Symlink(target, path); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, path)
}

// containsLine reports whether out has a line that is line once trimmed.
func containsLine(out, line string) bool {
	for l := range strings.Lines(out) {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
