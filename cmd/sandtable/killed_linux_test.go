package main

import (
	"bufio"
	"crypto/sha256"
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

// TestRunKilled: sandtable run killed with SIGKILL at delays spread over
// its spawn and its command's run (and once the command has said READY),
// as root and as the unprivileged user, in a git repository that lacks
// every protected path. Once the next `sandtable run` in the workspace or
// `sandtable probe` has run, the workspace is what it was before the killed
// run, byte for byte and in `git status --porcelain --ignored`, with the
// file the user made meanwhile kept; before it, the kill once the command
// runs has left placeholders there, so the repair is what removed them.
// TestPlaceholderCrash (package sandbox) kills library callers at each
// step by name.
func TestRunKilled(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("no git: %v", err)
	}
	delays := []time.Duration{0, 2, 4, 6, 8, 11, 14, 18, 24, 32, 45, -1} // ms; -1: at READY
	for _, u := range callers(t) {
		t.Run(u.label, func(t *testing.T) {
			e := newEnv(t)
			exe := u.own(t, e)
			for i, d := range delays {
				if !u.root && i%2 == 1 && d >= 0 {
					continue // the unprivileged user: every other delay
				}
				repair := []string{"run", "probe"}[i%2]
				name := fmt.Sprintf("%dms-then-%s", d, repair)
				if d < 0 {
					name = "ready-then-" + repair
				}
				t.Run(name, func(t *testing.T) {
					ws := filepath.Join(filepath.Dir(e.home), fmt.Sprintf("ws-%d", i))
					killedRepo(t, ws, u)
					want, wantStatus := killedTree(t, ws), killedGit(t, ws, "status", "--porcelain", "--ignored")
					cmd := exec.Command(exe, "run", "--network", "off", "--", "sh", "-c", "echo READY; sleep 0.05")
					cmd.Dir, cmd.Env, cmd.SysProcAttr = ws, e.environ(), u.attr()
					stdout, err := cmd.StdoutPipe()
					if err != nil {
						t.Fatal(err)
					}
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					if d >= 0 {
						time.AfterFunc(d*time.Millisecond, func() { cmd.Process.Kill() })
					}
					sc := bufio.NewScanner(stdout)
					for sc.Scan() {
						if sc.Text() == "READY" && d < 0 {
							cmd.Process.Kill()
						}
					}
					cmd.Wait()
					var left []string
					for p := range killedTree(t, ws) {
						if _, ok := want[p]; !ok {
							left = append(left, p)
						}
					}
					slices.Sort(left)
					t.Logf("%s: left %q", cmd.ProcessState, left)
					if d < 0 && len(left) == 0 {
						t.Errorf("killed while the command ran, sandtable run left no placeholder: the kill came too late to test anything")
					}

					writeFileAs(t, filepath.Join(ws, "notes.txt"), "the user's notes\n", u)
					want["notes.txt"] = killedTree(t, ws)["notes.txt"]
					var r result
					if repair == "probe" {
						r = runAs(t, e, exe, u, filepath.Dir(e.home), "probe")
					} else {
						r = runAs(t, e, exe, u, ws, "run", "--network", "off", "--", "true")
					}
					if r.code != 0 {
						t.Fatalf("sandtable %s: exit %d: %s%s", repair, r.code, r.stdout, r.stderr)
					}
					got := killedTree(t, ws)
					for p, w := range want {
						if got[p] != w {
							t.Errorf("after sandtable %s, %s is %q, want %q", repair, p, got[p], w)
						}
					}
					for p, g := range got {
						if _, ok := want[p]; !ok {
							t.Errorf("after sandtable %s, %s is left in the workspace (%s)", repair, p, g)
						}
					}
					wantLines := append(strings.Split(strings.TrimSpace(wantStatus), "\n"), "?? notes.txt")
					slices.Sort(wantLines)
					gotLines := strings.Split(strings.TrimSpace(killedGit(t, ws, "status", "--porcelain", "--ignored")), "\n")
					slices.Sort(gotLines)
					if !slices.Equal(gotLines, wantLines) {
						t.Errorf("git status --porcelain --ignored after sandtable %s:\n%s\nwant:\n%s", repair, strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
					}
					if left := naming(ws); len(left) > 0 {
						t.Errorf("after sandtable %s, processes of the killed run still run: %d", repair, left)
						for _, pid := range left {
							syscall.Kill(pid, syscall.SIGKILL)
						}
					}
				})
			}
		})
	}
}

// naming are the processes with dir, or a path under it, as an argument:
// a sandbox of it, or a bwrap building one.
func naming(dir string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		for _, a := range strings.Split(string(data), "\x00") {
			if a == dir || strings.HasPrefix(a, dir+"/") {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// runAs runs the sandtable copy exe as u in dir.
func runAs(t *testing.T, e *env, exe string, u caller, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, e.environ(), u.attr()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("sandtable %q: %v", args, err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

func writeFileAs(t *testing.T, p, content string, u caller) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if !u.root {
		if err := os.Chown(p, int(u.uid), int(u.gid)); err != nil {
			t.Fatal(err)
		}
	}
}

func killedGit(t *testing.T, ws string, args ...string) string {
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

// killedRepo makes ws a repository u owns, with tracked, untracked and
// ignored files and no protected path (no .git/hooks; core.hooksPath and
// include.path name missing ones).
func killedRepo(t *testing.T, ws string, u caller) {
	t.Helper()
	for name, content := range map[string]string{"README": "tracked\n", "src/main.go": "package main\n",
		".gitignore": "build/\n", "build/out.o": "ignored\n", "scratch.txt": "untracked\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	killedGit(t, ws, "init", "-q")
	killedGit(t, ws, "add", "README", "src", ".gitignore")
	killedGit(t, ws, "commit", "-qm", "one")
	if err := os.RemoveAll(filepath.Join(ws, ".git/hooks")); err != nil {
		t.Fatal(err)
	}
	killedGit(t, ws, "config", "core.hooksPath", ".husky")
	killedGit(t, ws, "config", "include.path", "../team.gitconfig")
	if !u.root {
		err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, int(u.uid), int(u.gid))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	killedGit(t, ws, "status", "-s") // the index refreshed before the snapshot
}

// killedTree is every entry under ws but the directories' times: type and
// permissions, and a file's size and content's hash or a link's target.
func killedTree(t *testing.T, ws string) map[string]string {
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
		v := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %d %x", len(data), sha256.Sum256(data))
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
