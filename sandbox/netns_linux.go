package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/sandtable/sandtable/internal/netlink"
	"github.com/sandtable/sandtable/internal/proxy"
	"golang.org/x/sys/unix"
)

// The network helper. In network mode proxy, bwrap does not start from the
// caller: the caller's own executable (/proc/self/exe) starts in a new user
// and network namespace that it owns, with the takeover table
// (takeover_linux.go) seeing netnsEnv. It brings that namespace's loopback up, binds the proxy's
// listeners there, hands them to the caller over a unix socket
// (SCM_RIGHTS), waits for the caller to serve them, and then execs bwrap in
// place, whose --share-net joins this namespace and not the host's. The
// caller serves the listeners from its own process, the only place that
// reaches the network.

// netnsEnv marks the helper. Its value is
// "FD:NETNS:PORTS:PROGRAM": the socket to the caller, the caller's network
// namespace (the helper refuses to run in it), the DNS stub's ports
// (comma-separated) and bwrap's path.
const netnsEnv = "SANDTABLE_NETNS_HELPER"

// helperTimeout bounds the handshake with the helper.
const helperTimeout = 10 * time.Second

// netnsArg0 is the helper's argv[0]. The variable alone does not make one:
// whoever sets a program's environment would otherwise turn any program
// that imports this package into the helper (TestNetnsHelperNeedsArg0).
const netnsArg0 = "sandtable-netns-helper"

// runNetnsHelper is the helper's whole life; it returns only on failure,
// having told the caller why.
func runNetnsHelper(v string) int {
	parts := strings.SplitN(v, ":", 4)
	if len(parts) != 4 {
		fmt.Fprintf(os.Stderr, "sandbox: network helper: malformed %s\n", netnsEnv)
		return 125
	}
	fd, err := strconv.Atoi(parts[0])
	if err != nil || fd < 3 {
		fmt.Fprintf(os.Stderr, "sandbox: network helper: malformed %s\n", netnsEnv)
		return 125
	}
	sock := os.NewFile(uintptr(fd), "caller")
	fail := func(err error) int {
		msg := "error " + err.Error()
		if _, werr := sock.Write([]byte(msg)); werr != nil {
			fmt.Fprintf(os.Stderr, "sandbox: network helper: %v\n", err)
		}
		return 125
	}
	if secureExec() {
		return fail(errSecureExec)
	}
	if ino, err := netnsID(); err != nil {
		return fail(err)
	} else if ino == parts[1] {
		return fail(errors.New("the helper runs in the caller's network namespace (was SysProcAttr replaced?)"))
	}
	if err := loopbackUp(); err != nil {
		return fail(err)
	}
	var ports []int
	for _, p := range strings.Split(parts[2], ",") {
		if port, err := strconv.Atoi(p); err == nil {
			ports = append(ports, port)
		}
	}
	fds, err := bindListeners(ports)
	if err != nil {
		return fail(err)
	}
	if err := unix.Sendmsg(fd, []byte("ok"), unix.UnixRights(fds...), nil, 0); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: network helper: send listeners: %v\n", err)
		return 125
	}
	for _, l := range fds {
		unix.Close(l)
	}
	// The caller answers once it serves them; its end closing first means
	// it gave up, and nothing runs.
	var ack [8]byte
	if n, err := sock.Read(ack[:]); err != nil || string(ack[:n]) != "go" {
		return 125
	}
	sock.Close()
	// The capabilities the caller gave for the network setup end here.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: network helper: clear ambient capabilities: %v\n", err)
		return 125
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, netnsEnv+"=") })
	err = syscall.Exec(parts[3], append([]string{parts[3]}, os.Args[1:]...), env)
	fmt.Fprintf(os.Stderr, "sandbox: network helper: exec %s: %v\n", parts[3], err)
	return 125
}

// netnsID names this process's network namespace.
func netnsID() (string, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
		return "", fmt.Errorf("network namespace: %w", err)
	}
	return strconv.FormatUint(st.Dev, 10) + "." + strconv.FormatUint(st.Ino, 10), nil
}

// loopbackUp sets the up flag of this namespace's lo.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// listenLoopback returns a close-on-exec TCP listener on 127.0.0.1:port.
func listenLoopback(port int) (int, error) {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("listen 127.0.0.1:%d: %w", port, err)
	}
	_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := unix.Bind(s, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(s)
		return -1, fmt.Errorf("listen 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(s, 128); err != nil {
		unix.Close(s)
		return -1, fmt.Errorf("listen 127.0.0.1:%d: %w", port, err)
	}
	return s, nil
}

// netGate is the caller's side of one helper: it turns a bwrap exec.Cmd
// into one that starts the helper, and serves the listeners it hands over.
type netGate struct {
	serve func(net.Listener)
	stub  *proxy.DNSStub // the DNS stub, nil for none
	ports []int          // its ports

	conn   *net.UnixConn // the caller's end, until the handshake ends
	child  *os.File      // the helper's end, closed once it started
	lns    []io.Closer
	closed bool
}

// prepare rewrites run to start the helper; restore undoes it.
func (g *netGate) prepare(run *exec.Cmd) (restore func(), err error) {
	id, err := netnsID()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", run.Path, err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: socketpair: %w", run.Path, err)
	}
	parent := os.NewFile(uintptr(fds[0]), "netns-helper")
	c, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, fmt.Errorf("sandbox: start %s: %w", run.Path, err)
	}
	g.conn = c.(*net.UnixConn)
	g.child = os.NewFile(uintptr(fds[1]), "netns-helper")

	path, args, env, extra, attr := run.Path, run.Args, run.Env, run.ExtraFiles, run.SysProcAttr
	run.Args = append([]string{netnsArg0}, args[1:]...)
	if env == nil {
		env = os.Environ()
	}
	run.Env = append(slices.Clip(env), netnsEnv+"="+strconv.Itoa(3+len(extra))+":"+id+":"+stubPortList(g.ports)+":"+path)
	run.ExtraFiles = append(slices.Clip(extra), g.child)
	run.SysProcAttr = helperAttr(attr)
	run.Path = "/proc/self/exe"
	return func() { run.Path, run.Args, run.Env, run.ExtraFiles, run.SysProcAttr = path, args, env, extra, attr }, nil
}

// helperAttr is attr with the helper's namespaces: a user namespace mapping
// the uid and gid the command runs as to themselves, and the capabilities
// to set up the network namespace, which the helper drops before bwrap.
func helperAttr(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if attr != nil {
		c := *attr
		a = &c
	}
	uid, gid := os.Getuid(), os.Getgid()
	if a.Credential != nil {
		uid, gid = int(a.Credential.Uid), int(a.Credential.Gid)
	}
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	if os.Geteuid() == 0 && a.Credential == nil {
		// Root maps every id to itself, so that the namespace changes
		// nothing of whose files bwrap may bind, as without the helper.
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.UidMappings, a.GidMappings = all, all
	}
	// Only a root caller may keep setgroups, and it must: it is how a
	// Credential drops root's supplementary groups.
	a.GidMappingsEnableSetgroups = os.Geteuid() == 0
	a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE}
	return a
}

// started completes the handshake with the helper run started: it receives
// the listeners, serves them, and lets the helper go on to bwrap. On an
// error the helper ends without running anything.
func (g *netGate) started() error {
	g.child.Close()
	g.child = nil
	defer func() { g.conn.Close(); g.conn = nil }()
	_ = g.conn.SetReadDeadline(time.Now().Add(helperTimeout))
	buf := make([]byte, 512)
	want := len(proxy.Ports) + 1 + len(g.ports)
	oob := make([]byte, unix.CmsgSpace(4*want))
	n, oobn, _, _, err := g.conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return fmt.Errorf("sandbox: network helper: %w", err)
	}
	if msg := string(buf[:n]); msg != "ok" {
		if n == 0 {
			msg = "ended before it set up the network"
		}
		return fmt.Errorf("sandbox: network helper: %s: %w", strings.TrimPrefix(msg, "error "), ErrUnavailable)
	}
	fds, err := receivedFDs(oob[:oobn])
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if err != nil || len(fds) != want {
		return fmt.Errorf("sandbox: network helper: got %d listeners, want %d: %v", len(fds), want, err)
	}
	if err := g.adopt(fds); err != nil {
		fds = nil
		g.close()
		return err
	}
	fds = nil
	if _, err := g.conn.Write([]byte("go")); err != nil {
		g.close()
		return fmt.Errorf("sandbox: network helper: %w", err)
	}
	return nil
}

func receivedFDs(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		r, err := unix.ParseUnixRights(&m)
		if err != nil {
			return fds, err
		}
		fds = append(fds, r...)
	}
	return fds, nil
}

// abort closes what prepare opened when the helper never started.
func (g *netGate) abort() {
	if g.child != nil {
		g.child.Close()
		g.child = nil
	}
	if g.conn != nil {
		g.conn.Close()
		g.conn = nil
	}
	g.close()
}

// close stops serving: the command has ended.
func (g *netGate) close() {
	for _, ln := range g.lns {
		ln.Close()
	}
	g.lns = nil
}

// helperStartError explains a helper that could not start: most often, no
// user namespaces here, which bwrap needs in every network mode, so the
// hint is the diagnosis's (rules/linux.yaml, diagnose), never another mode.
func helperStartError(prog string, err error) error {
	return &unavailableError{
		reason: "the network helper cannot create its user and network namespace for " + prog,
		hint:   probeHint(os.DirFS("/"), "the namespace's clone or unshare said: "+err.Error()),
	}
}

// stubPortList is ports as the helper's variable carries them.
func stubPortList(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// listenStub gives lo the stub's addresses (addStubAddress) and binds the
// DNS stub's sockets: UDP 127.0.0.1:53, then TCP on
// each of list's ports on every address (all of them loopback here).
func listenStub(list string) ([]int, error) {
	var fds []int
	fail := func(err error) ([]int, error) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, err
	}
	if err := addStubAddress(); err != nil {
		return fail(fmt.Errorf("dns stub: %w", err))
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("dns stub: %w", err))
	}
	fds = append(fds, s)
	if err := unix.Bind(s, &unix.SockaddrInet4{Port: 53, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail(fmt.Errorf("dns stub: bind 127.0.0.1:53: %w", err))
	}
	for _, p := range strings.Split(list, ",") {
		if p == "" {
			continue
		}
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return fail(fmt.Errorf("dns stub: port %q", p))
		}
		s, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fail(fmt.Errorf("dns stub: %w", err))
		}
		fds = append(fds, s)
		_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
		if err := unix.Bind(s, &unix.SockaddrInet4{Port: port}); err != nil {
			return fail(fmt.Errorf("dns stub: bind port %d: %w", port, err))
		}
		if err := unix.Listen(s, 128); err != nil {
			return fail(fmt.Errorf("dns stub: listen on port %d: %w", port, err))
		}
	}
	return fds, nil
}

// bindListeners binds, in this thread's network namespace, what a gate
// serves: the proxy's listeners, then the DNS stub's (listenStub). On an
// error none stays open.
func bindListeners(ports []int) ([]int, error) {
	var fds []int
	for _, port := range proxy.Ports {
		fd, err := listenLoopback(port)
		if err != nil {
			for _, fd := range fds {
				unix.Close(fd)
			}
			return nil, err
		}
		fds = append(fds, fd)
	}
	stub, err := listenStub(stubPortList(ports))
	if err != nil {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, err
	}
	return append(fds, stub...), nil
}

// adopt serves fds, in bindListeners' order: the proxy's listeners with
// g.serve, the DNS stub's with g.stub. It takes every descriptor over,
// closing those it could not use; on an error the caller closes g.
func (g *netGate) adopt(fds []int) error {
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "proxy-listener")
		var ln io.Closer
		var err error
		if i == len(proxy.Ports) {
			var pc net.PacketConn
			if pc, err = net.FilePacketConn(f); err == nil {
				ln = pc
				if g.stub != nil {
					go g.stub.ServeDNS(pc)
				}
			}
		} else {
			var l net.Listener
			if l, err = net.FileListener(f); err == nil {
				ln = l
				switch {
				case i < len(proxy.Ports):
					go g.serve(l)
				case g.stub != nil:
					go g.stub.Forward(l, g.ports[i-len(proxy.Ports)-1])
				}
			}
		}
		f.Close()
		if err != nil {
			for _, rest := range fds[i+1:] {
				unix.Close(rest)
			}
			return fmt.Errorf("sandbox: network helper: listener: %w", err)
		}
		g.lns = append(g.lns, ln)
	}
	return nil
}

// stubAddress is given to the sandbox's loopback interface beside
// 127.0.0.1: the DNS stub's addresses are in it, and with an address other
// than 127.0.0.1 glibc's getaddrinfo with AI_ADDRCONFIG (getent ahostsv4)
// finds the stub's answers instead of nothing.
var stubAddress = [4]byte{127, 77, 0, 0}

// addStubAddress adds stubAddress/16 to lo over rtnetlink (RTM_NEWADDR).
func addStubAddress() error {
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback address: %w", err)
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback address: %w", err)
	}
	err = unix.IoctlIfreq(s, unix.SIOCGIFINDEX, ifr)
	unix.Close(s)
	if err != nil {
		return fmt.Errorf("loopback index: %w", err)
	}
	body := make([]byte, unix.SizeofIfAddrmsg)
	*(*unix.IfAddrmsg)(unsafe.Pointer(&body[0])) = unix.IfAddrmsg{Family: unix.AF_INET, Prefixlen: 16, Scope: unix.RT_SCOPE_HOST, Index: ifr.Uint32()}
	body = append(body, netlink.Attr(unix.IFA_LOCAL, stubAddress[:])...)
	body = append(body, netlink.Attr(unix.IFA_ADDRESS, stubAddress[:])...)
	msgs, err := netlink.Route(unix.RTM_NEWADDR, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL, body)
	if err != nil {
		return fmt.Errorf("loopback address: %w", err)
	}
	if len(msgs) == 0 || msgs[0].Header.Type != unix.NLMSG_ERROR {
		return errors.New("loopback address: no acknowledgement")
	}
	return nil
}
