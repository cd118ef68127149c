package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/sandtable/sandtable/internal/proxy"
	"golang.org/x/sys/unix"
)

// The wrap helper runs every sandboxed argv that Command and Prefix return,
// which the caller runs after they have returned, so that what the sandbox
// decides at the start still applies: the stdio rows to the helper's own
// standard streams (wrapStdio), in mode host Landlock's abstract-unix-socket
// scope around bwrap, in mode proxy the proxy. The argv starts with this
// process's own executable (/proc/self/exe, so the process that runs it must
// be this one, as exec.Cmd's fork is) and wrapHelperArg; the takeover table
// (takeover_linux.go) catches it. In mode proxy the helper stays in the
// caller's network namespace, the only one that reaches the network, and
// serves the proxy there, while its child, the network helper of NewCmd's mode proxy, makes
// the sandbox's user and network namespace and becomes bwrap; the proxy's
// lists travel in the argv, which nothing in the sandbox can read or change
// (bwrap's pid namespace hides the helper), and not in the environment the
// command inherits. In modes host and off it starts bwrap itself. It passes
// its other descriptors on as they are, forwards the signals a caller sends,
// and ends as bwrap ends, with its status.

// The argv alone does not start the helper: a program that imports this
// package and passes untrusted words as its first arguments would run
// whatever follows the words' "--" outside any sandbox. The takeover table
// (takeover_linux.go) runs it only for what a deliberate re-exec by Command
// or Prefix has (wrapHelperCalled); a program that dispatches the helper
// itself (sandtable, whose explain prints a line to paste) calls
// RunNetworkHelper.

// RunNetworkHelper runs the wrap helper when args, a program's arguments
// after its name, start with the words [NetworkHelperArgv] renders, and
// returns its exit status; ok is false, and nothing ran, otherwise. Only
// such a line runs: mode proxy's lists, and after "--" the bwrap explain
// resolves (checkHelperLine); anything else is refused with status 125. A
// program calls it from main to serve a line NetworkHelperArgv printed;
// [Command] and [Prefix] need nothing of the kind.
func RunNetworkHelper(args []string) (status int, ok bool) {
	if len(args) == 0 || args[0] != wrapHelperArg {
		return 0, false
	}
	if secureExec() {
		fmt.Fprintf(os.Stderr, "sandbox: wrap helper: %v\n", errSecureExec)
		return 125, true
	}
	if err := checkHelperLine(args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: wrap helper: %v\n", err)
		return 125, true
	}
	return runWrapHelper(args[1:]), true
}

// wrapHelperCalled checks, beyond argv[0], what only a deliberate re-exec by
// Command or Prefix has: wrapHelperEnv names this process's parent, which
// (where the kernel shows it: not a parent of another user) is the same
// executable as this one. The helper also dies with that parent.
func wrapHelperCalled() error {
	if secureExec() {
		return errSecureExec
	}
	want, ppid := os.Getenv(wrapHelperEnv), os.Getppid()
	if want == "" || want != strconv.Itoa(ppid) {
		return fmt.Errorf("%s is %q, not this process's parent %d: not started by Command or Prefix", wrapHelperEnv, want, ppid)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("parent death signal: %w", err)
	}
	if os.Getppid() != ppid {
		return errors.New("the parent ended before the helper started")
	}
	var self, parent unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &self); err != nil {
		return fmt.Errorf("own executable: %w", err)
	}
	err := unix.Stat("/proc/"+want+"/exe", &parent)
	switch {
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
		// A parent of another user (a caller that set a Credential):
		// the kernel hides its executable, and the variable stands alone.
	case err != nil:
		return fmt.Errorf("parent's executable: %w", err)
	case parent.Dev != self.Dev || parent.Ino != self.Ino:
		return fmt.Errorf("the parent %d runs another executable: not started by Command or Prefix", ppid)
	}
	return nil
}

// wrapArgs is bwrap's argv behind the wrap helper, for plan p's network
// mode: Command and Prefix run every sandboxed argv through it.
func wrapArgs(p *plan, bwrap string, bwrapArgs []string) []string {
	mode := NetworkOff
	switch {
	case p.netProxy:
		mode = NetworkProxy
	case p.netHost:
		mode = NetworkHost
	}
	scope := p.netHost && !p.net.HostAbstract && scopeAbstract(bwrap)
	return withProtectWords(wrapHelperArgs(p.net, mode, scope, bwrap, bwrapArgs), protectWords(p))
}

// wrapCommand turns Command's bwrap exec.Cmd into the wrap helper's, which
// in mode proxy reports refusals to Network.Refused when it is set.
func wrapCommand(cmd *exec.Cmd, p *plan) error {
	args := wrapArgs(p, cmd.Path, cmd.Args[1:])
	cmd.Path = wrapHelperExe
	cmd.Args = append([]string{wrapHelperExe}, args...)
	cmd.Env = append(cmd.Env, wrapHelperParent())
	if p.netProxy && p.net.Refused != nil {
		return hearRefused(cmd, p.net.Refused)
	}
	return nil
}

// wrapPrefix puts Prefix's bwrap argv behind the wrap helper.
func wrapPrefix(w Wrap, p *plan) Wrap {
	w.Args = wrapArgs(p, w.Program, w.Args)
	w.Program = wrapHelperExe
	w.Env = append(w.Env, wrapHelperParent())
	return w
}

// wrapHelperSignals are forwarded to bwrap; bwrap dies of each (and the
// sandbox with it), as it would had the caller sent it there.
var wrapHelperSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// runWrapHelper is the wrap helper's whole life: its exit status is bwrap's,
// or 125 when the helper could not start it.
func runWrapHelper(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "sandbox: wrap helper: "+format+"\n", a...)
		return 125
	}
	n := Network{Mode: NetworkProxy}
	asIs, scope, lists, report := false, false, "", ""
	protect := &plan{} // the protected paths, for their placeholders (placeholder_wrap_linux.go)
	journal := ""      // where their record goes: the caller's journal
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		if v, ok := strings.CutPrefix(args[i], "allow="); ok {
			n.Allow, lists = append(n.Allow, v), args[i]
		} else if v, ok := strings.CutPrefix(args[i], "private="); ok {
			n.Private, lists = append(n.Private, v), args[i]
		} else if v, ok := strings.CutPrefix(args[i], wrapHelperConns); ok {
			lists = args[i]
			c, err := strconv.Atoi(v)
			switch {
			case v == "none":
				n.conns = -1
			case err != nil || c <= 0:
				return fail("bad argument %q (want a positive number of connections, or none)", args[i])
			default:
				n.conns = c
			}
		} else if strings.HasPrefix(args[i], wrapHelperRefused) {
			report, lists = args[i], args[i]
		} else if args[i] == wrapHelperStdioAsIs {
			asIs = true
		} else if args[i] == wrapHelperHost {
			n.Mode = NetworkHost
		} else if args[i] == wrapHelperOff {
			n.Mode = NetworkOff
		} else if args[i] == wrapHelperScope {
			scope = true
		} else if f, ok := parseProtect(args[i]); ok {
			protect.protected = append(protect.protected, f)
		} else if v, ok := strings.CutPrefix(args[i], wrapHelperJournal); ok && checkPath("journal", v) == nil {
			journal = v
		} else {
			return fail("unknown argument %q", args[i])
		}
	}
	if i+1 >= len(args) {
		return fail("no program after --")
	}
	if lists != "" && n.Mode != NetworkProxy {
		return fail("argument %q needs network mode proxy", lists)
	}
	if scope && n.Mode != NetworkHost {
		return fail("argument %q needs %s", wrapHelperScope, wrapHelperHost)
	}
	extra, err := inheritedFiles()
	if err != nil {
		return fail("%v", err)
	}
	bye := func() {}
	if report != "" {
		if n.Refused, bye, err = helperReporter(report, extra); err != nil {
			return fail("%v", err)
		}
		defer bye()
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, wrapHelperEnv+"=") })
	run := &exec.Cmd{
		Path: args[i+1], Args: args[i+1:], Env: env,
		ExtraFiles: extra,
		// bwrap dies with this helper, and the sandbox with bwrap.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	if err := wrapStdio(run, asIs); err != nil {
		return fail("%v", err)
	}
	ph, err := startPlaceholders(protect, journalDirs(journal))
	if err != nil {
		return fail("%v", err)
	}
	sigs := catchHelperSignals()
	end, err := startWrapped(run, n, scope, ph.spawned)
	if err != nil {
		ph.finish()
		return fail("%v", err)
	}
	for _, f := range extra {
		if f != nil {
			f.Close()
		}
	}
	sigs.wait(run)
	end()
	ph.finish()
	return exitAs(run, bye)
}

// startWrapped starts the helper's bwrap as n's mode needs: in mode proxy
// through the namespace helper, with the proxy served here; in mode host,
// with scope, from a thread in Landlock's abstract-unix-socket scope; in
// mode off as it is; spawned is called as soon as bwrap runs. end is
// called once bwrap has ended.
func startWrapped(run *exec.Cmd, n Network, scope bool, spawned func()) (end func(), err error) {
	start := func() error {
		err := run.Start()
		if err == nil {
			spawned()
		}
		return err
	}
	switch {
	case n.Mode == NetworkHost && scope:
		return startScoped(run, start)
	case n.Mode != NetworkProxy:
		return func() {}, start()
	}
	p, err := newProxy(n, nil)
	if err != nil {
		return nil, err
	}
	prog := run.Path
	gate := &netGate{serve: p.Serve, stub: proxy.NewDNSStub(p), ports: proxy.StubPorts(n.Allow, n.Private)}
	if _, err := gate.prepare(run); err != nil {
		return nil, err
	}
	if err := start(); err != nil {
		gate.abort()
		return nil, helperStartError(prog, err)
	}
	if err := gate.started(); err != nil {
		_ = run.Process.Kill()
		_ = run.Wait()
		return nil, err
	}
	return gate.close, nil
}

// inheritedFiles lists the descriptors from 3 up that this process
// inherited (those without close-on-exec, which everything the Go runtime
// opens has), placed at their own numbers: nil where none is.
func inheritedFiles() ([]*os.File, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("list descriptors: %w", err)
	}
	var fds []int
	top := -1
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // the listing's own, or one of the runtime's
		}
		fds = append(fds, fd)
		top = max(top, fd)
	}
	if top < 3 {
		return nil, nil
	}
	files := make([]*os.File, top-2)
	for _, fd := range fds {
		// Marked close-on-exec here: exec.Cmd places it again, without.
		unix.CloseOnExec(fd)
		files[fd-3] = os.NewFile(uintptr(fd), "inherited-"+strconv.Itoa(fd))
	}
	return files, nil
}
