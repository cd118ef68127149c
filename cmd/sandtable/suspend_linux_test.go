package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestSuspendStopsSandbox is the attack on a ^Z: a command that keeps
// reading the terminal (cat, in its own session without --interactive)
// would, once sandtable is stopped, read what the user types at the shell
// next. Under a real pseudo-terminal, with an interactive bash as the
// session's shell, for root and an unprivileged caller: sandtable run is
// started and suspended with ^Z, a line is typed at the shell, which must
// run it (the sandbox got none of it), and fg must resume the command,
// which then gets the next line and prints after it. The control is the
// same binary built without the watch section's suspend row
// (sandtable_control_nosuspend): the sandbox reads the line typed at the
// shell.
func TestSuspendStopsSandbox(t *testing.T) {
	requireBwrap(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("an interactive bash is needed: %v", err)
	}
	control := filepath.Join(t.TempDir(), "sandtable-control")
	build := exec.Command("go", "build", "-tags", "sandtable_control_nosuspend", "-o", control, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the control: %v\n%s", err, out)
	}
	for _, u := range termUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			for _, c := range []struct {
				name, from string
				control    bool
				flags      string
				script     string
			}{
				{"fixed", bin, false, "", catScript},
				{"fixed, interactive", bin, false, " --interactive", catScript},
				{"control", control, true, "", catScript},
				{"forking, fixed", bin, false, "", forkScript},
				{"forking, control", control, true, "", forkScript},
			} {
				t.Run(c.name, func(t *testing.T) {
					e := newEnv(t)
					root := filepath.Dir(e.ws)
					prog := filepath.Join(root, "sandtable")
					copyFile(t, c.from, prog)
					for _, p := range []string{root, e.home, e.ws, prog} {
						os.Chmod(p, 0o755)
						if u.cred != nil {
							os.Chown(p, int(u.cred.Uid), int(u.cred.Gid))
						}
					}
					suspendAttack(t, u, e, bash, prog, c.flags, c.script, c.control)
				})
			}
		})
	}
}

// The commands attacking the terminal, as typed at the shell: the quotes
// keep the words the checks look for out of the echo of the typed lines.
// forkScript starts a new reader every 20ms, so that some are forked
// while the sandbox is being stopped; it is not resumed.
const (
	catScript  = `'echo st""arted; cat > stolen; echo e""nded'`
	forkScript = `'exec 3<&0; echo st""arted; while :; do cat <&3 >> stolen & sleep 0.02; done'`
)

// suspendAttack drives the attack from the shell on the terminal, with
// flags (each with a leading space) after prog's run.
func suspendAttack(t *testing.T, u termUser, e *env, bash, prog, flags, script string, control bool) {
	master, slave := openPty(t)
	defer master.Close()
	if u.cred != nil {
		os.Chown(slave.Name(), int(u.cred.Uid), int(u.cred.Gid))
	}
	sh := exec.Command(bash, "--norc", "--noprofile", "-i")
	sh.Dir, sh.Env = e.ws, append(e.environ(), "PS1=$ ", "TERM=dumb")
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: u.cred}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	term := testkit.CaptureFrom(master)
	// Whatever happens, nothing outlives the test: the shell's session
	// (bash, sandtable, bwrap and the sandbox) is killed.
	defer func() {
		for _, pid := range sessionPids(sh.Process.Pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		sh.Wait()
	}()
	output := term.String
	waitFor := func(what string, ok func() bool) bool {
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ok() {
				return true
			}
		}
		if !control {
			t.Errorf("%s: not within 15s; terminal so far %q", what, output())
		}
		return false
	}
	typed := func(s string) { master.Write([]byte(s)) }
	stolen := filepath.Join(e.ws, "stolen")
	shellGot := filepath.Join(e.ws, "shell-got")
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }

	typed("'" + prog + "' run" + flags + " --network off -- sh -c " + script + "\n")
	if !waitFor("the command starts", func() bool { return strings.Contains(output(), "started") }) {
		t.Fatalf("the command did not start: %q", output())
	}
	time.Sleep(200 * time.Millisecond) // cat is reading
	typed("\x1a")
	if !waitFor("bash reports the job stopped", func() bool { return strings.Contains(output(), "Stopped") }) {
		t.Fatalf("^Z did not stop the run: %q", output())
	}
	typed("echo hun''ter2 > shell-got\n")
	if control {
		if waitFor("", func() bool { return read(stolen) != "" }) {
			t.Logf("control: the sandbox read %q typed at the shell after ^Z (the shell got %q)", read(stolen), read(shellGot))
			return
		}
		t.Fatalf("control: without the suspend row the sandbox did not read the shell's input (stolen %q, shell got %q; terminal %q)", read(stolen), read(shellGot), output())
	}
	waitFor("the shell runs the line typed after ^Z", func() bool { return read(shellGot) == "hunter2\n" })
	if s := read(stolen); s != "" {
		t.Fatalf("after ^Z the sandbox read %q typed at the shell", s)
	}
	if script == forkScript {
		return
	}
	typed("fg\n")
	time.Sleep(300 * time.Millisecond)
	typed("after fg\n\x04")
	waitFor("fg resumes the command, which prints after cat", func() bool { return strings.Contains(output(), "ended") })
	if s := read(stolen); s != "after fg\n" {
		t.Errorf("after fg the command read %q, want %q", s, "after fg\n")
	}
	typed("echo exit-$?\n")
	waitFor("sandtable exits 0", func() bool { return strings.Contains(output(), "exit-0") })
}

// sessionPids lists the processes of pid's session and their descendants
// (bwrap's sandbox runs in sessions of its own).
func sessionPids(sid int) []int {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 5 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
		if f[3] == strconv.Itoa(sid) {
			out = append(out, pid)
		}
	}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}
