package sandbox

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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

// crashAtEnv names the step at which the wrap helper of a Command that
// TestPlaceholderCrashHelper starts kills its caller and itself;
// noTmpfileEnv makes it place its placeholders as on a file system
// without O_TMPFILE. Both are read by this test binary alone, when it runs
// as the wrap helper: a package variable's initializer runs before the
// package's init, which runs the helper.
const (
	crashAtEnv   = "SANDTABLE_TEST_CRASH_AT"
	noTmpfileEnv = "SANDTABLE_TEST_NO_TMPFILE"
)

var _ = crashFromEnv()

func crashFromEnv() bool {
	if len(os.Args) < 2 || os.Args[1] != wrapHelperArg {
		return false
	}
	if step := os.Getenv(crashAtEnv); step != "" {
		crashPoint = func(s string) {
			if s == step {
				syscall.Kill(os.Getppid(), syscall.SIGKILL)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	noTmpfile = os.Getenv(noTmpfileEnv) == "1"
	return true
}

// crashSteps are the steps of a run's placeholders a caller is killed at:
// each crashPoint, in order, and "running" (the command runs: killed when
// it says READY). tempSteps are those of a file system without O_TMPFILE.
var (
	crashSteps = []string{"locked", "record-made", "tmpfiles", "record-durable", "linked", "linked-all",
		"spawned", "running", "ended", "removed", "record-dropped", "released"}
	tempSteps = []string{"temps-made", "temps-durable", "linked"}
	// leftSteps leave placeholders (or their temporary names) behind.
	leftSteps = []string{"linked", "linked-all", "spawned", "running", "ended", "temps-made", "temps-durable"}
)

// TestPlaceholderCrash: a caller killed with SIGKILL at each step of its
// run's placeholders (crashSteps), through NewCmd and through Command (whose
// wrap helper dies with it), and on a file system without O_TMPFILE
// (tempSteps), as root and as the unprivileged user, in a git repository
// that lacks every protected path (.git/hooks, core.hooksPath's .husky and
// an included config among them). After the next spawn in the workspace
// (NewCmd or Command) has planned and run, the workspace is what it was
// before the killed run, byte for byte and in `git status --porcelain
// --ignored`, with what the user did meanwhile: a new file, a placeholder
// left behind that the user filled (.mcp.json) and ones the user replaced
// with a directory (.vscode) and an empty file (.idea) of their own are
// kept. No record is left in
// the journal. A kill at a step that must leave placeholders on the host
// is checked to have left them, so the repair is what removed them.
func TestPlaceholderCrash(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("no git: %v", err)
	}
	type round struct {
		via, step, repair string
		temp              bool
	}
	var rounds []round
	for i, s := range crashSteps {
		repair := []string{"newcmd", "command"}[i%2]
		rounds = append(rounds, round{via: "newcmd", step: s, repair: repair}, round{via: "command", step: s, repair: repair})
	}
	for _, s := range tempSteps {
		rounds = append(rounds, round{via: "newcmd", step: s, repair: "command", temp: true})
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			c := newCrashCaller(t, u)
			for i, r := range rounds {
				if !u.isRoot() && (r.temp || r.via == "command" && i%4 == 3) {
					continue // the unprivileged user: NewCmd's rounds and every other step's Command
				}
				name := fmt.Sprintf("%s-%s", r.via, r.step)
				if r.temp {
					name += "-no-tmpfile"
				}
				t.Run(name, func(t *testing.T) { c.round(t, i, r.via, r.step, r.repair, r.temp) })
			}
		})
	}
}

// crashCaller is one user's copy of the test binary, home and workspaces.
type crashCaller struct {
	u          *escUser
	base, bin  string
	home       string
	journalDir string
}

func newCrashCaller(t *testing.T, u *escUser) *crashCaller {
	t.Helper()
	base := hostDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &crashCaller{u: u, base: base, bin: filepath.Join(base, "sandbox.test"), home: filepath.Join(base, "home")}
	c.journalDir = filepath.Join(c.home, ".local/state", journalSubdir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(c.home, 0o755); err != nil {
		t.Fatal(err)
	}
	c.chown(t, c.home)
	return c
}

func (c *crashCaller) chown(t *testing.T, root string) {
	t.Helper()
	if c.u.cred == nil {
		return
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, c.u.uid, c.u.gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// git runs git in ws as the test process.
func crashGit(t *testing.T, ws string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", ws, "-c", "init.defaultBranch=main", "-c", "safe.directory=*",
		"-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v: %s", args, err, out)
	}
	return string(out)
}

// repo makes a repository with tracked, untracked and ignored files and
// none of the protected paths: no .git/hooks, core.hooksPath naming a
// missing .husky, include.path a missing team.gitconfig.
func (c *crashCaller) repo(t *testing.T, ws string) {
	t.Helper()
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	crashGit(t, ws, "init", "-q")
	for name, content := range map[string]string{"README": "tracked\n", "src/main.go": "package main\n",
		".gitignore": "build/\n", "build/out.o": "ignored\n", "scratch.txt": "untracked\n"} {
		writeFile(t, ws, name, content)
	}
	crashGit(t, ws, "add", "README", "src", ".gitignore")
	crashGit(t, ws, "commit", "-qm", "one")
	if err := os.RemoveAll(filepath.Join(ws, ".git/hooks")); err != nil {
		t.Fatal(err)
	}
	crashGit(t, ws, "config", "core.hooksPath", ".husky")
	crashGit(t, ws, "config", "include.path", "../team.gitconfig")
	c.chown(t, ws)
	crashGit(t, ws, "status", "-s") // the index refreshed before the snapshot
}

// round kills the caller at step, lets the user act, repairs with a
// spawn through repair, and compares the workspace.
func (c *crashCaller) round(t *testing.T, i int, via, step, repair string, temp bool) {
	ws := filepath.Join(c.base, fmt.Sprintf("ws-%d", i))
	c.repo(t, ws)
	want := crashTree(t, ws)
	wantStatus := crashStatus(t, ws)

	out, ws2, err := c.helper(t, ws, via, step, temp)
	if !ws2.Signaled() || ws2.Signal() != syscall.SIGKILL {
		t.Fatalf("the caller was not killed at %s (%v, status %v): output %q", step, err, ws2, out)
	}
	after := crashTree(t, ws)
	var leftover []string
	for p := range after {
		if _, ok := want[p]; !ok {
			leftover = append(leftover, p)
		}
	}
	slices.Sort(leftover)
	t.Logf("killed at %s: left %q", step, leftover)
	if slices.Contains(leftSteps, step) && len(leftover) == 0 {
		t.Errorf("a kill at %s left nothing in the workspace: the step is not where placeholders exist", step)
	}

	// The user, meanwhile: a new file; a leftover .mcp.json filled; a
	// leftover .vscode replaced with a directory of their own, and .idea
	// with an empty file.
	writeFile(t, ws, "notes.txt", "the user's notes\n")
	userStatus := []string{"?? notes.txt"}
	if fi, err := os.Lstat(filepath.Join(ws, ".mcp.json")); err == nil && fi.Mode().IsRegular() {
		os.Chmod(filepath.Join(ws, ".mcp.json"), 0o644)
		if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("{\"the\": \"user's\"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		userStatus = append(userStatus, "?? .mcp.json")
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".vscode")); err == nil && fi.Mode().IsRegular() {
		os.Remove(filepath.Join(ws, ".vscode"))
		writeFile(t, ws, ".vscode/settings.json", "{}\n")
		userStatus = append(userStatus, "?? .vscode/")
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".idea")); err == nil && fi.Mode().IsRegular() {
		// An empty file of the user's own, likely on the inode just freed.
		os.Remove(filepath.Join(ws, ".idea"))
		writeFile(t, ws, ".idea", "")
		userStatus = append(userStatus, "?? .idea")
	}
	c.chown(t, ws)
	mine := crashTree(t, ws)
	for _, p := range []string{"notes.txt", ".mcp.json", ".vscode", ".vscode/settings.json", ".idea"} {
		if e, ok := mine[p]; ok {
			want[p] = e
		}
	}
	if _, ok := want[".mcp.json"]; ok {
		want[".mcp.json"] = mine[".mcp.json"]
	}

	if out, ws3, err := c.helper(t, ws, repair, "", false); err != nil || ws3.ExitStatus() != 0 {
		t.Fatalf("the next spawn (%s): %v, status %v: %q", repair, err, ws3, out)
	}
	got := crashTree(t, ws)
	for p, e := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("after the next spawn %s is gone (want %s)", p, e)
		} else if g != e {
			t.Errorf("after the next spawn %s is %s, want %s", p, g, e)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("after the next spawn %s is left in the workspace (%s)", p, g)
		}
	}
	gotStatus := crashStatus(t, ws)
	wantLines := append(strings.Split(strings.TrimSpace(wantStatus), "\n"), userStatus...)
	slices.Sort(wantLines)
	gotLines := strings.Split(strings.TrimSpace(gotStatus), "\n")
	slices.Sort(gotLines)
	if !slices.Equal(gotLines, wantLines) {
		t.Errorf("git status --porcelain --ignored after the next spawn:\n%s\nwant:\n%s", strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
	}
	if recs, _ := filepath.Glob(filepath.Join(c.journalDir, recordPrefix+"*")); len(recs) != 0 {
		t.Errorf("records left in the journal after the next spawn: %q", recs)
	}
	if left := processesNaming(ws); len(left) > 0 {
		t.Errorf("processes of the killed run still run after the next spawn: %+v", left)
		for _, p := range left {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

type namingProcess struct {
	pid  int
	argv string
}

// processesNaming are the processes with dir, or a path under it, as an
// argument: a sandbox of it, or a bwrap building one.
func processesNaming(dir string) []namingProcess {
	var out []namingProcess
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(data), "\x00") {
			if a == dir || strings.HasPrefix(a, dir+"/") {
				out = append(out, namingProcess{pid, strings.ReplaceAll(string(data), "\x00", " ")[:min(len(data), 120)]})
				break
			}
		}
	}
	return out
}

// helper runs TestPlaceholderCrashHelper as c's user and returns its
// output and status; a step of "running" is killed here once the command
// has said READY.
func (c *crashCaller) helper(t *testing.T, ws, via, step string, temp bool) (string, syscall.WaitStatus, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tmp := "0"
	if temp {
		tmp = "1"
	}
	cmd := exec.CommandContext(ctx, c.bin, "-test.run", "^TestPlaceholderCrashHelper$", "--", "crash-helper", via, step, ws, tmp)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + escPath, "HOME=" + c.home}
	if c.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.u.cred}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if sc.Text() == "READY" && step == "running" {
			cmd.Process.Kill()
		}
	}
	err = cmd.Wait()
	st, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil
	}
	return out.String() + stderr.String(), st, err
}

// TestPlaceholderCrashHelper is a helper process, not a test:
//
//	sandbox.test -test.run '^TestPlaceholderCrashHelper$' -- crash-helper newcmd|command STEP WORKSPACE 0|1
//
// runs a command in WORKSPACE through NewCmd or Command and is killed at
// STEP ("" for none: the next spawn of TestPlaceholderCrash); 1 places
// the placeholders as on a file system without O_TMPFILE.
func TestPlaceholderCrashHelper(t *testing.T) {
	args := flag.Args()
	if len(args) != 5 || args[0] != "crash-helper" {
		t.Skip("a helper process for TestPlaceholderCrash")
	}
	via, step, ws, temp := args[1], args[2], args[3], args[4] == "1"
	noTmpfile = temp
	crashPoint = func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	script := "echo READY"
	if step == "running" {
		script = "echo READY; sleep 20"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	cfg := Config{Workspace: ws, Network: Network{Mode: NetworkOff}}
	var run func() error
	switch via {
	case "newcmd":
		c, err := NewCmd(ctx, cfg, "sh", "-c", script)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		run = c.Run
	case "command":
		c, err := Command(ctx, cfg, "sh", "-c", script)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		c.Env = append(c.Env, crashAtEnv+"="+step)
		if temp {
			c.Env = append(c.Env, noTmpfileEnv+"=1")
		}
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		run = c.Run
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

// crashTree is every entry under ws but the directories' times: its type
// and permissions, and a file's size and content's hash or a link's
// target.
func crashTree(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e += fmt.Sprintf(" %d %x", len(data), sha256.Sum256(data))
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			e += " -> " + l
		}
		out[rel] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func crashStatus(t *testing.T, ws string) string {
	t.Helper()
	return crashGit(t, ws, "status", "--porcelain", "--ignored")
}
