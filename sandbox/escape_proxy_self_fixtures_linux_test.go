package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The fixtures of the own-address attack (escape_proxy_self_linux_test.go):
// the test's network namespace and the snippet that asks for a tunnel into
// it.

// selfAddr is the address the test's network namespace gives its own
// interface: a documentation range, which the proxy's ranges leave open
// (this machine's own eth0 holds one of them).
const selfAddr = "198.51.100.7"

// inSelfNetns runs f on a thread in a network namespace of the test's own
// making, whose veth end holds selfAddr and whose loopback is up; what f
// starts from the thread (sockets, processes) is there. The thread goes
// back to the process's namespace afterwards.
func inSelfNetns(t *testing.T, f func()) {
	t.Helper()
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	defer orig.Close()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		t.Skipf("a network namespace of the test's own: %v", err)
	}
	defer func() {
		// Back, or the thread stays locked and ends with its goroutine.
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			t.Errorf("back to the process's network namespace: %v", err)
			return
		}
		runtime.UnlockOSThread()
	}()
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", "st-self0", "type", "veth", "peer", "name", "st-self1"},
		{"addr", "add", selfAddr + "/24", "dev", "st-self0"},
		{"link", "set", "st-self0", "up"},
		{"link", "set", "st-self1", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	f()
}

// proxySelfScript asks the proxy for a tunnel to selfAddr:port and prints
// what comes back: the proxy's answer, and the service's nonce if it got
// through.
func proxySelfScript(port string) string {
	return `import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT ` + selfAddr + `:` + port + ` HTTP/1.1\r\nHost: ` + selfAddr + `:` + port + `\r\n\r\n")
s.settimeout(20)
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
print(data.decode(errors="replace"))
`
}
