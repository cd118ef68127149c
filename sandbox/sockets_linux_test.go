package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestUnixSocketPaths(t *testing.T) {
	in := `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 12345 /run/a.sock
0000000000000000: 00000003 00000000 00000000 0001 03   647
0000000000000000: 00000002 00000000 00010000 0001 01 22 @abstract/name
0000000000000000: 00000002 00000000 00000000 0002 01 1234567 /var/tmp/with two spaces.sock
0000000000000000: 00000003 00000000 00000000 0001 03 99 /run/a.sock
0000000000000000: 00000002 00000000 00010000 0001 01 31 rel/x.sock
0000000000000000: 00000002 00000000 00010000 0001 01 32 /proc/self/fd/7/y.sock
`
	got, unplaced := unixSocketPaths([]byte(in))
	want := []string{"/run/a.sock", "/var/tmp/with two spaces.sock", "/run/a.sock"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(unplaced) != 2 || unplaced["31"] != "rel/x.sock" || unplaced["32"] != "/proc/self/fd/7/y.sock" {
		t.Errorf("unplaced %q, want the relative name and the one through /proc by inode", unplaced)
	}
}

// listen makes a listening socket at path for the test's duration. Its
// file stays when it is closed; see socketGrace.
func listen(t *testing.T, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	t.Cleanup(func() { ln.Close() })
}

// listAlso adds paths to the host's sockets (listHostSockets) until t
// ends. A test's socket that is listed while its file goes must be one
// only this process lists: every spawn on the host, the other test
// binary's too, lists the real ones, and fails when the file is gone
// before its bwrap mounts over it.
func listAlso(t *testing.T, paths ...string) {
	t.Helper()
	own := listHostSockets
	listHostSockets = func() []string { return append(own(), paths...) }
	t.Cleanup(func() { listHostSockets = own })
}

// socketFile makes a socket file at path that no socket is bound to, so
// that no listing of the host's names it.
func socketFile(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mknod(path, syscall.S_IFSOCK|0o777, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		t.Fatal(err)
	}
}

// sharedTempDir makes a world-writable sticky directory in dir, as
// /var/tmp is on the host.
func sharedTempDir(t *testing.T, dir string) string {
	t.Helper()
	d := filepath.Join(dir, "shared")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSocketFacts: the plan hides the host's sockets outside the
// workspace, not the workspace's own, nor one in a place the sandbox does
// not show (its private /tmp), nor a granted one, nor one whose file is
// gone; Config.Sockets must name sockets.
func TestSocketFacts(t *testing.T) {
	base, ws := spawnEnv(t)
	t.Cleanup(func() { time.Sleep(socketGrace) }) // after the sockets close, before base goes
	out := runDir(t)
	host := filepath.Join(out, "host.sock")
	scratch := filepath.Join(sharedTempDir(t, base), "scratch.sock")
	granted := filepath.Join(out, "granted.sock")
	gone := filepath.Join(out, "gone.sock")
	own := filepath.Join(ws, "own.sock")
	tmp := filepath.Join(t.TempDir(), "tmp.sock")
	for _, p := range []string{host, granted, own, tmp, scratch} {
		listen(t, p)
	}
	listAlso(t, gone) // listed, its file gone: as a program that unlinked its socket
	p, err := newPlan("linux", Config{Workspace: ws, Sockets: []string{granted}})
	if err != nil {
		t.Fatal(err)
	}
	var hidden, grants []string
	for _, f := range p.sockets {
		hidden = append(hidden, f.path)
	}
	for _, f := range p.socketGrants {
		grants = append(grants, f.path)
	}
	if !slices.Contains(hidden, host) || slices.ContainsFunc(hidden, func(s string) bool { return s == granted || s == own || s == tmp || s == gone }) {
		t.Errorf("hidden sockets %q: want %s, and not the granted, own, /tmp or removed one", hidden, host)
	}
	for _, f := range p.sockets {
		// Only the test's own: another test or process may have one
		// open under /var/tmp meanwhile, rightly marked.
		if f.path != host && f.path != scratch {
			continue
		}
		if f.sharedTemp != (f.path == scratch) {
			t.Errorf("%s: sharedTemp %v", f.path, f.sharedTemp)
		}
	}
	if !slices.Equal(grants, []string{granted}) {
		t.Errorf("grants %q, want %q", grants, granted)
	}
	args, err := PrefixFor("linux", Config{Workspace: ws, Sockets: []string{granted}})
	if err != nil {
		t.Fatal(err)
	}
	if !containsRun(args.Args, "--ro-bind-data", p.nullFD, host) || !containsRun(args.Args, "--ro-bind", granted, granted) {
		t.Errorf("argv lacks the hiding or the grant: %q", args.Args)
	}
	if !containsRun(args.Args, "--ro-bind-data", p.nullFD, scratch) {
		t.Errorf("argv does not hide %s, under a world-writable sticky directory: %q", scratch, args.Args)
	}

	notSocket := filepath.Join(out, "file")
	if err := os.WriteFile(notSocket, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{notSocket, filepath.Join(out, "missing.sock"), "relative.sock"} {
		if _, err := newPlan("linux", Config{Workspace: ws, Sockets: []string{bad}}); !errors.Is(err, ErrBadPath) {
			t.Errorf("Sockets %q: %v, want ErrBadPath", bad, err)
		}
	}
	// A socket under a directory the caller cannot search, bwrap cannot
	// mount over: left alone (the command cannot reach it either).
	private := mkdir(t, out, "private")
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	unreachable := filepath.Join(private, "s.sock")
	listen(t, unreachable)
	ownID := socketIdentity
	defer func() { socketIdentity = ownID }()
	socketIdentity = func() identity { return identity{uid: 12345, gids: []uint32{12345}} }
	if p, err = newPlan("linux", Config{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	for _, f := range p.sockets {
		if f.path == unreachable {
			t.Errorf("hides %s, which uid 12345 cannot reach", unreachable)
		}
	}
	socketIdentity = ownID

	// Under policy off nothing is hidden, and a grant is still checked.
	p, err = newPlan("linux", Config{Workspace: ws, Policy: Off})
	if err != nil || len(p.sockets) != 0 {
		t.Errorf("policy off: %v, hides %v", err, p.sockets)
	}
}

// runDir is a directory for host sockets under /run, where services keep
// theirs, outside any world-writable sticky directory; it goes a while
// after the test's sockets close (see socketGrace).
func runDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/run", "sandtable-test-")
	if err != nil {
		t.Skipf("no directory under /run: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { time.Sleep(socketGrace); os.RemoveAll(dir) })
	return dir
}

// containsRun reports whether args holds run as consecutive elements.
func containsRun(args []string, run ...string) bool {
	for i := range args {
		if len(args)-i >= len(run) && slices.Equal(args[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

func TestVanishedSocket(t *testing.T) {
	p := &plan{sockets: []pathFact{{path: "/run/a.sock", kind: kindFile}}, socketDirs: []pathFact{{path: "/run/s", kind: kindDir}}}
	for msg, want := range map[string]string{
		"bwrap: Can't mkdir /run/s: Read-only file system\n":                                                        "/run/s",
		"bwrap: Can't mkdir /run/sx: Read-only file system\n":                                                       "",
		"bwrap: Can't create file at /run/a.sock: Read-only file system\n":                                          "/run/a.sock",
		"bwrap: Can't bind mount /bindfileX on /newroot/run/a.sock: Unable to mount source on destination: No such": "/run/a.sock",
		"bwrap: Can't create file at /run/a.sockx: Read-only file system\n":                                         "",
		"bwrap: Creating new namespace failed: Operation not permitted\n":                                           "",
	} {
		if got := vanishedSocket(p, msg); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestPlaceSocketsFlood: a service's sockets bound by a relative name and
// through its descriptor of the same directory are placed (found under its
// working directory, and under what the descriptor names) however many
// other such names are listed: 20,000 relative names and 20,000 through a descriptor
// number, none of them a file anywhere, as a process that binds them all
// would list them, neither push it out nor make the look slow. The
// listings are read once per directory, not once per name.
func TestPlaceSocketsFlood(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	svc := exec.Command(py, "-c", `
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("victim.sock")
s.listen(1)
fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
s2 = socket.socket(socket.AF_UNIX)
s2.bind("/proc/self/fd/%d/victim2.sock" % fd)
s2.listen(1)
print(fd, flush=True)
sys.stdin.read()
`)
	svc.Dir = dir
	stdin, err := svc.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := svc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); svc.Wait() })
	fd, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	// The same directory through the working directory and a descriptor.
	unplaced := map[string]string{"1": "victim.sock", "2": "/proc/self/fd/" + strings.TrimSpace(fd) + "/victim2.sock"}
	for i := range 20000 {
		unplaced[fmt.Sprint(10+i)] = fmt.Sprintf("flood%d.sock", i)
		unplaced[fmt.Sprint(100000+i)] = fmt.Sprintf("/proc/self/fd/%d/flood%d.sock", 3+i%40, i)
	}
	start := time.Now()
	got := placeSockets(unplaced)
	took := time.Since(start)
	for _, name := range []string{"victim.sock", "victim2.sock"} {
		want := filepath.Join(dir, name)
		if real, err := filepath.EvalSymlinks(want); err == nil {
			want = real
		}
		if !slices.Contains(got, want) {
			t.Errorf("placeSockets found %q, want %s among them", got, want)
		}
	}
	t.Logf("placed %d in %v", len(got), took)
}

// TestDiagSocketPaths compares the kernel's socket list (diagSocketPaths,
// NETLINK_SOCK_DIAG) with /proc/net/unix for sockets the test binds: the
// same paths and unplaced names, by the same inodes, no abstract one, and
// a name with a newline read whole where the text splits it.
func TestDiagSocketPaths(t *testing.T) {
	dir := realTempDir(t)
	plain := []string{dir + "/a.sock", dir + "/with two spaces.sock"}
	for _, p := range plain {
		listen(t, p)
	}
	newline := dir + "/new\nline.sock"
	listen(t, newline)
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	viaFD := fmt.Sprintf("/proc/self/fd/%d/via-fd.sock", d.Fd())
	listen(t, viaFD)
	abstract := "@sandtable-test-diag-" + filepath.Base(dir)
	listen(t, abstract)

	paths, unplaced, err := diagSocketPaths()
	if errors.Is(err, syscall.ENOENT) {
		t.Skipf("no unix_diag in this kernel: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := readProcFile("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	procPaths, procUnplaced := unixSocketPaths(b)
	mine := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if strings.HasPrefix(p, dir+"/") || strings.Contains(p, "sandtable-test-diag-") {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	if got, want := mine(paths), append(slices.Clone(plain), newline); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("diagSocketPaths: the test's paths %q, want %q", got, want)
	}
	// The text splits the newline's name: its first line, no socket's path.
	if got, want := mine(procPaths), append(slices.Clone(plain), dir+"/new"); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("/proc/net/unix: the test's paths %q, want %q", got, want)
	}
	find := func(m map[string]string) string {
		for ino, name := range m {
			if name == viaFD {
				return ino
			}
		}
		return ""
	}
	if ino := find(unplaced); ino == "" || ino != find(procUnplaced) {
		t.Errorf("unplaced %s: inode %q from the kernel's list, %q from /proc/net/unix; want one and the same", viaFD, ino, find(procUnplaced))
	}
}

// TestSocketFactsUncleanNames: a socket bound by a name that is not clean
// (a doubled slash, a dot, a dot-dot, as $XDG_RUNTIME_DIR/ + /bus makes
// one) is hidden at its clean path, as one bound by its clean name is.
func TestSocketFactsUncleanNames(t *testing.T) {
	base, ws := spawnEnv(t)
	t.Cleanup(func() { time.Sleep(socketGrace) })
	dir := mkdir(t, base, "unclean")
	names := map[string]string{
		dir + "//doubled.sock":                         dir + "/doubled.sock",
		dir + "/./dot.sock":                            dir + "/dot.sock",
		dir + "/../" + filepath.Base(dir) + "/up.sock": dir + "/up.sock",
		dir + "/clean.sock":                            dir + "/clean.sock",
	}
	for bound := range names {
		listen(t, bound)
	}
	p, err := newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	hidden := func(s string) bool {
		return slices.ContainsFunc(p.sockets, func(f pathFact) bool { return f.path == s }) ||
			slices.ContainsFunc(p.socketDirs, func(f pathFact) bool { return under(s, f.path) })
	}
	for bound, clean := range names {
		if !hidden(clean) {
			t.Errorf("bound as %q: %s is not hidden (sockets %v, rebuilt directories %v)", bound, clean, p.sockets, p.socketDirs)
		}
	}
}
