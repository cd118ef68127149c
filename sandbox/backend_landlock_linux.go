package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/sandtable/sandtable/internal/landlock"
	"golang.org/x/sys/unix"
)

// The landlock helper: the reduced backend's whole run. NewCmd, Command
// and Prefix give an argv that re-executes this program with
// landlockHelperArg (backend_prefix.go), which the takeover table
// catches (takeover_linux.go); the helper, outside the sandbox,
// makes the run's temporary directory, serves the proxy in mode proxy,
// copies the protected paths, becomes the run's child subreaper and says
// the run is reduced; then, from a thread that drops its capabilities,
// enters the Landlock domain and loads the seccomp filters, it starts the
// command (landlock section of rules/linux.yaml). It forwards signals,
// waits, kills what is left of the run, checks the protected paths, and
// ends with the command's status: 125 when the sandbox could not be set
// up or a protected path was changed.

// landlockNewCmd finishes NewCmd's Cmd for the reduced backend: the
// helper's streams are the stdio rows' (Start guards them), and
// Network.Refused hears the helper's proxy.
func landlockNewCmd(c *Cmd, p *plan) error {
	if err := landlockCommand(c.Cmd, p); err != nil {
		return err
	}
	if p.netProxy && p.net.Refused != nil {
		// The helper's end of the report socket, closed here once Start
		// has passed it on.
		c.owned = append(c.owned, c.Cmd.ExtraFiles[len(c.Cmd.ExtraFiles)-1])
	}
	return nil
}

// landlockCommand is Command's (and NewCmd's) last step for the reduced
// backend: in mode proxy, Network.Refused hears the helper's proxy.
func landlockCommand(cmd *exec.Cmd, p *plan) error {
	if p.netProxy && p.net.Refused != nil {
		return hearRefused(cmd, p.net.Refused)
	}
	return nil
}

// llHelper is what the helper's words say.
type llHelper struct {
	ruleset   *landlock.Ruleset
	filters   [][]byte
	net       Network
	report    string
	workspace string
	roots     []string
	asIs      bool
	interact  bool
	nproc     uint64
	detect    bool
	protected []pathFact
	redirects [][2]string // variable, contents
}

func (h *llHelper) parse(args []string, extra []*os.File) (rest []string, err error) {
	take := func(word, v string) ([]byte, error) {
		fd, err := strconv.Atoi(v)
		if err != nil || fd < 3 || fd-3 >= len(extra) || extra[fd-3] == nil {
			return nil, fmt.Errorf("bad argument %q (want an inherited descriptor)", word)
		}
		f := extra[fd-3]
		extra[fd-3] = nil // not the command's
		defer f.Close()
		return io.ReadAll(f)
	}
	h.net.Mode = NetworkOff
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		w := args[i]
		switch {
		case strings.HasPrefix(w, llWordRuleset):
			data, err := take(w, strings.TrimPrefix(w, llWordRuleset))
			if err != nil {
				return nil, err
			}
			if h.ruleset, err = landlock.Unmarshal(data); err != nil {
				return nil, err
			}
		case strings.HasPrefix(w, llWordSeccomp):
			data, err := take(w, strings.TrimPrefix(w, llWordSeccomp))
			if err != nil {
				return nil, err
			}
			if len(data) == 0 || len(data)%8 != 0 {
				return nil, fmt.Errorf("bad argument %q: not a filter", w)
			}
			h.filters = append(h.filters, data)
		case strings.HasPrefix(w, llWordRedirect):
			env, fd, ok := strings.Cut(strings.TrimPrefix(w, llWordRedirect), ":")
			if !ok || env == "" {
				return nil, fmt.Errorf("bad argument %q", w)
			}
			data, err := take(w, fd)
			if err != nil {
				return nil, err
			}
			h.redirects = append(h.redirects, [2]string{env, string(data)})
		case strings.HasPrefix(w, llWordNetwork):
			switch strings.TrimPrefix(w, llWordNetwork) {
			case NetworkProxy.String():
				h.net.Mode = NetworkProxy
			case NetworkHost.String():
				h.net.Mode = NetworkHost
			case NetworkOff.String():
			default:
				return nil, fmt.Errorf("bad argument %q", w)
			}
		case strings.HasPrefix(w, "allow="):
			h.net.Allow = append(h.net.Allow, strings.TrimPrefix(w, "allow="))
		case strings.HasPrefix(w, "private="):
			h.net.Private = append(h.net.Private, strings.TrimPrefix(w, "private="))
		case strings.HasPrefix(w, wrapHelperConns):
			v := strings.TrimPrefix(w, wrapHelperConns)
			c, err := strconv.Atoi(v)
			switch {
			case v == "none":
				h.net.conns = -1
			case err != nil || c <= 0:
				return nil, fmt.Errorf("bad argument %q (want a positive number of connections, or none)", w)
			default:
				h.net.conns = c
			}
		case strings.HasPrefix(w, wrapHelperRefused):
			h.report = w
		case strings.HasPrefix(w, llWordWorkspace):
			h.workspace = strings.TrimPrefix(w, llWordWorkspace)
		case strings.HasPrefix(w, llWordRoot):
			h.roots = append(h.roots, strings.TrimPrefix(w, llWordRoot))
		case w == wrapHelperStdioAsIs:
			h.asIs = true
		case w == llWordInteract:
			h.interact = true
		case w == llWordDetect:
			h.detect = true
		case strings.HasPrefix(w, llWordNproc):
			n, err := strconv.ParseUint(strings.TrimPrefix(w, llWordNproc), 10, 64)
			if err != nil || n == 0 {
				return nil, fmt.Errorf("bad argument %q", w)
			}
			h.nproc = n
		default:
			f, ok := parseProtect(w)
			if !ok {
				return nil, fmt.Errorf("unknown argument %q", w)
			}
			h.protected = append(h.protected, f)
		}
	}
	if i+1 >= len(args) {
		return nil, errors.New("no program after --")
	}
	if h.ruleset == nil || !filepath.IsAbs(h.workspace) {
		return nil, errors.New("no ruleset or workspace")
	}
	h.roots = append([]string{h.workspace}, h.roots...)
	return args[i+1:], nil
}

// runLandlockHelper is the helper's life; its status is the command's.
func runLandlockHelper(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "sandbox: landlock helper: "+format+"\n", a...)
		return 125
	}
	extra, err := inheritedFiles()
	if err != nil {
		return fail("%v", err)
	}
	var h llHelper
	argv, err := h.parse(args, extra)
	if err != nil {
		return fail("%v", err)
	}
	if h.report != "" {
		var bye func()
		if h.net.Refused, bye, err = helperReporter(h.report, extra); err != nil {
			return fail("%v", err)
		}
		defer bye()
	}
	rs := h.ruleset
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, wrapHelperEnv+"=") })

	// The run's temporary directory (landlock-tmpdir).
	tmpdir, err := os.MkdirTemp("", "sandtable-run-")
	if err != nil {
		return fail("temporary directory (rule %s): %v", landlockDoesRows["tmpdir"], err)
	}
	defer removeTmpdir(tmpdir)
	if a, _ := landlockGrantFor(llTmpdir); a != 0 {
		rs.Rules = append(rs.Rules, landlock.Rule{Path: tmpdir, Access: a & rs.HandledFS, Dir: true, Must: true})
	}
	env = llSetEnv(env, "TMPDIR="+tmpdir, "TMP="+tmpdir, "TEMP="+tmpdir)
	// The redacted copies a tool is pointed at (landlock-redirect-*).
	for i, r := range h.redirects {
		p := filepath.Join(tmpdir, "sandtable-redacted-"+strconv.Itoa(i))
		if err := os.WriteFile(p, []byte(r[1]), 0o600); err != nil {
			return fail("redacted copy for %s: %v", r[0], err)
		}
		env = llSetEnv(env, r[0]+"="+p)
	}

	// The terminals among the standard streams (landlock-terminals).
	if a, _ := landlockGrantFor(llTerminals); a != 0 {
		for _, p := range stdioTerminals() {
			rs.Rules = append(rs.Rules, landlock.Rule{Path: p, Access: a & rs.HandledFS & landlock.FileRights})
		}
	}

	// Mode proxy: the proxy on the host's loopback, with the run's token.
	if h.net.Mode == NetworkProxy {
		stop, vars, port, err := serveLandlockProxy(h.net)
		if err != nil {
			return fail("%v", err)
		}
		defer stop()
		env = llSetEnv(env, vars...)
		if rs.HandledNet&landlock.ConnectTCP != 0 {
			rs.Connect = append(rs.Connect, port)
		}
	}

	prog, err := lookCommand(argv[0], h.workspace, env)
	if err != nil {
		return 127 + fail0(err)
	}
	run := &exec.Cmd{
		Path: prog, Args: argv, Env: env, Dir: h.workspace, ExtraFiles: extra,
		SysProcAttr: &syscall.SysProcAttr{Setsid: !h.interact, Pdeathsig: syscall.SIGKILL},
	}
	if err := wrapStdio(run, h.asIs); err != nil {
		return fail("%v", err)
	}

	// The protected paths, copied (landlock-protect-detect).
	var snaps []protectSnap
	if h.detect {
		if snaps, err = snapshotProtected(h.protected); err != nil {
			return fail("%v", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail("child subreaper (rule %s): %v", landlockDoesRows["subreaper"], err)
	}
	if h.nproc > 0 && os.Geteuid() != 0 {
		lim := unix.Rlimit{Cur: h.nproc, Max: h.nproc}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
			return fail("RLIMIT_NPROC (rule limit-processes): %v", err)
		}
	}
	sayReduced(rs.ABI)

	sigs := catchHelperSignals()
	// The watch is in place before the command starts: a change it makes
	// at once kills it as soon as its pid is known.
	var watch *protectWatch
	var killMu sync.Mutex
	started, changed := 0, false
	if len(snaps) > 0 {
		watch, err = watchProtectedTrees(snaps, h.roots, func() {
			killMu.Lock()
			defer killMu.Unlock()
			changed = true
			if started != 0 {
				killRun(started)
			}
		})
		if err != nil {
			return fail("%v", err)
		}
	}
	release, err := startRestricted(run, rs, h.filters)
	if err != nil {
		watch.stop()
		return fail("start %s: %v", argv[0], err)
	}
	killMu.Lock()
	started = run.Process.Pid
	if changed {
		killRun(started)
	}
	killMu.Unlock()
	for _, f := range extra {
		if f != nil {
			f.Close()
		}
	}
	sigs.wait(run)
	release()
	reapRun()
	watch.stop()
	if changed, err := checkProtected(snaps); len(changed) > 0 || err != nil {
		msg := "put back as it was"
		if err != nil {
			msg = "could not be put back: " + err.Error()
		}
		return fail("the run was stopped: it changed the protected path %s (rule %s); %s", strings.Join(changed, ", "), landlockProtectRows["detect"], msg)
	}
	return exitAs(run, func() { removeTmpdir(tmpdir) })
}

// fail0 prints err as the helper's and returns 0, for a status of its own.
func fail0(err error) int {
	fmt.Fprintf(os.Stderr, "sandbox: landlock helper: %v\n", err)
	return 0
}

// llSetEnv sets each NAME=VALUE in env, replacing the variable's value.
func llSetEnv(env []string, kvs ...string) []string {
	for _, kv := range kvs {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name+"=") })
		env = append(env, kv)
	}
	return env
}

// lookCommand finds name as execvp would from dir with env's PATH, a
// relative entry or name taken from dir: the first regular file there
// that the helper (the command's user) may execute.
func lookCommand(name, dir string, env []string) (string, error) {
	can := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil
	}
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if !can(name) {
			return "", fmt.Errorf("%s: not found, or not an executable file", name)
		}
		return name, nil
	}
	path := "/bin:/usr/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); can(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found", name)
}

// stdioTerminals are the terminal devices behind descriptors 0, 1 and 2,
// by the path /proc names, when that path is the same device.
func stdioTerminals() []string {
	var out []string
	for fd := 0; fd <= 2; fd++ {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
			continue
		}
		p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || !strings.HasPrefix(p, "/dev/") {
			continue
		}
		var a, b unix.Stat_t
		if unix.Fstat(fd, &a) != nil || unix.Stat(p, &b) != nil || a.Rdev != b.Rdev || a.Mode&unix.S_IFMT != unix.S_IFCHR {
			continue
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// serveLandlockProxy serves mode proxy on 127.0.0.1 with the
// proxy-auth-landlock row's credential, and returns the command's proxy
// variables and the port.
func serveLandlockProxy(n Network) (stop func(), vars []string, port uint16, err error) {
	q := &plan{netProxy: true}
	if row, ok := proxyAuthFor("landlock"); ok {
		if q.proxyCred, err = newProxyCred(row); err != nil {
			return nil, nil, 0, err
		}
	}
	pr, err := newProxy(n, q.proxyCred)
	if err != nil {
		return nil, nil, 0, err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, nil, 0, fmt.Errorf("network mode proxy: listen on loopback: %w", err)
	}
	q.proxyPort = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	go pr.Serve(ln)
	return func() { ln.Close() }, proxyEnv(q), uint16(ln.Addr().(*net.TCPAddr).Port), nil
}

// sayReduced is the say-reduced row's line: the backend, the ABI, and the
// rows it does not keep here.
func sayReduced(abi int) {
	if landlockDoesRows["say-reduced"] == "" {
		return
	}
	var weaker, lost []string
	for _, g := range Reduced(abi) {
		if g.Enforce == "lost" {
			if !slices.Contains(lost, g.Rule) {
				lost = append(lost, g.Rule)
			}
		} else {
			weaker = append(weaker, g.Rule)
		}
	}
	fmt.Fprintf(os.Stderr, "sandtable: reduced sandbox (backend landlock, Landlock ABI %d): lost: %s; weaker: %s (sandtable probe says why)\n",
		abi, strings.Join(lost, ", "), strings.Join(weaker, ", "))
}

// startRestricted starts run from a thread that drops its capabilities
// (landlock-cap-drop), enters rs's domain (no_new_privs with it) and loads
// filters, in that order. The thread lives until release: the command's
// parent-death signal is the thread's.
func startRestricted(run *exec.Cmd, rs *landlock.Ruleset, filters [][]byte) (release func(), err error) {
	errc := make(chan error, 1)
	done := make(chan struct{})
	onDyingThread(func() {
		prep, err := rs.Prepare()
		if err != nil {
			errc <- err
			return
		}
		if err := dropCapabilities(); err != nil {
			errc <- fmt.Errorf("rule %s: %w", landlockDoesRows["cap-drop"], err)
			return
		}
		if err := prep.Restrict(); err != nil {
			errc <- err
			return
		}
		for _, f := range filters {
			if err := loadFilter(f); err != nil {
				errc <- err
				return
			}
		}
		err = run.Start()
		errc <- err
		if err == nil {
			<-done
		}
	})
	if err := <-errc; err != nil {
		return nil, err
	}
	var once bool
	return func() {
		if !once {
			once = true
			close(done)
		}
	}, nil
}

// dropCapabilities empties the calling thread's capability sets: the
// bounding set where it may (CAP_SETPCAP), so that an execve as uid 0
// gains none back, then ambient, inheritable, permitted and effective.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		for c := 0; c <= unix.CAP_LAST_CAP; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// loadFilter installs a seccomp filter (struct sock_filter, as assembled)
// on the calling thread, which no_new_privs allows without privilege.
func loadFilter(f []byte) error {
	prog := unix.SockFprog{Len: uint16(len(f) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&f[0]))}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	return nil
}

// killRun kills the command and every process below it, as the helper
// sees them (the subreaper's own children included).
func killRun(pid int) {
	_ = unix.Kill(pid, unix.SIGKILL)
	for _, p := range runBelow(os.Getpid()) {
		_ = unix.Kill(p, unix.SIGKILL)
	}
}

// reapRun is the subreaper row's end of a run: every process left below
// the helper is killed and reaped, until none is, bounded.
func reapRun() {
	for range 200 {
		kids := runBelow(os.Getpid())
		if len(kids) == 0 {
			return
		}
		for _, p := range kids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// runBelow is the processes below root, from /proc.
func runBelow(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[pid] = pp
		}
	}
	var out []int
	for pid := range parent {
		for p, n := parent[pid], 0; p != 0 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}
