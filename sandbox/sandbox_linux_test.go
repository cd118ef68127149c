package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSandboxWorkspaceWriteLands(t *testing.T) {
	_, _, ws := fixture(t)
	out, err := inSandbox(t, Config{Workspace: ws}, `pwd; echo landed > out.txt`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.TrimSpace(out) != ws {
		t.Errorf("working directory %q, want the workspace %s", out, ws)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(got) != "landed\n" {
		t.Errorf("write inside the workspace did not land on the host: %q, %v", got, err)
	}
}

func TestSandboxWritesOutsideFail(t *testing.T) {
	base, home, ws := fixture(t)
	etcFile := "/etc/sandtable-test-" + strconv.Itoa(os.Getpid())
	homeFile := filepath.Join(home, "planted")

	for _, target := range []string{etcFile, homeFile, filepath.Join(base, "beside-ws")} {
		out, err := inSandbox(t, Config{Workspace: ws}, `echo x > "`+target+`"`)
		if err == nil {
			os.Remove(target)
			t.Errorf("write to %s succeeded inside the sandbox", target)
			continue
		}
		if !strings.Contains(out, "Read-only file system") {
			t.Errorf("write to %s failed for the wrong reason: %s", target, out)
		}
		if _, err := os.Lstat(target); err == nil {
			os.Remove(target)
			t.Errorf("%s appeared on the host", target)
		}
	}
	// Control: the same write to the stand-in home works without the
	// sandbox. (/etc is left alone: the caller may be root.)
	if out, err := outside(t, `echo x > "`+homeFile+`"`); err != nil {
		t.Fatalf("control write to %s failed: %v %s", homeFile, err, out)
	}
}

func TestSandboxHidden(t *testing.T) {
	base, _, ws := fixture(t)
	secretDir := mkdir(t, base, "secret-dir")
	writeFile(t, secretDir, "key", "dir-secret")
	secretFile := writeFile(t, base, "secret-file", "file-secret")
	target := mkdir(t, base, "link-target")
	writeFile(t, target, "key", "link-secret")
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(base, "missing", "deeper")
	script := fmt.Sprintf(`ls -A %q; cat %q; cat %q/key %q/key; echo status=$?`, secretDir, secretFile, target, link)

	control, err := outside(t, script)
	if err != nil {
		t.Fatalf("control: %v %s", err, control)
	}
	for _, s := range []string{"key", "file-secret", "link-secret"} {
		if !strings.Contains(control, s) {
			t.Fatalf("control does not see %q: %s", s, control)
		}
	}

	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{secretDir, secretFile, link, missing}}, script)
	if err != nil {
		t.Fatalf("spawn with hidden paths failed: %v: %s", err, out)
	}
	for _, s := range []string{"key\n", "file-secret", "link-secret"} {
		if strings.Contains(out, s) {
			t.Errorf("hidden content %q visible: %s", s, out)
		}
	}
	// The hidden file is still there, empty, so tools that stat it work.
	out, err = inSandbox(t, Config{Workspace: ws, Hidden: []string{secretFile}}, fmt.Sprintf(`test -f %q && wc -c < %q`, secretFile, secretFile))
	if err != nil || strings.TrimSpace(out) != "0" {
		t.Errorf("hidden file: %v %q, want an empty file", err, out)
	}
}

// TestSandboxHiddenCannotBeUnmounted attacks the hiding mounts from inside,
// as the (possibly root) child: unmount the tmpfs, remount / read-write,
// or nest a user namespace to regain capabilities.
func TestSandboxHiddenCannotBeUnmounted(t *testing.T) {
	base, _, ws := fixture(t)
	secretDir := mkdir(t, base, "secret")
	writeFile(t, secretDir, "key", "dir-secret")
	script := fmt.Sprintf(`umount %q 2>/dev/null; mount -o remount,rw / 2>/dev/null; touch /etc/sandtable-remount 2>/dev/null && echo WROTE
unshare -Urm sh -c 'umount %q; cat %q/key' 2>/dev/null; cat %q/key 2>/dev/null; echo done`, secretDir, secretDir, secretDir, secretDir)
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{secretDir}}, script)
	defer os.Remove("/etc/sandtable-remount")
	if err != nil || strings.Contains(out, "dir-secret") || strings.Contains(out, "WROTE") || !strings.Contains(out, "done") {
		t.Errorf("escape attempt: %v: %s", err, out)
	}
}

func TestSandboxHiddenInsideWorkspace(t *testing.T) {
	_, _, ws := fixture(t)
	inner := mkdir(t, ws, "vendor", "secrets")
	writeFile(t, inner, "key", "inner-secret")
	envFile := writeFile(t, ws, ".env", "TOKEN=inner-file-secret")
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{inner, envFile}},
		fmt.Sprintf(`cat %q/key; cat %q; echo ok > %q/written`, inner, envFile, ws))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "inner-secret") || strings.Contains(out, "inner-file-secret") {
		t.Errorf("a hidden path inside the workspace is visible: %s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "written")); err != nil {
		t.Errorf("workspace no longer writable: %v", err)
	}
}

func TestSandboxWorkspaceInsideHidden(t *testing.T) {
	requireBwrap(t)
	base := hostDir(t)
	newHome(t, base)
	hidden := mkdir(t, base, "astrid")
	writeFile(t, hidden, "token", "sibling-secret")
	ws := mkdir(t, hidden, "capsules", "ws")
	grant := mkdir(t, hidden, "cache")
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{hidden}, Write: []string{grant}},
		fmt.Sprintf(`echo in > %q/f; echo in > %q/f; cat %q/token; echo done`, ws, grant, hidden))
	if err != nil || !strings.Contains(out, "done") {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "sibling-secret") {
		t.Errorf("the hidden parent leaked: %s", out)
	}
	for _, d := range []string{ws, grant} {
		if got, err := os.ReadFile(filepath.Join(d, "f")); err != nil || string(got) != "in\n" {
			t.Errorf("writable %s inside a hidden directory: %q, %v", d, got, err)
		}
	}
}

func TestSandboxDefaultHidden(t *testing.T) {
	requireBwrap(t)
	base := hostDir(t)
	home := newHome(t, base)
	writeFile(t, home, ".ssh/id_ed25519", "PRIVATE KEY")
	writeFile(t, home, ".npmrc", "_authToken=npm-secret")
	ws := mkdir(t, base, "ws")
	script := fmt.Sprintf(`cat %q/.ssh/id_ed25519 %q/.npmrc; echo`, home, home)
	out, err := inSandbox(t, Config{Workspace: ws}, script)
	if err != nil || strings.Contains(out, "PRIVATE") || strings.Contains(out, "npm-secret") {
		t.Errorf("default hidden set: %v: %s", err, out)
	}
	out, err = inSandbox(t, Config{Workspace: ws, Reveal: []string{home + "/.npmrc"}}, script)
	if err != nil || strings.Contains(out, "PRIVATE") || !strings.Contains(out, "npm-secret") {
		t.Errorf("reveal .npmrc only: %v: %s", err, out)
	}
}

func TestSandboxEnv(t *testing.T) {
	_, home, ws := fixture(t)
	for _, name := range strippedEnv {
		// Absolute: some name a place a derived hidden row hides, which
		// must be absolute.
		t.Setenv(name, "/leaked-"+name)
	}
	t.Setenv("SANDTABLE_KEPT", "kept")
	out, err := inSandbox(t, Config{Workspace: ws}, `env`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, name := range strippedEnv {
		if strings.Contains(out, name+"=") {
			t.Errorf("%s reached the child", name)
		}
	}
	if !strings.Contains(out, "\nHOME="+home+"\n") || !strings.Contains(out, "SANDTABLE_KEPT=kept") {
		t.Errorf("HOME or an ordinary variable was not inherited:\n%s", out)
	}
	// Off still strips.
	cmd, err := Command(t.Context(), Config{Workspace: ws, Policy: Off}, "env")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(cmd.Path, "bwrap") {
		t.Fatalf("Off wrapped the command: %v", cmd.Args)
	}
	offOut, err := cmd.Output()
	if err != nil || strings.Contains(string(offOut), "leaked-") {
		t.Errorf("Off: %v\n%s", err, offOut)
	}
}

func TestSandboxNoNetwork(t *testing.T) {
	_, _, ws := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\n' ' '; echo
if exec 3<>/dev/tcp/127.0.0.1/%d; then head -1 <&3; else echo connect-failed; fi`, port)

	out, err := inSandbox(t, Config{Workspace: ws, Network: Network{Mode: NetworkOff}}, script)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ifaces, rest, _ := strings.Cut(out, "\n")
	if strings.TrimSpace(ifaces) != "lo" {
		t.Errorf("NetworkOff: interfaces %q, want only lo", ifaces)
	}
	if strings.Contains(rest, "hello from the host") || !strings.Contains(rest, "connect-failed") {
		t.Errorf("NetworkOff: reached the host's listener: %s", rest)
	}

	// Control: with the network on the same script reaches it.
	out, err = inSandbox(t, Config{Workspace: ws, Network: Network{Mode: NetworkHost}}, script)
	if err != nil || !strings.Contains(out, "hello from the host") {
		t.Errorf("NetworkHost: could not reach the host's listener: %v: %s", err, out)
	}
}

// TestSandboxNewSession checks the TIOCSTI defence: by default the child is
// in a session of its own, made inside the sandbox's pid namespace, so it
// has no controlling terminal to push keystrokes into. Interactive keeps the
// caller's session, whose leader lies outside that namespace and so reads
// as 0 from inside.
func TestSandboxNewSession(t *testing.T) {
	_, _, ws := fixture(t)
	const sid = `cut -d' ' -f6 /proc/self/stat`
	out, err := inSandbox(t, Config{Workspace: ws}, sid)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	inter, err := inSandbox(t, Config{Workspace: ws, Interactive: true}, sid)
	if err != nil {
		t.Fatalf("%v: %s", err, inter)
	}
	if strings.TrimSpace(out) == "0" || strings.TrimSpace(inter) != "0" {
		t.Errorf("session id seen inside: default %q, interactive %q; want a new session by default only", out, inter)
	}
}

// TestSandboxUnprivileged runs the sandbox as the unprivileged CI user, the
// way most callers run it: no capabilities to start with, and a user
// namespace bwrap must be allowed to create.
func TestSandboxUnprivileged(t *testing.T) {
	requireBwrap(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to the test user")
	}
	u, err := user.Lookup("sandtable-test")
	if err != nil {
		t.Skip("no sandtable-test user (.ci/run creates it)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base := hostDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	home := newHome(t, base)
	ws := mkdir(t, base, "ws")
	(&escUser{uid: uid, gid: gid, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}).spawnAs(t)
	secret := writeFile(t, home, ".netrc", "password unpriv-secret")
	for _, p := range []string{home, ws, secret} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	// Built as root and started as the test user, whom the caches made
	// for the caller do not serve (Config.NoCache); TestCacheEscape runs
	// sandtable itself as each user.
	cmd, err := Command(t.Context(), Config{Workspace: ws, NoCache: true}, "bash", "-c",
		fmt.Sprintf(`id -u; echo in > %q/f; cat %q; echo x > %q/planted || echo home-denied`, ws, secret, home))
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(out.String(), "bwrap:") {
			t.Fatalf("bwrap refused to run unprivileged: %s", out.String())
		}
		t.Fatalf("%v: %s", err, out.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, u.Uid+"\n") || strings.Contains(s, "unpriv-secret") || !strings.Contains(s, "home-denied") {
		t.Errorf("unprivileged run: %s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, "f")); err != nil {
		t.Errorf("unprivileged workspace write: %v", err)
	}
}

// TestSandboxNoCapabilities: a root caller's child must hold no capability,
// in any set, or it could remount, unmount or write what the mounts protect.
func TestSandboxNoCapabilities(t *testing.T) {
	_, _, ws := fixture(t)
	out, err := inSandbox(t, Config{Workspace: ws}, `grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if _, v, _ := strings.Cut(line, "\t"); strings.Trim(v, "0") != "" {
			t.Errorf("capabilities left in the sandbox: %s", line)
		}
	}
}

// TestSandboxProcSysReadOnly writes a kernel tunable's current value back
// to it (a no-op if it lands). Outside the sandbox a root caller can; inside
// it must hit a read-only mount.
func TestSandboxProcSysReadOnly(t *testing.T) {
	_, _, ws := fixture(t)
	const script = `f=/proc/sys/vm/swappiness; v=$(cat $f) && echo "$v" > $f && echo WROTE`
	out, err := inSandbox(t, Config{Workspace: ws}, script)
	if strings.Contains(out, "WROTE") || err == nil {
		t.Errorf("the child wrote a host sysctl: %v: %s", err, out)
	}
	if os.Geteuid() == 0 && !strings.Contains(out, "Read-only file system") {
		t.Errorf("sysctl write failed for the wrong reason: %s", out)
	}
}

// TestSandboxNoNestedUserns: with --disable-userns the child cannot make a
// user namespace of its own and regain capabilities inside it.
func TestSandboxNoNestedUserns(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	prog, _ := exec.LookPath("bwrap")
	if prog, err := filepath.EvalSymlinks(prog); err != nil || !bwrapHostFor(prog).knowsDisableUserns() {
		t.Skip("this bwrap predates --disable-userns")
	}
	base := hostDir(t)
	newHome(t, base)
	ws := mkdir(t, base, "ws")
	out, err := inSandbox(t, Config{Workspace: ws}, `unshare -U true && echo NESTED || echo refused`)
	if err != nil || strings.Contains(out, "NESTED") || !strings.Contains(out, "refused") {
		t.Errorf("nested user namespace: %v: %s", err, out)
	}
}

// TestSandboxPrivateTmp: /tmp inside is empty and writable, and nothing
// written there reaches the host's.
func TestSandboxPrivateTmp(t *testing.T) {
	_, _, ws := fixture(t)
	hostTmp, err := os.MkdirTemp("/tmp", "sandtable-host-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(hostTmp)
	inside := "/tmp/sandtable-inside-" + strconv.Itoa(os.Getpid())
	out, err := inSandbox(t, Config{Workspace: ws}, fmt.Sprintf(`test -e %q && echo HOST-TMP-VISIBLE; echo private > %q && cat %q`, hostTmp, inside, inside))
	if err != nil || strings.Contains(out, "HOST-TMP-VISIBLE") || !strings.Contains(out, "private") {
		t.Errorf("private /tmp: %v: %s", err, out)
	}
	if _, err := os.Lstat(inside); err == nil {
		os.Remove(inside)
		t.Errorf("%s reached the host's /tmp", inside)
	}
}

// TestSandboxMinimalDev: the child gets bwrap's handful of device nodes,
// not the host's disks, consoles and kernel log.
func TestSandboxMinimalDev(t *testing.T) {
	_, _, ws := fixture(t)
	minimal := map[string]bool{"console": true, "core": true, "fd": true, "full": true, "null": true, "ptmx": true, "pts": true,
		"random": true, "shm": true, "stderr": true, "stdin": true, "stdout": true, "tty": true, "urandom": true, "zero": true}
	out, err := inSandbox(t, Config{Workspace: ws}, `ls -A /dev`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, name := range strings.Fields(out) {
		if !minimal[name] {
			t.Errorf("/dev/%s visible in the sandbox", name)
		}
	}
	if !strings.Contains(out, "null") || !strings.Contains(out, "urandom") {
		t.Errorf("basic devices missing: %s", out)
	}
}

// TestSandboxReadPath: a Read path inside a hidden directory is readable
// but not writable.
func TestSandboxReadPath(t *testing.T) {
	base, _, ws := fixture(t)
	hidden := mkdir(t, base, "hidden")
	pub := mkdir(t, hidden, "pub")
	writeFile(t, pub, "data", "public-data")
	writeFile(t, hidden, "token", "hidden-token")
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{hidden}, Read: []string{pub}},
		fmt.Sprintf(`cat %q/data %q/token; echo x > %q/planted; echo done`, pub, hidden, pub))
	if !strings.Contains(out, "public-data") || strings.Contains(out, "hidden-token") || !strings.Contains(out, "Read-only file system") {
		t.Errorf("read path: %v: %s", err, out)
	}
}

// TestSandboxDiesWithParent kills the process that started bwrap and
// expects the sandbox to go with it instead of running on as an orphan.
func TestSandboxDiesWithParent(t *testing.T) {
	_, _, ws := fixture(t)
	w, err := Prefix(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-c", `"$@" & echo $!; wait`, "bash", w.Program}, w.Args...)
	outer := exec.Command("bash", append(args, "sleep", "300")...)
	outer.ExtraFiles = openTestFiles(t, w.Files)
	stdout, err := outer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := outer.Start(); err != nil {
		t.Fatal(err)
	}
	var line []byte
	buf := make([]byte, 1)
	for {
		if _, err := stdout.Read(buf); err != nil || buf[0] == '\n' {
			break
		}
		line = append(line, buf[0])
	}
	pid, err := strconv.Atoi(string(line))
	if err != nil {
		outer.Process.Kill()
		t.Fatalf("bwrap pid %q: %v", line, err)
	}
	// Let bwrap set up (its death signal included): until the sandboxed
	// sleep runs below it, up to 10s on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if slices.ContainsFunc(descendants(pid), func(p int) bool {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
			return string(b) == "sleep\x00300\x00"
		}) {
			break
		}
	}
	outer.Process.Kill()
	outer.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("bwrap (pid %d) outlived its parent", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie waiting for a reaper
// we do not control.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := bytes.Cut(stat, []byte(") "))
	return len(rest) > 0 && rest[0] != 'Z'
}
