//go:build linux

package sandbox

// The escape suite against the reduced backend (Config.Backend
// BackendLandlock): each attempt runs through Command under that backend,
// as root and as the unprivileged user, and must fail, unless it is a
// documented loss: its lost field names a row whose landlock column says
// weaker or lost (docs/POLICY.md, "Each guarantee under both backends"),
// and the table below shows it as such, never as a skip. Each attempt has
// its control: the same script outside any sandbox, as the same user,
// must succeed, so that a script that is broken cannot pass. Where the
// environment itself refuses the control (a simulation refuses namespaces
// to everyone), the table says n/a and why.
//
// TestLandlockEscape runs the suite here; TestLandlockEscapeSimulated runs
// it again inside both simulations of internal/nouserns (a container under
// Docker's default seccomp profile, a kernel whose user-namespace limit is
// 0), where the reduced backend is meant to run.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandtable/sandtable/internal/testkit"
)

// llSimEnv names the simulation a re-executed test binary runs in.
const llSimEnv = "SANDTABLE_TEST_LANDLOCK_SIM"

// llAttempt is one attack on the reduced backend.
type llAttempt struct {
	name   string
	script string
	// setup makes the attempt's fixtures (and sets e.secret); before runs
	// right before each run, after once it ended.
	setup func(e *llEnv)
	// lost is the row whose landlock column documents this escape.
	lost string
	// root: the kernel refuses the control to a caller that is not root.
	root bool
	// simCtl: in a simulation the control may fail, refused by the
	// simulation itself (its namespaces); the table says so.
	simCtl bool
	// escaped reads a run's result; by default the secret in the output.
	escaped func(e *llEnv, out string) bool
	needs   []string
	// rawEnvCtl: the control gets this process's environment as it is,
	// not stripped (an attempt on the strip-env rows).
	rawEnvCtl bool
	// rows are the landlock rows that stop it: the second control runs
	// the sandbox without them (landlockDropRows), and must escape.
	rows []string
}

// llEnv is one attempt's fixture for one user.
type llEnv struct {
	*escPass
	t             *testing.T
	a             *llAttempt
	dir, ws, out  string
	cfg           Config
	vars          map[string]string
	secret        string
	before, after func()
	cleanup       []func()
}

// defer_ runs f when the attempt ends, after the runs.
func (e *llEnv) defer_(f func()) { e.cleanup = append(e.cleanup, f) }

// run runs the script in the sandbox (sandboxed) or outside it, as the
// pass's user, and returns its output.
func (e *llEnv) run(sandboxed bool) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.t.Context(), 30*time.Second)
	defer cancel()
	if e.before != nil {
		e.before()
	}
	script := "echo " + escRan + "\n" + e.a.script
	var cmd *exec.Cmd
	if sandboxed {
		c, err := Command(ctx, e.cfg, "bash", "-c", script)
		if err != nil {
			e.t.Fatalf("Command: %v", err)
		}
		if len(c.Args) < 2 || c.Args[1] != landlockHelperArg {
			e.t.Fatalf("not the landlock helper: %q", c.Args)
		}
		cmd = c
	} else {
		cmd = exec.CommandContext(ctx, e.bash, "-c", script)
		cmd.Env = stripEnv(os.Environ())
		if e.a.rawEnvCtl {
			cmd.Env = os.Environ()
		}
		cmd.Dir = e.ws
	}
	env := make([]string, 0, len(cmd.Env)+len(e.vars)+2)
	for _, kv := range cmd.Env {
		k, _, _ := strings.Cut(kv, "=")
		if _, mine := e.vars[k]; !mine && k != "PATH" {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+escPath)
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	if e.after != nil {
		e.after()
	}
	return b.String()
}

func (e *llEnv) didEscape(out string) bool {
	if e.a.escaped != nil {
		return e.a.escaped(e, out)
	}
	return e.secret != "" && strings.Contains(out, e.secret)
}

// uidMapped reports whether uid has a mapping in this process's user
// namespace (/proc/self/uid_map).
func uidMapped(uid uint32) bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		var in, out, n uint64
		if _, err := fmt.Sscan(l, &in, &out, &n); err == nil && uint64(uid) >= in && uint64(uid) < in+n {
			return true
		}
	}
	return false
}

// llSim is the simulation this process runs in, "" for none.
func llSim() string { return os.Getenv(llSimEnv) }

func TestLandlockEscape(t *testing.T) {
	requireLandlock(t)
	if sim := llSim(); sim != "" {
		checkInSim(t, sim)
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			if u.cred != nil && !uidMapped(u.cred.Uid) {
				// A simulation started by a caller who is not root maps
				// that caller alone.
				t.Skipf("uid %d is not mapped in this user namespace (the simulation's caller is not root)", u.cred.Uid)
			}
			p, restore := newEscPass(t, u)
			defer restore()
			tb := newEscTable()
			for _, a := range llAttempts {
				t.Run(a.name, func(t *testing.T) {
					tb.set(a.name, u.label, runLLAttempt(t, p, a))
				})
			}
			t.Logf("reduced backend (landlock), sim %q, %s:\n%s", llSim(), u.label, tb)
		})
	}
}

// runLLAttempt runs one attempt and its control, and returns the table's
// cell.
func runLLAttempt(t *testing.T, p *escPass, a *llAttempt) string {
	for _, tool := range a.needs {
		if escLook(tool) == "" {
			t.Skipf("%s is not on %s", tool, escPath)
		}
	}
	if a.lost != "" {
		if c := llColumn(a.lost); c != "weaker" && c != "lost" {
			t.Fatalf("%s: row %s's landlock column is %q: an escape it allows must be documented as weaker or lost", a.name, a.lost, c)
		}
	}
	e := &llEnv{escPass: p, t: t, a: a}
	e.dir = filepath.Join(p.base, "ll-"+a.name)
	e.ws = filepath.Join(e.dir, "ws")
	e.out = filepath.Join(e.dir, "out")
	for _, d := range []string{e.dir, e.ws, e.out} {
		p.escMkdir(t, d, 0o755)
	}
	e.cfg = Config{Workspace: e.ws, NoCache: p.u.cred != nil, Backend: BackendLandlock}
	e.vars = map[string]string{"WS": e.ws, "OUT": e.out, "PY": p.py, "SSH_KEY": p.sshKey}
	defer func() {
		for i := len(e.cleanup) - 1; i >= 0; i-- {
			e.cleanup[i]()
		}
	}()
	if a.setup != nil {
		a.setup(e)
	}
	if a.root && !p.u.isRoot() {
		return "n/a: needs uid 0"
	}
	got := e.run(true)
	if !strings.Contains(got, escRan) {
		t.Fatalf("the sandboxed script never ran:\n%s", got)
	}
	escaped := e.didEscape(got)
	ctl := e.run(false)
	ctlNote := ""
	if !e.didEscape(ctl) {
		if a.simCtl && llSim() != "" {
			ctlNote = " (control n/a: the simulation refuses it outside the sandbox too)"
		} else {
			t.Errorf("control: the attempt does not work outside the sandbox either, so it proves nothing:\n%s", ctl)
		}
	}
	if len(a.rows) > 0 && !(a.simCtl && llSim() != "") {
		for _, r := range a.rows {
			landlockDropRows[r] = true
		}
		out := e.run(true)
		clear(landlockDropRows)
		if !e.didEscape(out) {
			t.Errorf("control without %v: still blocked, so those rows are not what stops it:\n%s", a.rows, out)
		} else {
			ctlNote += " (escapes without " + strings.Join(a.rows, ", ") + ")"
		}
	}
	switch {
	case escaped && a.lost != "":
		return "LOST (" + a.lost + ")" + ctlNote
	case escaped:
		t.Errorf("ESCAPED under the reduced backend:\n%s", got)
		return "ESCAPED" + ctlNote
	}
	return "blocked" + ctlNote
}

// llColumn is a row's landlock column.
func llColumn(rule string) string {
	for _, c := range backendColumn {
		if c.rule == rule {
			return c.enforce
		}
	}
	return ""
}

// checkInSim fails unless this process really runs in simulation sim.
func checkInSim(t *testing.T, sim string) {
	t.Helper()
	switch sim {
	case testkit.SimDocker:
		status, _ := os.ReadFile("/proc/self/status")
		if !strings.Contains(string(status), "Seccomp:\t2") || testClone() == nil {
			t.Fatalf("%s=%s, but no seccomp filter refuses a user namespace here", llSimEnv, sim)
		}
	case testkit.SimHardened:
		if b, _ := os.ReadFile("/proc/sys/user/max_user_namespaces"); strings.TrimSpace(string(b)) != "0" {
			t.Fatalf("%s=%s, but user.max_user_namespaces is %q", llSimEnv, sim, b)
		}
	default:
		t.Fatalf("%s=%q: unknown simulation", llSimEnv, sim)
	}
}

// TestLandlockEscapeSimulated runs TestLandlockEscape again, in a copy of
// this test binary started inside each simulation, and fails when it
// does. In the docker simulation bwrap itself cannot run (the control of
// the simulation: TestDiagnoseSimulated), so the reduced backend is the
// only sandbox there.
func TestLandlockEscapeSimulated(t *testing.T) {
	requireLandlock(t)
	if llSim() != "" {
		t.Skip("already in a simulation")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	launcher, err := testkit.BuildNoUserns(dir)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sim := range []string{testkit.SimDocker, testkit.SimHardened} {
		t.Run(sim, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			argv := testkit.SimArgs(launcher, sim, -1, -1, self, "-test.run", "^TestLandlockEscape$", "-test.count=1", "-test.v")
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), llSimEnv+"="+sim)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestLandlockEscape") {
				t.Fatalf("inside %s: %v\n%s", sim, err, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "|") || strings.Contains(l, "reduced backend") {
					t.Log(l)
				}
			}
		})
	}
}

// llServe listens on ln and writes msg to each connection.
func llServe(e *llEnv, ln net.Listener, msg string) {
	if ul, ok := ln.(*net.UnixListener); ok {
		// The file stays until the pass's directory goes (see
		// socketGrace): another test binary's spawn may have listed it.
		ul.SetUnlinkOnClose(false)
		e.sockets.Store(true)
	}
	e.defer_(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(msg + "\n"))
			c.Close()
		}
	}()
}

// llVictim starts a process of the pass's user outside the sandbox, for
// attempts on processes outside it: bash, holding descriptor 3 on file
// when it is not "", with args after its script.
func llVictim(e *llEnv, env []string, file string, args ...string) int {
	e.t.Helper()
	script := "sleep 60; :" // not the last command: bash would exec it, with argv of its own
	if file != "" {
		script = "exec 3<" + file + "; sleep 60; :"
	}
	cmd := exec.Command(e.bash, append([]string{"-c", script}, args...)...)
	cmd.Env = env
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.defer_(func() { cmd.Process.Kill(); cmd.Wait() })
	time.Sleep(50 * time.Millisecond)
	return cmd.Process.Pid
}

// blockDevice is a device of this machine's that this process may open
// and the reduced backend does not grant: a disk, a loop device, a
// console's screen. "" without one.
func blockDevice() string {
	for _, d := range []string{"vda", "sda", "nvme0n1", "xvda", "loop0", "vcs"} {
		f, err := os.Open("/dev/" + d)
		if err == nil {
			f.Close()
			return "/dev/" + d
		}
	}
	return ""
}

// leftover reports whether a process whose command line holds marker is
// running, and kills it.
func leftover(marker string) bool {
	found := false
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		b, err := os.ReadFile("/proc/" + en.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(marker)) {
			found = true
			var pid int
			fmt.Sscan(en.Name(), &pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return found
}
