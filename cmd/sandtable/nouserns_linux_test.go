package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
)

var launcher struct {
	once sync.Once
	path string
	err  error
}

// nousernsLauncher builds the simulations' launcher once, beside bin
// (TestMain removes the directory).
func nousernsLauncher(t *testing.T) string {
	t.Helper()
	launcher.once.Do(func() { launcher.path, launcher.err = testkit.BuildNoUserns(filepath.Dir(bin)) })
	if launcher.err != nil {
		t.Fatal(launcher.err)
	}
	return launcher.path
}

// simRun runs sandtable with args as u inside simulation sim (a copy of
// the binary and of the launcher u can run), in e.
func simRun(t *testing.T, e *env, u caller, sim string, args ...string) result {
	t.Helper()
	prog := u.own(t, e)
	nu := filepath.Join(filepath.Dir(prog), "nouserns")
	if _, err := os.Stat(nu); err != nil {
		data, err := os.ReadFile(nousernsLauncher(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(nu, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	uid, gid := -1, -1
	var attr *syscall.SysProcAttr
	switch {
	case sim == testkit.SimHardened && !u.self:
		uid, gid = int(u.uid), int(u.gid) // the launcher switches inside its namespace
	default:
		attr = u.attr()
	}
	argv := testkit.SimArgs(nu, sim, uid, gid, append([]string{prog}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = e.ws, e.environ(), attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%q: %v", argv, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// TestDiagnoseSimulated runs sandtable where user namespaces cannot be
// made, as root and as the unprivileged user: in a container under
// Docker's default seccomp profile and on a kernel whose limit is 0
// (internal/nouserns). Whatever fails first (the network helper in the
// default mode, bwrap in mode off), run and probe name the cause the
// table's diagnose row gives for it and its fix, and nothing that is not
// the cause there: the unprivileged_userns_clone switch this kernel lacks,
// the sysctls that allow them, another network mode (which fails too), or
// ENOSPC's words alone. The control: the same commands outside the
// simulation work.
func TestDiagnoseSimulated(t *testing.T) {
	requireBwrap(t)
	for _, sim := range []struct {
		name  string
		cause string // the row's says, in part
		fix   string
		not   []string
	}{
		{testkit.SimDocker, "this container's seccomp filter refuses to create user namespaces", "--security-opt seccomp=PROFILE.json",
			[]string{"user.max_user_namespaces=", "sysctl -w"}},
		{testkit.SimHardened, "the limit on user namespaces is 0 here", "sudo sysctl -w user.max_user_namespaces=65536",
			[]string{"seccomp"}},
	} {
		for _, u := range callers(t) {
			t.Run(sim.name+"/"+u.label, func(t *testing.T) {
				e := newEnv(t)
				for _, args := range [][]string{
					{"run", "--", "true"},
					{"run", "--network", "off", "--", "true"},
					{"run", "--network", "host", "--", "true"},
					{"probe"},
				} {
					r := simRun(t, e, u, sim.name, args...)
					out := r.stdout + r.stderr
					want := 125
					if args[0] == "probe" {
						want = 1
					}
					if r.code != want {
						t.Errorf("%q: exit %d, want %d:\n%s", args, r.code, want, out)
					}
					for _, w := range []string{"cause: " + sim.cause, "fix: ", sim.fix, "ASTRID_SANDBOX_POLICY=off"} {
						if !strings.Contains(out, w) {
							t.Errorf("%q: lacks %q:\n%s", args, w, out)
						}
					}
					for _, w := range append([]string{"unprivileged_userns_clone", "--network off or host", "choose --network"}, sim.not...) {
						if strings.Contains(out, w) {
							t.Errorf("%q: names %q, which is not the cause here:\n%s", args, w, out)
						}
					}
				}
				// The control: outside the simulation the sandbox works.
				cmd := exec.Command(u.own(t, e), "run", "--", "true")
				cmd.Dir, cmd.Env, cmd.SysProcAttr = e.ws, e.environ(), u.attr()
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("control: outside the simulation: %v: %s", err, out)
				}
			})
		}
	}
}

// TestReducedSimulated runs sandtable where user namespaces cannot be
// made, as root and as the unprivileged user: --backend landlock and
// --backend auto run the command, each saying so in one line; without
// --backend (bwrap, the default) the run is refused with the diagnosis,
// which names the reduced backend as a fix, and nothing ran: Required
// never moves to the reduced backend by itself. The same through the
// operator's variable.
func TestReducedSimulated(t *testing.T) {
	requireBwrap(t)
	const say = "sandtable: reduced sandbox (backend landlock"
	for _, sim := range []string{testkit.SimDocker, testkit.SimHardened} {
		for _, u := range callers(t) {
			t.Run(sim+"/"+u.label, func(t *testing.T) {
				e := newEnv(t)
				for _, c := range []struct {
					args []string
					vars []string
					ran  bool
				}{
					{[]string{"run", "--backend", "landlock", "--network", "off", "--", "sh", "-c", "echo RAN"}, nil, true},
					{[]string{"run", "--backend", "auto", "--", "sh", "-c", "echo RAN"}, nil, true},
					{[]string{"run", "--", "sh", "-c", "echo RAN"}, []string{"ASTRID_SANDBOX_BACKEND=landlock"}, true},
					{[]string{"run", "--", "sh", "-c", "echo RAN"}, nil, false},
					{[]string{"run", "--backend", "bwrap", "--", "sh", "-c", "echo RAN"}, []string{"ASTRID_SANDBOX_BACKEND=landlock"}, false},
				} {
					e.vars = c.vars
					r := simRun(t, e, u, sim, c.args...)
					out := r.stdout + r.stderr
					if c.ran {
						if r.code != 0 || !strings.Contains(r.stdout, "RAN") || strings.Count(r.stderr, say) != 1 {
							t.Errorf("%q %v: exit %d, want RAN and one line saying so:\n%s", c.args, c.vars, r.code, out)
						}
						continue
					}
					if r.code != 125 || strings.Contains(out, "RAN") || strings.Contains(out, say) || !strings.Contains(out, "or use the reduced backend") {
						t.Errorf("%q %v: exit %d, want 125, nothing run, and the reduced backend named as a fix:\n%s", c.args, c.vars, r.code, out)
					}
				}
			})
		}
	}
}

// TestReducedOldDocker: under an older Docker profile, which refuses the
// landlock_* calls with EPERM, the reduced backend is unavailable (125,
// its reason), and the diagnosis of bwrap's failure does not offer it.
func TestReducedOldDocker(t *testing.T) {
	requireBwrap(t)
	e := newEnv(t)
	u := callers(t)[0]
	prog := u.own(t, e)
	for _, c := range []struct {
		args []string
		want string
		not  string
	}{
		{[]string{"run", "--backend", "landlock", "--", "true"}, "a seccomp filter refuses its system calls", "reduced sandbox"},
		{[]string{"run", "--", "true"}, "cause: this container's seccomp filter", "or use the reduced backend"},
	} {
		cmd := exec.Command(nousernsLauncher(t), append([]string{"-env", "docker", "-old-docker", "--", prog}, c.args...)...)
		cmd.Dir, cmd.Env = e.ws, e.environ()
		out, err := cmd.CombinedOutput()
		if err == nil || cmd.ProcessState.ExitCode() != 125 || !strings.Contains(string(out), c.want) || strings.Contains(string(out), c.not) {
			t.Errorf("%q: %v, want 125, %q and not %q:\n%s", c.args, err, c.want, c.not, out)
		}
	}
}

// TestReducedToolsSimulated: under --backend landlock, in both
// simulations, as root and as the unprivileged user, npm install (a
// package from the registry, through the proxy), go build and git commit
// work, and leave what they make in the workspace. It fetches from the npm
// registry: not in -short, and a skip when the registry is not reachable.
func TestReducedToolsSimulated(t *testing.T) {
	requireBwrap(t)
	if testing.Short() {
		t.Skip("fetches from the npm registry; not in -short")
	}
	for _, tool := range []string{"npm", "go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	script := `set -e
printf 'package main\nimport "fmt"\nfunc main() { fmt.Println("BUILT-AND-RAN") }\n' > main.go
printf 'module example.com/t\ngo 1.22\n' > go.mod
go build -o app . && ./app
npm install --no-audit --no-fund --no-update-notifier is-number@7.0.0 >npm.log 2>&1 || { tail -5 npm.log; echo NPM-FAILED; }
git init -q . && git add main.go go.mod && git -c user.email=t@example.com -c user.name=t commit -qm init && git log --oneline | grep -q init && echo COMMITTED`
	for _, sim := range []string{testkit.SimDocker, testkit.SimHardened} {
		for _, u := range callers(t) {
			t.Run(sim+"/"+u.label, func(t *testing.T) {
				e := newEnv(t)
				r := simRun(t, e, u, sim, "run", "--backend", "landlock", "--", "bash", "-c", script)
				out := r.stdout + r.stderr
				if strings.Contains(out, "NPM-FAILED") && strings.Contains(out, "ENOTFOUND") {
					t.Skipf("the npm registry is not reachable: %s", out)
				}
				for _, want := range []string{"BUILT-AND-RAN", "COMMITTED"} {
					if r.code != 0 || !strings.Contains(out, want) {
						t.Errorf("exit %d, lacks %s:\n%s", r.code, want, out)
					}
				}
				if strings.Contains(out, "NPM-FAILED") {
					t.Errorf("npm install failed:\n%s", out)
				}
				if _, err := os.Stat(filepath.Join(e.ws, "node_modules", "is-number", "package.json")); err != nil {
					t.Errorf("npm install left no package: %v", err)
				}
			})
		}
	}
}
