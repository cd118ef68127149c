package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestNetWrapNeedsReexec: the wrap helper's argv, which a program that
// imports this package may be made to receive as its first arguments,
// does not by itself run the program after its "--" (here a shell that
// writes a marker, outside any sandbox). Each attack lacks one thing a
// re-exec by Command or Prefix has: argv[0] /proc/self/exe, the variable
// naming the parent, the parent being this executable (the variable is
// set right by a shell that starts the test binary). The control, with
// all three, runs it; as root and unprivileged.
func TestNetWrapNeedsReexec(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	self, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			dir := netWrapWorkspace(t, base, u)
			n := 0
			run := func(arg0, parent string, viaShell bool) bool {
				t.Helper()
				n++
				marker := filepath.Join(dir, "ran-"+strconv.Itoa(n))
				words := []string{netWrapArg, "--", "/bin/sh", "-c", "touch " + marker}
				var c *exec.Cmd
				if viaShell {
					// A shell parent, which sets the variable to its own pid.
					script := `(` + netWrapEnv + `=$$ exec -a "$0" /proc/self/fd/3 "$@"); :`
					c = exec.Command("/bin/bash", append([]string{"-c", script, arg0}, words...)...)
					c.ExtraFiles = []*os.File{self}
				} else {
					c = exec.Command(netWrapExe, words...)
					c.Args[0] = arg0
				}
				c.Env = os.Environ()
				if parent != "" {
					c.Env = append(c.Env, netWrapEnv+"="+parent)
				}
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				c.WaitDelay = time.Second
				out, err := c.CombinedOutput()
				_, statErr := os.Stat(marker)
				t.Logf("argv[0] %q, %s=%q, shell parent %v: %v: %s", arg0, netWrapEnv, parent, viaShell, err, escShort(string(out)))
				return statErr == nil
			}
			me := strconv.Itoa(os.Getpid())
			if run("program", me, false) {
				t.Error("ATTACK SUCCEEDED: an ordinary argv[0] ran the helper")
			}
			if run(netWrapExe, "", false) {
				t.Error("ATTACK SUCCEEDED: without its variable, the argv ran the helper")
			}
			if run(netWrapExe, "1", false) {
				t.Error("ATTACK SUCCEEDED: a variable naming another process ran the helper")
			}
			if run(netWrapExe, "", true) {
				t.Error("ATTACK SUCCEEDED: a parent that is another executable ran the helper")
			}
			if !run(netWrapExe, me, false) {
				t.Error("control: the re-exec Command makes did not run the helper, so the attacks prove nothing")
			}
		})
	}
}
