//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fixtures of the escape suite's main table (escape_attempts_test.go):
// what an attempt left behind, the setups that plant what it attacks, the
// controls that need a capability, and the runners of the attempts that
// need more than a shell.

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDevice(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeDevice != 0
}

func fileHas(p, s string) bool {
	b, err := os.ReadFile(p)
	return err == nil && bytes.Contains(b, []byte(s))
}

// hostTemp names a fresh path in a host directory and removes whatever the
// attempt or its control leaves there.
func (e *escEnv) hostTemp(dir string) string {
	p := filepath.Join(dir, fmt.Sprintf("sandtable-escape-%s-%x", e.a.name, rand.Uint64()))
	e.t.Cleanup(func() { os.Remove(p) })
	return p
}

// Capabilities the outside controls need; a container's root may lack them.
const (
	capDacReadSearch = 2
	capNetAdmin      = 12
	capSysAdmin      = 21
	capMknod         = 27
)

// capCtl is the outside control for an attack only uid 0 with capability
// c can make on the host.
func capCtl(e *escEnv, c uint) escMode {
	if !e.u.isRoot() {
		return rootOnly(e, outsideCtl())
	}
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			if eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && eff&(1<<c) != 0 {
				return outsideCtl()
			}
		}
	}
	return noCtl(fmt.Sprintf("the test process lacks capability %d, so not even the control can do it", c))
}

// tunable picks the first writable host value among paths for $F, records
// it as $V and puts it back afterwards.
func (e *escEnv) tunable(paths ...string) {
	lockTunables(e.t)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		v := strings.TrimSpace(string(b))
		if err != nil {
			continue
		}
		if _, err := strconv.Atoi(v); err != nil {
			continue
		}
		if os.Geteuid() == 0 && syscall.Access(p, 2 /* W_OK */) != nil {
			continue // read-only here even for root (a container's /proc/sys or /sys)
		}
		e.vars["F"], e.vars["V"] = p, v
		if os.Geteuid() == 0 {
			e.t.Cleanup(func() {
				if cur, _ := os.ReadFile(p); strings.TrimSpace(string(cur)) != v {
					if err := os.WriteFile(p, []byte(v+"\n"), 0); err != nil {
						e.t.Errorf("restore %s to %s: %v", p, v, err)
					}
				}
			})
		}
		return
	}
	e.t.Skipf("none of %v exists and is writable here", paths)
}

// tunablesLock serialises the attempts on host-wide tunables, across
// every test process on the host: another run's control (which changes
// the value) or its restore, between this attempt's reading of the value
// and its check, would pass for an escape, and this attempt's restore
// would then keep the other run's change.
const tunablesLock = "/tmp/sandtable-test-tunables.lock"

// lockTunables holds tunablesLock until t ends; the cleanup that puts a
// tunable back runs before the release.
func lockTunables(t *testing.T) {
	t.Helper()
	// Opened without O_CREAT when it exists: in sticky /tmp, another
	// user's file refuses that (fs.protected_regular).
	f, err := os.Open(tunablesLock)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(tunablesLock, os.O_RDONLY|os.O_CREATE, 0o644)
	}
	if err != nil {
		t.Fatalf("lock the host's tunables: %v", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("lock the host's tunables: %v", err)
	}
	t.Cleanup(func() { f.Close() })
}

func tunableChanged(e *escEnv, r *escResult) bool {
	b, err := os.ReadFile(e.vars["F"])
	return err == nil && strings.TrimSpace(string(b)) != e.vars["V"]
}

// setupCgroup makes a cgroup for the attempt and delegates it to the
// caller (chown, as systemd does), so a write from outside the sandbox
// works for either user.
func setupCgroup(e *escEnv) {
	if os.Geteuid() != 0 {
		e.t.Skip("making a cgroup needs root")
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		e.t.Skip(err)
	}
	var mnt, knob, val string
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		switch {
		case g[0] == "cgroup2":
			mnt, knob, val = f[4], "cgroup.max.descendants", "7"
		case g[0] == "cgroup" && mnt == "":
			mnt, knob, val = f[4], "notify_on_release", "1"
		}
		if knob == "cgroup.max.descendants" {
			break
		}
	}
	if mnt == "" {
		e.t.Skip("no cgroup file system mounted")
	}
	cg := filepath.Join(mnt, fmt.Sprintf("sandtable-escape-%x", rand.Uint64()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		e.t.Skipf("cannot make a cgroup under %s: %v", mnt, err)
	}
	e.t.Cleanup(func() { os.Remove(cg) })
	if cur, _ := os.ReadFile(filepath.Join(cg, knob)); strings.TrimSpace(string(cur)) == val {
		e.t.Fatalf("%s/%s is already %s", cg, knob, val)
	}
	for _, p := range []string{cg, filepath.Join(cg, knob), filepath.Join(cg, "cgroup.procs")} {
		e.chown(e.t, p)
	}
	e.vars["CG"], e.vars["KNOB"], e.vars["VAL"] = cg, knob, val
}

// setupRootDevice finds the block device the root file system is on.
func setupRootDevice(e *escEnv) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		e.t.Skip(err)
	}
	var majmin, src string
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, _ := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) >= 5 && f[4] == "/" && len(g) >= 2 {
			majmin, src = f[2], g[1]
		}
	}
	fi, err := os.Stat(src)
	if err != nil || fi.Mode()&os.ModeDevice == 0 || fi.Mode()&os.ModeCharDevice != 0 {
		e.t.Skipf("the root file system (%q) is not on a block device node", src)
	}
	maj, min, _ := strings.Cut(majmin, ":")
	e.vars["DEV_MAJ"], e.vars["DEV_MIN"], e.vars["DISK"] = maj, min, src
}

// setupSetuid copies id(1) as a setuid-root binary outside the workspace.
func setupSetuid(e *escEnv) {
	if os.Geteuid() != 0 {
		e.t.Skip("making a setuid-root binary needs root")
	}
	src := escLook("id")
	if src == "" {
		e.t.Skip("no id(1)")
	}
	b, err := os.ReadFile(src)
	if err != nil {
		e.t.Fatal(err)
	}
	dst := filepath.Join(e.dir, "suid-id")
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chmod(dst, 0o4755|os.ModeSetuid); err != nil {
		e.t.Fatal(err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dst, &st); err == nil && st.Flags&0x2 != 0 { // ST_NOSUID
		e.t.Skipf("%s is on a nosuid file system", e.dir)
	}
	e.vars["SUID_ID"] = dst
}

// setupHostname picks a new name and makes sure the host gets its own back.
func setupHostname(e *escEnv) {
	orig, err := os.Hostname()
	if err != nil {
		e.t.Skip(err)
	}
	name := fmt.Sprintf("sandtable-%x", rand.Uint32())
	e.vars["NEWNAME"] = name
	e.t.Cleanup(func() {
		if h, _ := os.Hostname(); h != orig {
			if err := syscall.Sethostname([]byte(orig)); err != nil {
				e.t.Errorf("restore hostname %q: %v", orig, err)
			}
		}
	})
}

// handlePy gets a file handle outside (the attacker is assumed to have
// learned it; for ext4 it is the inode and generation) and opens it
// inside, relative to the sandbox's /.
const handlePy = `
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "get":
    buf = ctypes.create_string_buffer(8 + 128)
    struct.pack_into("I", buf, 0, 128)
    mid = ctypes.c_int()
    if libc.name_to_handle_at(-100, sys.argv[2].encode(), buf, ctypes.byref(mid), 0) != 0:
        sys.exit("name_to_handle_at: " + os.strerror(ctypes.get_errno()))
    n = struct.unpack_from("I", buf, 0)[0]
    print(buf.raw[:8 + n].hex())
else:
    h = bytes.fromhex(os.environ["HANDLE"])
    buf = ctypes.create_string_buffer(h, len(h))
    fd = libc.open_by_handle_at(os.open("/", os.O_RDONLY), buf, os.O_RDONLY)
    if fd < 0:
        sys.exit("open_by_handle_at: " + os.strerror(ctypes.get_errno()))
    print(os.read(fd, 200).decode(errors="replace"))
`

func setupHandle(e *escEnv) {
	e.secret = e.sshSecret
	e.vars["HANDLE_PY"] = handlePy
	out, err := exec.Command(e.py, "-c", handlePy, "get", e.sshKey).CombinedOutput()
	if err != nil {
		e.t.Skipf("no file handle for %s here: %v %s", e.sshKey, err, out)
	}
	e.vars["HANDLE"] = strings.TrimSpace(string(out))
}

// setupInheritedFD opens the attempt's directory in the test process
// without O_CLOEXEC, as a descriptor inherited from the caller's own parent
// (a service manager, a shell, a CI runner) is, on a high number exec
// leaves alone: Command must mark it close-on-exec before the spawn. The
// snippet uses only $FD. The controls, which bypass Command, get the
// directory as an extra file of the spawn instead, so the child holds it
// whatever the flag on the high descriptor is by then.
func setupInheritedFD(e *escEnv) {
	hidden := e.mkdir(filepath.Join(e.dir, "hidden"))
	e.secretFile(filepath.Join(hidden, "key"))
	e.cfg.Hidden = []string{hidden}
	low, err := syscall.Open(e.dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(low), syscall.F_DUPFD, 200)
	syscall.Close(low)
	if errno != 0 {
		e.t.Fatal(errno)
	}
	e.t.Cleanup(func() { syscall.Close(int(fd)) })
	e.vars["FD"] = strconv.Itoa(int(fd))
	e.wrap = func(cmd *exec.Cmd, m escMode) {
		if m.kind == modeSandbox {
			return
		}
		dir, err := os.Open(e.dir)
		if err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(func() { dir.Close() })
		n := strconv.Itoa(3 + len(cmd.ExtraFiles))
		cmd.ExtraFiles = append(cmd.ExtraFiles, dir)
		for i, kv := range cmd.Env {
			if strings.HasPrefix(kv, "FD=") {
				cmd.Env[i] = "FD=" + n
			}
		}
	}
}

// escVictim is a process of the caller's that runs outside the sandbox.
type escVictim struct {
	pid    int
	done   chan struct{}
	status syscall.WaitStatus
}

// startVictim starts `sleep 60` as the caller, with a secret in its
// environment, and exports $VICTIM_PID.
func (e *escEnv) startVictim() {
	e.secret = escToken("victim-env")
	cmd := exec.Command(escLook("sleep"), "60")
	cmd.Env = []string{"PATH=" + escPath, "SANDTABLE_VICTIM_SECRET=" + e.secret}
	cmd.Dir = "/"
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	v := &escVictim{pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		v.status = cmd.ProcessState.Sys().(syscall.WaitStatus)
		close(v.done)
	}()
	e.t.Cleanup(func() { cmd.Process.Kill(); <-v.done })
	e.victim = v
	e.vars["VICTIM_PID"] = strconv.Itoa(v.pid)
}

// killed reports whether the victim died of SIGKILL.
func (v *escVictim) killed() bool {
	select {
	case <-v.done:
		return v.status.Signaled() && v.status.Signal() == syscall.SIGKILL
	case <-time.After(300 * time.Millisecond):
		return false
	}
}

// procCtl is the control for attacks on a host process: without the pid
// namespace it is visible, but the user namespace still denies ptrace
// access (and for root, so does the empty capability set), so the control
// takes all of them out. bwrap cannot run unprivileged without a user
// namespace, so the unprivileged control runs outside.
func procCtl(e *escEnv) escMode {
	if !e.u.isRoot() {
		return outsideCtl()
	}
	m := dropRules("unshare-all", "unshare-user", "disable-userns", "cap-drop")
	// A Landlock domain also keeps ptrace (and /proc/PID/root) from
	// processes outside it: in mode host the wrap helper's scope goes too.
	if e.cfg.Network.Mode == NetworkHost && !e.cfg.Network.HostAbstract && landlockABI() >= 6 {
		m.helperDrop = []string{wrapHelperScope}
	}
	return m
}

// ptracePy attaches to $VICTIM_PID, reads its environment block word by
// word with PTRACE_PEEKDATA, and detaches.
const ptracePy = `
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
pid = int(os.environ["VICTIM_PID"])
if libc.ptrace(16, pid, None, None) != 0:
    sys.exit("PTRACE_ATTACH: " + os.strerror(ctypes.get_errno()))
os.waitpid(pid, 0)
st = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
start, end = int(st[47]), int(st[48])
data = b""
for a in range(start, min(end, start + 8192), 8):
    ctypes.set_errno(0)
    w = libc.ptrace(2, pid, ctypes.c_void_p(a), None)
    if w == -1 and ctypes.get_errno():
        break
    data += struct.pack("<q", w)
libc.ptrace(17, pid, None, None)
print(data.replace(b"\0", b"\n").decode(errors="replace"))
`

// connectPy connects to the unix socket argv[1] (a leading @ makes it
// abstract) and prints what the server sends.
const connectPy = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
try:
    s.connect("\0" + sys.argv[1][1:] if sys.argv[1].startswith("@") else sys.argv[1])
    print(s.recv(200).decode())
except Exception as e:
    print("connect:", e)
`

// serve listens on addr and sends the attempt's secret to every client.
func (e *escEnv) serve(network, addr string, bound func(net.Addr)) net.Listener {
	e.secret = escToken(e.a.name)
	ln, err := net.Listen(network, addr)
	if err != nil {
		e.t.Fatal(err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		// The file stays until the pass's directory goes (see
		// socketGrace).
		ul.SetUnlinkOnClose(false)
		e.sockets.Store(true)
	}
	e.t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(e.secret + "\n"))
			c.Close()
		}
	}()
	if bound != nil {
		bound(ln.Addr())
	}
	e.vars["CONNECT_PY"] = connectPy
	return ln
}

// serveUnix serves the secret on a path socket the caller may connect to.
func (e *escEnv) serveUnix(path string) {
	e.serve("unix", path, nil)
	if err := os.Chmod(path, 0o777); err != nil {
		e.t.Fatal(err)
	}
	e.chown(e.t, path)
	e.vars["SOCK"] = path
}

// keysPy looks the attempt's key up in the session, user and user-session
// keyrings and prints whatever it can read.
const keysPy = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl = int(os.environ["SYS_KEYCTL"])
for ring in (-3, -4, -5):
    k = libc.syscall(keyctl, 10, ctypes.c_int(ring), b"user", os.environ["KEY_DESC"].encode(), 0)
    if k < 0:
        print(ring, "search:", os.strerror(ctypes.get_errno()))
        continue
    buf = ctypes.create_string_buffer(512)
    n = libc.syscall(keyctl, 11, ctypes.c_long(k), buf, 512)
    print(ring, "read:", buf.raw[:max(n, 0)].decode(errors="replace"))
`

// keyLauncherPy joins a fresh session keyring, adds the secret to it and
// execs its arguments: a caller whose session holds a key (a Kerberos or
// AFS token, an ecryptfs passphrase...).
const keyLauncherPy = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
secret = os.environ.pop("SANDTABLE_KEY_SECRET").encode()
if libc.syscall(int(os.environ["SYS_KEYCTL"]), 1, None) < 0:
    sys.exit("join session keyring: " + os.strerror(ctypes.get_errno()))
if libc.syscall(int(os.environ["SYS_ADD_KEY"]), b"user", os.environ["KEY_DESC"].encode(), secret, len(secret), ctypes.c_int(-3)) < 0:
    sys.exit("add_key: " + os.strerror(ctypes.get_errno()))
os.execve(sys.argv[1], sys.argv[2:], dict(os.environ))
`

func keyringSyscalls(e *escEnv) {
	switch runtime.GOARCH {
	case "amd64":
		e.vars["SYS_ADD_KEY"], e.vars["SYS_KEYCTL"] = "248", "250"
	case "arm64", "riscv64", "loong64":
		e.vars["SYS_ADD_KEY"], e.vars["SYS_KEYCTL"] = "217", "219"
	default:
		e.t.Skipf("keyring syscall numbers unknown for %s", runtime.GOARCH)
	}
	e.vars["KEYS_PY"] = keysPy
	e.vars["KEY_DESC"] = fmt.Sprintf("sandtable-escape-%x", rand.Uint64())
}

// setupSessionKey runs every mode under keyLauncherPy.
func setupSessionKey(e *escEnv) {
	needSeccomp(e)
	keyringSyscalls(e)
	e.secret = escToken("session-key")
	e.wrap = func(cmd *exec.Cmd, _ escMode) {
		path := cmd.Path
		if path == wrapHelperExe {
			// python's /proc/self/exe is python: it execs this test
			// binary through a descriptor of it, with the helper's argv.
			self, err := os.Open(wrapHelperExe)
			if err != nil {
				e.t.Fatal(err)
			}
			e.t.Cleanup(func() { self.Close() })
			path = "/proc/self/fd/" + strconv.Itoa(3+len(cmd.ExtraFiles))
			cmd.ExtraFiles = append(cmd.ExtraFiles, self)
		}
		cmd.Args = append([]string{e.py, "-c", keyLauncherPy, path}, cmd.Args...)
		cmd.Path = e.py
		cmd.Env = append(cmd.Env, "SANDTABLE_KEY_SECRET="+e.secret)
	}
}

// needSeccomp skips an attempt that only the seccomp rule stops where
// that rule does not apply.
func needSeccomp(e *escEnv) {
	if nativeSeccomp() == nil {
		e.t.Skipf("no seccomp filter for %s: rule seccomp does not apply, and this attack is open here", runtime.GOARCH)
	}
}

// setupUserKey adds a key to the caller's user keyring (as the caller) and
// invalidates it afterwards.
func setupUserKey(e *escEnv) {
	keyringSyscalls(e)
	e.secret = escToken("user-key")
	py := func(src string, args ...string) string {
		cmd := exec.Command(e.py, append([]string{"-c", src}, args...)...)
		cmd.Env = append(e.childEnv(nil), "SANDTABLE_KEY_SECRET="+e.secret)
		if e.u.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	id := py(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
s = os.environ["SANDTABLE_KEY_SECRET"].encode()
k = libc.syscall(int(os.environ["SYS_ADD_KEY"]), b"user", os.environ["KEY_DESC"].encode(), s, len(s), ctypes.c_int(-4))
if k < 0: raise SystemExit("add_key: " + os.strerror(ctypes.get_errno()))
print(k)`)
	e.t.Cleanup(func() {
		py(`
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(int(os.environ["SYS_KEYCTL"]), 21, int(sys.argv[1]))`, id)
	})
}

// shmPy creates (as the caller, outside) or reads (inside) a SysV shared
// memory segment keyed by $SHM_KEY.
const shmPy = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key = int(os.environ["SHM_KEY"])
if sys.argv[1] == "create":
    i = libc.shmget(key, 4096, 0o1000 | 0o600)
    if i < 0: sys.exit("shmget: " + os.strerror(ctypes.get_errno()))
    a = libc.shmat(i, None, 0)
    s = os.environ["SHM_SECRET"].encode()
    ctypes.memmove(a, s, len(s))
    libc.shmdt(ctypes.c_void_p(a))
    print(i)
else:
    i = libc.shmget(key, 0, 0)
    if i < 0: sys.exit("shmget: " + os.strerror(ctypes.get_errno()))
    a = libc.shmat(i, None, 0o10000)
    if a in (None, 2**64 - 1): sys.exit("shmat: " + os.strerror(ctypes.get_errno()))
    print(ctypes.string_at(a, 80).split(b"\0")[0].decode())
`

func setupShm(e *escEnv) {
	e.secret = escToken("shm")
	e.vars["SHM_PY"] = shmPy
	e.vars["SHM_KEY"] = strconv.Itoa(int(rand.Int32N(1<<30)) + 1)
	cmd := exec.Command(e.py, "-c", shmPy, "create")
	cmd.Env = append(e.childEnv(nil), "SHM_SECRET="+e.secret)
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Skipf("cannot create a SysV segment: %v %s", err, out)
	}
	id, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		e.t.Fatalf("shm id %q", out)
	}
	e.t.Cleanup(func() { syscall.Syscall(syscall.SYS_SHMCTL, uintptr(id), 0 /* IPC_RMID */, 0) })
}

// runOutlive starts the command under a bash parent, waits for the snippet
// to start, kills the parent, tells the snippet so, and gives a survivor
// 5 s to write its marker.
func runOutlive(e *escEnv, cmd *exec.Cmd) *escResult {
	started := filepath.Join(e.ws, "started")
	killed := filepath.Join(e.ws, "parent-killed")
	marker := filepath.Join(e.ws, "outlived")
	for _, p := range []string{started, killed, marker} {
		os.Remove(p)
	}
	logPath := filepath.Join(e.dir, "outlive.log")
	log, err := os.Create(logPath)
	if err != nil {
		e.t.Fatal(err)
	}
	defer log.Close()
	parent := exec.Command(e.bash, append([]string{"-c", `"$@" & wait`, "parent", cmd.Path}, cmd.Args[1:]...)...)
	parent.Env, parent.Dir, parent.ExtraFiles, parent.SysProcAttr = cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.SysProcAttr
	if cmd.Path == wrapHelperExe {
		// The wrap helper runs only as a child of this process, and is
		// the process that starts bwrap: it is the parent killed.
		parent = cmd
	}
	parent.Stdout, parent.Stderr = log, log
	if err := parent.Start(); err != nil {
		e.t.Fatal(err)
	}
	// The parent is killed once the snippet started and its marker is in
	// the log: the wrap helper copies the sandbox's output through a pipe
	// of its own, and what it had not copied when killed is lost.
	deadline := time.Now().Add(10 * time.Second)
	for !(exists(started) && fileHas(logPath, escRan)) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	tree := descendants(parent.Process.Pid)
	parent.Process.Kill()
	parent.Wait()
	// Killing the parent starts a chain (bwrap's death signal, then its
	// pid 1's, then the namespace's teardown) that takes a moment, longer
	// on a loaded machine. Let it finish before the grandchild is told to
	// write: in the sandbox up to 10 s (a liveness bound: a survivor is
	// told all the same, and shows); in a control nothing dies, and the
	// wait ends early.
	limit := 10 * time.Second
	if e.mode.kind != modeSandbox {
		limit = time.Second
	}
	for start := time.Now(); len(tree) > 0 && slices.ContainsFunc(tree, alive); time.Sleep(10 * time.Millisecond) {
		if d := time.Since(start); d > limit || e.mode.kind != modeSandbox && d > 300*time.Millisecond && alive(tree[0]) {
			break // bwrap itself outlived its parent: nothing is dying
		}
	}
	if err := os.WriteFile(killed, nil, 0o644); err != nil {
		e.t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !exists(marker) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	out, _ := os.ReadFile(logPath)
	return &escResult{out: string(out), ran: exists(started) && bytes.Contains(out, []byte(escRan))}
}

// descendants lists the processes below pid, children first.
func descendants(pid int) []int {
	parents := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		_, rest, _ := bytes.Cut(stat, []byte(") "))
		if f := strings.Fields(string(rest)); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				parents[pp] = append(parents[pp], p)
			}
		}
	}
	var out []int
	for queue := parents[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, parents[queue[0]]...)
	}
	return out
}

// legacyTIOCSTI is dev.tty.legacy_tiocsti ("" when the kernel predates it,
// which behaves like 1).
func legacyTIOCSTI() string {
	b, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti")
	if err != nil {
		return "1"
	}
	return strings.TrimSpace(string(b))
}
