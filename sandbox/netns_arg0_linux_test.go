package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNetnsHelperNeedsArg0: the helper's variable and an inherited socket,
// which whoever sets a program's environment can supply, do not turn a
// program that imports this package into the network helper (which, run
// as root in the host's namespace, would bind the proxy's ports there and
// exec the program the variable names); only the argv[0] the package
// gives its own helper does.
func TestNetnsHelperNeedsArg0(t *testing.T) {
	// The namespace the variable names is this one, where the helper
	// refuses to run before it changes anything: the control sees that
	// refusal, and no helper touches this namespace.
	here, err := netnsID()
	if err != nil {
		t.Fatal(err)
	}
	run := func(arg0 string) (string, error) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		mine, theirs := os.NewFile(uintptr(fds[0]), "caller"), os.NewFile(uintptr(fds[1]), "helper")
		defer mine.Close()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Args[0] = arg0
		cmd.Env = append(os.Environ(), netnsEnv+"=3:"+here+"::/bin/echo")
		cmd.ExtraFiles = []*os.File{theirs}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		theirs.Close()
		// A helper that ran waits for "go": give it none.
		mine.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 256)
		n, _ := mine.Read(b)
		mine.Close()
		err = cmd.Wait()
		return string(b[:n]), err
	}
	if msg, err := run("program"); err != nil || msg != "" {
		t.Errorf("with its variable and socket, an ordinary argv[0] became the helper: %v, it said %q", err, msg)
	}
	msg, err := run(netnsArg0)
	if err == nil || !strings.Contains(msg, "caller's network namespace") {
		t.Errorf("control: with its argv[0] the helper did not run: %v, it said %q", err, msg)
	}
}
