package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWrapHelperNeedsReexec: the argv of each helper Command re-executes
// (the wrap helper, and the reduced backend's landlock helper), which a
// program that imports this package may be made to receive as its first
// arguments, does not by itself run the command after its "--" (here a
// shell that writes a marker in the workspace). Each attack lacks one
// thing a re-exec by Command or Prefix has: argv[0] /proc/self/exe, the
// variable naming the parent, the parent being this executable (the
// variable is set right by a shell that starts the test binary). The
// control, with all three, runs it; as root and unprivileged.
func TestWrapHelperNeedsReexec(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	self, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	for _, u := range escUsers(t) {
		for _, h := range []struct {
			name    string
			arg     string
			backend Backend
		}{{"wrap", wrapHelperArg, BackendBwrap}, {"landlock", landlockHelperArg, BackendLandlock}} {
			t.Run(u.label+"/"+h.name, func(t *testing.T) {
				u.spawnAs(t)
				dir := wrapHelperWorkspace(t, base, u)
				n := 0
				run := func(arg0, parent string, viaShell bool) bool {
					t.Helper()
					n++
					marker := filepath.Join(dir, "ran-"+strconv.Itoa(n))
					cfg := Config{Workspace: dir, Policy: Required, NoCache: true, Network: Network{Mode: NetworkOff}, Backend: h.backend}
					cmd, err := Command(t.Context(), cfg, "/bin/sh", "-c", "touch "+marker)
					if err != nil {
						t.Fatalf("Command: %v", err)
					}
					if len(cmd.Args) < 2 || cmd.Args[1] != h.arg {
						t.Fatalf("not the %s helper: %q", h.name, cmd.Args)
					}
					words := cmd.Args[1:]
					var c *exec.Cmd
					if viaShell {
						// A shell parent, which sets the variable to its own pid.
						// The test binary goes after the helper's own descriptors.
						fd := strconv.Itoa(3 + len(cmd.ExtraFiles))
						script := `(` + wrapHelperEnv + `=$$ exec -a "$0" /proc/self/fd/` + fd + ` "$@"); :`
						c = exec.Command("/bin/bash", append([]string{"-c", script, arg0}, words...)...)
						c.ExtraFiles = append(slices.Clone(cmd.ExtraFiles), self)
					} else {
						c = exec.Command(wrapHelperExe, words...)
						c.Args[0] = arg0
						c.ExtraFiles = cmd.ExtraFiles
					}
					c.Env = cmd.Env
					if c.Env == nil {
						c.Env = os.Environ()
					}
					c.Env = slices.DeleteFunc(slices.Clone(c.Env), func(kv string) bool { return strings.HasPrefix(kv, wrapHelperEnv+"=") })
					if parent != "" {
						c.Env = append(c.Env, wrapHelperEnv+"="+parent)
					}
					c.Dir = dir
					if u.cred != nil {
						c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
					}
					c.WaitDelay = time.Second
					out, err := c.CombinedOutput()
					_, statErr := os.Stat(marker)
					t.Logf("argv[0] %q, %s=%q, shell parent %v: %v: %s", arg0, wrapHelperEnv, parent, viaShell, err, escShort(string(out)))
					return statErr == nil
				}
				me := strconv.Itoa(os.Getpid())
				if run("program", me, false) {
					t.Error("ATTACK SUCCEEDED: an ordinary argv[0] ran the helper")
				}
				if run(wrapHelperExe, "", false) {
					t.Error("ATTACK SUCCEEDED: without its variable, the argv ran the helper")
				}
				if run(wrapHelperExe, "1", false) {
					t.Error("ATTACK SUCCEEDED: a variable naming another process ran the helper")
				}
				if run(wrapHelperExe, "", true) {
					t.Error("ATTACK SUCCEEDED: a parent that is another executable ran the helper")
				}
				if !run(wrapHelperExe, me, false) {
					t.Error("control: the re-exec Command makes did not run the helper, so the attacks prove nothing")
				}
			})
		}
	}
}
