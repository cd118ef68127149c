package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunSocket: a host service's unix socket outside the workspace is
// refused to the command, and reachable with --socket.
func TestRunSocket(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	e := newEnv(t)
	// Under /run, where services keep theirs: a socket under a
	// world-writable sticky directory (/var/tmp) is not hidden.
	dir, err := os.MkdirTemp("/run", "sandtable-cmd-test-")
	if err != nil {
		t.Skipf("no directory under /run: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Other tests' spawns, some under an unprivileged uid, list this socket
	// too and mount over it: they must be able to reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "service.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	// Every spawn on this host lists the socket while it is open, and one
	// whose file is gone before bwrap mounts over it fails: the file stays
	// a while after the close, until the test's directory goes.
	ln.SetUnlinkOnClose(false)
	t.Cleanup(func() { ln.Close(); time.Sleep(3 * time.Second) }) // as socketGrace in the sandbox tests
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	const py = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
try:
    s.connect(sys.argv[1]); print(s.recv(100).decode())
except Exception as e:
    print("connect:", e)`
	if r := e.run(t, "", "run", "--", "python3", "-c", py, sock); strings.Contains(r.stdout, "hello") || !strings.Contains(r.stdout, "refused") {
		t.Errorf("without --socket: %q %q", r.stdout, r.stderr)
	}
	if r := e.run(t, "", "run", "--socket", sock, "--", "python3", "-c", py, sock); !strings.Contains(r.stdout, "hello from the host") {
		t.Errorf("with --socket: %q %q", r.stdout, r.stderr)
	}
	if r := e.run(t, "", "run", "--socket", filepath.Dir(sock), "--", "true"); r.code != 2 || !strings.Contains(r.stderr, "not a unix socket") {
		t.Errorf("--socket on a directory: exit %d, %q", r.code, r.stderr)
	}
}
