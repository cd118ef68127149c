package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// TestSeccompConstants checks the numbers the generator spelled out for
// the table's seccomp entries (gen/vocab.go) against x/sys for the running
// arch (internal/seccomp's own constants: its TestConstants).
func TestSeccompConstants(t *testing.T) {
	arches, ok := seccomp.Arches[runtime.GOARCH]
	if !ok {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	native := arches[0]
	// The numbers the generator has for the table's entries (gen/vocab.go),
	// for the native ABI; a name missing here is one to add with its
	// x/sys constant.
	syscalls := map[string]uint32{"add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY, "keyctl": unix.SYS_KEYCTL}
	for name, nr := range probeCalls {
		syscalls[name] = nr
	}
	syscalls["socketcall"] = seccomp.NoSyscall // i386's alone among the ABIs
	for _, sc := range seccompSyscalls {
		if want, ok := syscalls[sc.Name]; !ok || sc.Nr[native.ABI] != want {
			t.Errorf("%s: %s = %d on %s, want %d (known: %v)", sc.Rule, sc.Name, sc.Nr[native.ABI], runtime.GOARCH, want, ok)
		}
	}
	for _, mc := range seccompModeCalls {
		want, ok := syscalls[mc.Name]
		if !ok {
			want = seccomp.NoSyscall // not on this ABI
		}
		if mc.Nr[native.ABI] != want {
			t.Errorf("%s: %s = %d on %s, want %d", mc.Rule, mc.Name, mc.Nr[native.ABI], runtime.GOARCH, want)
		}
	}
	families := map[string]uint32{"AF_UNIX": unix.AF_UNIX, "AF_INET": unix.AF_INET, "AF_INET6": unix.AF_INET6, "AF_NETLINK": unix.AF_NETLINK}
	for _, fr := range seccompFamilies {
		if fr.Calls[0][native.ABI] != unix.SYS_SOCKET || fr.Calls[1][native.ABI] != unix.SYS_SOCKETPAIR {
			t.Errorf("%s: socket, socketpair = %v on %s, want %d, %d", fr.Rule, fr.Calls, runtime.GOARCH, unix.SYS_SOCKET, unix.SYS_SOCKETPAIR)
		}
		for i, name := range fr.Names {
			if want, ok := families[name]; !ok || fr.Keep[i] != want {
				t.Errorf("%s: %s = %d, want %d (known: %v)", fr.Rule, name, fr.Keep[i], want, ok)
			}
		}
		if fr.Errno != uint32(unix.EAFNOSUPPORT) && fr.Errno != uint32(unix.EPERM) {
			t.Errorf("%s: errno %d", fr.Rule, fr.Errno)
		}
	}
	ioctls := map[string]uint32{
		"TIOCSTI": unix.TIOCSTI, "TIOCLINUX": unix.TIOCLINUX, "TIOCSETD": unix.TIOCSETD, "TIOCEXCL": unix.TIOCEXCL,
		"TIOCCONS": unix.TIOCCONS, "TIOCSSERIAL": unix.TIOCSSERIAL, "TIOCVHANGUP": unix.TIOCVHANGUP,
		"TIOCSLCKTRMIOS": unix.TIOCSLCKTRMIOS, "TCXONC": unix.TCXONC,
	}
	for _, io := range seccompIoctls {
		if want, ok := ioctls[io.Name]; !ok || io.Request != want {
			t.Errorf("%s: %s = %#x, want %#x (known: %v)", io.Rule, io.Name, io.Request, want, ok)
		}
	}
	if err := seccomp.Check(seccompFilter(runtime.GOARCH)); err != nil {
		t.Error(err)
	}
}

// seccompProbe is run inside bwrap: it calls keyctl and request_key on a
// key the test put in its session keyring, add_key into its own process
// keyring, and ioctl on /dev/null with each request it is given (every
// one the table refuses, and TIOCSTI with the high word set), and prints
// each errno. Without the filter the key is read and found, one is added,
// and the ioctls on a non-terminal say ENOTTY; with it every one says
// EPERM.
const seccompProbe = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
keyctl, ioctl, add_key, request_key = (int(a) for a in sys.argv[1:5])
desc = sys.argv[5].encode()
libc.syscall.restype = ctypes.c_long
def errno(r):
    return ctypes.get_errno() if r < 0 else 0
kid = libc.syscall(keyctl, ctypes.c_long(10), ctypes.c_long(-3), b"user", desc, ctypes.c_long(0))
if kid < 0:
    print("keyctl-errno", ctypes.get_errno())
else:
    buf = ctypes.create_string_buffer(256)
    n = libc.syscall(keyctl, ctypes.c_long(11), ctypes.c_long(kid), buf, ctypes.c_long(256))
    print("key", buf.raw[:n].decode())
print("request_key-errno", errno(libc.syscall(request_key, b"user", desc, None, ctypes.c_long(0))))
print("add_key-errno", errno(libc.syscall(add_key, b"user", desc + b"-planted", b"v", ctypes.c_long(1), ctypes.c_long(-2))))
for req in (int(a) for a in sys.argv[6:]):
    r = libc.syscall(ioctl, ctypes.c_long(0), ctypes.c_ulong(req), b"x")
    print("ioctl-%x-errno" % (req & 0xffffffff), errno(r))
`

func TestSeccompFilterUnderBwrap(t *testing.T) {
	bwrap, filter, python := filterProbeSetup(t)
	// Credentials, the session keyring among them, belong to a thread: the
	// thread that adds the key must be the one that forks bwrap. The thread
	// is dropped, not reused, when the test's goroutine ends locked.
	runtime.LockOSThread()
	desc := fmt.Sprintf("sandtable-test-%d", os.Getpid())
	secret := "keyring-secret-" + desc
	id, err := unix.AddKey("user", desc, []byte(secret), unix.KEY_SPEC_SESSION_KEYRING)
	if err != nil {
		t.Skipf("cannot add a key to the session keyring here: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_SESSION_KEYRING, 0, 0) })

	probeArgs := []string{python, "-c", seccompProbe,
		fmt.Sprint(unix.SYS_KEYCTL), fmt.Sprint(unix.SYS_IOCTL), fmt.Sprint(unix.SYS_ADD_KEY), fmt.Sprint(unix.SYS_REQUEST_KEY), desc,
		fmt.Sprint(uint64(1)<<32 | unix.TIOCSTI)}
	eperm, enotty := fmt.Sprint(int(unix.EPERM)), fmt.Sprint(int(unix.ENOTTY))
	want := "keyctl-errno " + eperm + "\nrequest_key-errno " + eperm + "\nadd_key-errno " + eperm + "\n" +
		fmt.Sprintf("ioctl-%x-errno %s\n", unix.TIOCSTI, eperm)
	wantControl := "key " + secret + "\nrequest_key-errno 0\nadd_key-errno 0\n" +
		fmt.Sprintf("ioctl-%x-errno %s\n", unix.TIOCSTI, enotty)
	for _, io := range seccompIoctls {
		probeArgs = append(probeArgs, fmt.Sprint(io.Request))
		want += fmt.Sprintf("ioctl-%x-errno %s\n", io.Request, eperm)
		wantControl += fmt.Sprintf("ioctl-%x-errno %s\n", io.Request, enotty)
	}
	run := func(withFilter bool) string { return underFilter(t, nil, bwrap, filter, withFilter, nil, probeArgs) }

	got := run(true)
	if got != want {
		t.Errorf("with the filter the child printed\n%swant\n%s", got, want)
	}
	control := run(false)
	if control != wantControl {
		t.Errorf("control without the filter printed\n%swant\n%s", control, wantControl)
	}
}

// seccompSetidProbe sets modes and creates files in the sandbox's /tmp
// through every raw call the table names that this ABI has, with 0755,
// 04755 and 02755, then opens a file through openat2 and starts an
// io_uring, printing each errno. With the filter the setuid and setgid
// modes, openat2 and io_uring say EPERM, and 0755 and a plain open (whose
// ignored mode argument has the setuid bit) still work.
const seccompSetidProbe = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = dict(a.split("=") for a in sys.argv[1:])
cwd, L = ctypes.c_long(-100), ctypes.c_long
def errno(r):
    return ctypes.get_errno() if r < 0 else 0
def call(name, *args):
    return errno(libc.syscall(L(int(nr[name])), *args))
os.close(os.open("/tmp/f", os.O_CREAT | os.O_WRONLY, 0o644))
fd = os.open("/tmp/f", os.O_RDONLY)
creating = L(os.O_CREAT | os.O_WRONLY)
tries = {
    "chmod": lambda m: call("chmod", b"/tmp/f", L(m)),
    "fchmod": lambda m: call("fchmod", L(fd), L(m)),
    "fchmodat": lambda m: call("fchmodat", cwd, b"/tmp/f", L(m), L(0)),
    "fchmodat2": lambda m: call("fchmodat2", cwd, b"/tmp/f", L(m), L(0)),
    "creat": lambda m: call("creat", b"/tmp/c%o" % m, L(m)),
    "open": lambda m: call("open", b"/tmp/o%o" % m, creating, L(m)),
    "openat": lambda m: call("openat", cwd, b"/tmp/a%o" % m, creating, L(m)),
    "mknod": lambda m: call("mknod", b"/tmp/n%o" % m, L(0o100000 | m), L(0)),
    "mknodat": lambda m: call("mknodat", cwd, b"/tmp/t%o" % m, L(0o100000 | m), L(0)),
}
for name in sorted(tries):
    if name in nr:
        print(name, tries[name](0o755), tries[name](0o4755), tries[name](0o2755))
print("open-plain", call("openat", cwd, b"/tmp/f", L(os.O_RDONLY), L(0o4755)))
how = (ctypes.c_uint64 * 3)(os.O_RDONLY, 0, 0)
print("openat2", call("openat2", cwd, b"/tmp/f", how, L(24)))
params = (ctypes.c_uint8 * 120)()
print("io_uring_setup", call("io_uring_setup", L(1), params))
`

// TestSeccompSetidUnderBwrap: a setuid file left in the workspace keeps its
// bit on the host, a root shell when the caller is root. The setid modes
// fail with EPERM (the calls exist, one argument is refused); openat2 and
// io_uring_setup with ENOSYS, as on a kernel without them, so programs fall
// back. The control runs the same probe without the filter; both run as
// root and as the unprivileged user.
func TestSeccompSetidUnderBwrap(t *testing.T) {
	bwrap, filter, python := filterProbeSetup(t)
	probeArgs := []string{python, "-c", seccompSetidProbe}
	for name, nr := range probeCalls {
		probeArgs = append(probeArgs, fmt.Sprintf("%s=%d", name, nr))
	}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) { seccompSetidProbeAs(t, u, bwrap, filter, probeArgs) })
	}
}

func seccompSetidProbeAs(t *testing.T, u *escUser, bwrap string, filter []byte, probeArgs []string) {
	run := func(withFilter bool) string {
		return underFilter(t, u, bwrap, filter, withFilter, []string{"--tmpfs", "/tmp"}, probeArgs)
	}
	var modes []string
	for _, mc := range seccompModeCalls {
		if _, ok := probeCalls[mc.Name]; ok {
			modes = append(modes, mc.Name)
		}
	}
	slices.Sort(modes)
	eperm, enosys := fmt.Sprint(int(unix.EPERM)), fmt.Sprint(int(unix.ENOSYS))
	var want, control strings.Builder
	for _, name := range modes {
		fmt.Fprintf(&want, "%s 0 %s %s\n", name, eperm, eperm)
		fmt.Fprintf(&control, "%s 0 0 0\n", name)
	}
	fmt.Fprintf(&want, "open-plain 0\nopenat2 %s\nio_uring_setup %s\n", enosys, enosys)
	fmt.Fprintf(&control, "open-plain 0\nopenat2 0\nio_uring_setup 0\n")
	if got := run(true); got != want.String() {
		t.Errorf("with the filter the child printed\n%swant\n%s", got, want.String())
	}
	if got := run(false); got != control.String() {
		t.Errorf("control without the filter printed\n%swant\n%s", got, control.String())
	}
	if len(modes) != len(seccompModeCalls)-len(absentCalls) {
		t.Errorf("the probe tries %q, the table names %d calls, %d of them absent here", modes, len(seccompModeCalls), len(absentCalls))
	}
}

// probeCalls are the numbers, on this ABI, of every call the probes make.
var probeCalls = func() map[string]uint32 {
	m := map[string]uint32{
		"fchmod": unix.SYS_FCHMOD, "fchmodat": unix.SYS_FCHMODAT, "fchmodat2": unix.SYS_FCHMODAT2,
		"openat": unix.SYS_OPENAT, "mknodat": unix.SYS_MKNODAT, "openat2": unix.SYS_OPENAT2,
		"io_uring_setup": unix.SYS_IO_URING_SETUP,
	}
	for name, nr := range legacyCalls {
		m[name] = nr
	}
	return m
}()

// underFilter runs argv as u (nil: this process's user) in a bare bwrap
// sandbox (the host read-only, with extra bwrap options), with filter
// loaded when withFilter, and returns its stdout.
func underFilter(t *testing.T, u *escUser, bwrap string, filter []byte, withFilter bool, extra, argv []string) string {
	t.Helper()
	args := append([]string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}, extra...)
	args = append(args, "--unshare-user", "--unshare-pid", "--die-with-parent")
	cmd := exec.Command(bwrap)
	if u != nil && u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	if withFilter {
		fd, err := unix.MemfdCreate("seccomp", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(fd), "seccomp")
		defer f.Close()
		if _, err := f.Write(filter); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		cmd.ExtraFiles = []*os.File{f}
		args = append(args, "--seccomp", "3")
	}
	cmd.Args = append(append(append([]string{bwrap}, args...), "--"), argv...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bwrap (filter %v): %v\n%s", withFilter, err, stderr.String())
	}
	return out.String()
}

// filterProbeSetup is what the probes under the filter need: a working
// bwrap, this architecture's filter, and python3 to make raw calls.
func filterProbeSetup(t *testing.T) (bwrap string, filter []byte, python string) {
	t.Helper()
	bwrap = realBwrap(t)
	if filter = seccompFilter(runtime.GOARCH); filter == nil {
		t.Skipf("no seccomp filter for %s", runtime.GOARCH)
	}
	// From the suite's PATH, which every user can run.
	if python = escLook("python3"); python == "" {
		t.Skip("python3 is needed to make the raw system calls")
	}
	return bwrap, filter, python
}
