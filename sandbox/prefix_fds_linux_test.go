package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPrefixStrayDescriptor: a caller of Prefix runs the argv itself, with
// exec.Cmd, which passes every descriptor the process holds without
// close-on-exec; one it inherited that way (a shell's 9<dir, a parent's
// leak) reaches the wrap helper, which passes its descriptors on, and
// bwrap, which closes none: a directory descriptor leads out of every
// mount the sandbox makes. The attack holds one for a host directory
// outside the workspace and has the command write through
// /proc/self/fd/N. Prefix marks such descriptors close-on-exec, as Command
// does; the control clears the flag again after Prefix returned, and the
// write lands. As root and unprivileged.
func TestPrefixStrayDescriptor(t *testing.T) {
	requireBwrap(t)
	base := sharedBase(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			u.spawnAs(t)
			ws := wrapHelperWorkspace(t, base, u)
			run := func(name string, undo bool) bool {
				t.Helper()
				outside := mkdir(t, base, name+"-"+u.label)
				if err := os.Chown(outside, u.uid, u.gid); err != nil {
					t.Fatal(err)
				}
				// The stray: no close-on-exec, and above the wrapper's
				// own descriptors, which ExtraFiles places from 3.
				low, err := syscall.Open(outside, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
				if err != nil {
					t.Fatal(err)
				}
				fd, err := unix.FcntlInt(uintptr(low), unix.F_DUPFD, 200)
				syscall.Close(low)
				if err != nil {
					t.Fatal(err)
				}
				defer syscall.Close(fd)
				cfg := Config{Workspace: ws, Policy: Required, NoCache: u.cred != nil, Network: Network{Mode: NetworkOff}}
				w, err := Prefix(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if undo {
					if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
						t.Fatal(err)
					}
				}
				files, owned, err := openFiles(w.Files)
				if err != nil {
					t.Fatal(err)
				}
				defer closeAll(owned)
				script := "echo planted > /proc/self/fd/" + strconv.Itoa(fd) + "/planted"
				c := exec.Command(w.Program, append(append([]string{}, w.Args...), "/bin/sh", "-c", script)...)
				c.Env = commandEnv(cfg, os.Environ(), w.Env)
				c.ExtraFiles = files
				if u.cred != nil {
					c.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
				}
				var out bytes.Buffer
				c.Stdout, c.Stderr = &out, &out
				c.WaitDelay = time.Second
				err = c.Run()
				_, statErr := os.Stat(filepath.Join(outside, "planted"))
				t.Logf("%s: %v: %s", name, err, escShort(out.String()))
				return statErr == nil
			}
			if run("attack", false) {
				t.Error("ATTACK SUCCEEDED: a descriptor this process inherited without close-on-exec reached the command through Prefix's argv, which wrote outside the workspace")
			}
			if !run("control", true) {
				t.Error("control: with the flag cleared after Prefix, the command did not write through the descriptor, so the attack proves nothing")
			}
		})
	}
}
