package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The wrap helper carries network mode proxy into the argv that Command and
// Prefix return, which the caller runs after they have returned. The argv
// starts with this process's own executable (/proc/self/exe, so the process
// that runs it must be a fork of this one, as exec.Cmd's is) and
// netWrapArg; this package's init catches it. The helper stays in the
// caller's network namespace, the only one that reaches the network, and
// serves the proxy there, while its child, the network helper of NewCmd's
// mode proxy, makes the sandbox's user and network namespace and becomes
// bwrap. The proxy's lists travel in the argv, which nothing in the
// sandbox can read or change (bwrap's pid namespace hides the helper), and
// not in the environment the command inherits. The helper passes its
// descriptors on as they are and its standard streams after the stdio rows
// (wrapStdio), forwards the signals a caller sends, and ends as bwrap ends,
// with its status.

// The argv alone does not start the helper: a program that imports this
// package and passes untrusted words as its first arguments would run
// whatever follows the words' "--" outside any sandbox. init runs it only
// for what a deliberate re-exec by Command or Prefix has (netWrapCalled);
// a program that dispatches the helper itself (sandtable, whose explain
// prints a line to paste) calls RunNetworkHelper.
func init() {
	if len(os.Args) < 2 || os.Args[1] != netWrapArg || os.Getenv(netnsEnv) != "" || os.Args[0] != netWrapExe {
		return
	}
	if err := netWrapCalled(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: network proxy helper: %v\n", err)
		os.Exit(125)
	}
	os.Exit(runNetWrap(os.Args[2:]))
}

// RunNetworkHelper runs the wrap helper when args, a program's arguments
// after its name, start with the words [NetworkHelperArgv] renders, and
// returns its exit status; ok is false, and nothing ran, otherwise. A
// program calls it from main to serve a line NetworkHelperArgv printed;
// Command and Prefix need nothing of the kind.
func RunNetworkHelper(args []string) (status int, ok bool) {
	if len(args) == 0 || args[0] != netWrapArg {
		return 0, false
	}
	return runNetWrap(args[1:]), true
}

// netWrapCalled checks, beyond argv[0], what only a deliberate re-exec by
// Command or Prefix has: netWrapEnv names this process's parent, which
// (where the kernel shows it: not a parent of another user) is the same
// executable as this one. The helper also dies with that parent.
func netWrapCalled() error {
	want, ppid := os.Getenv(netWrapEnv), os.Getppid()
	if want == "" || want != strconv.Itoa(ppid) {
		return fmt.Errorf("%s is %q, not this process's parent %d: not started by Command or Prefix", netWrapEnv, want, ppid)
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

// netWrapSignals are forwarded to bwrap; bwrap dies of each (and the
// sandbox with it), as it would had the caller sent it there.
var netWrapSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// runNetWrap is the wrap helper's whole life: its exit status is bwrap's,
// or 125 when the sandbox's network could not be set up.
func runNetWrap(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "sandbox: network proxy helper: "+format+"\n", a...)
		return 125
	}
	var n Network
	asIs := false
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		if v, ok := strings.CutPrefix(args[i], "allow="); ok {
			n.Allow = append(n.Allow, v)
		} else if v, ok := strings.CutPrefix(args[i], "private="); ok {
			n.Private = append(n.Private, v)
		} else if v, ok := strings.CutPrefix(args[i], netWrapConns); ok {
			c, err := strconv.Atoi(v)
			switch {
			case v == "none":
				n.conns = -1
			case err != nil || c <= 0:
				return fail("bad argument %q (want a positive number of connections, or none)", args[i])
			default:
				n.conns = c
			}
		} else if args[i] == netWrapStdioAsIs {
			asIs = true
		} else {
			return fail("unknown argument %q", args[i])
		}
	}
	if i+1 >= len(args) {
		return fail("no program after --")
	}
	n.Mode = NetworkProxy
	p, err := newProxy(n)
	if err != nil {
		return fail("%v", err)
	}
	extra, err := inheritedFiles()
	if err != nil {
		return fail("%v", err)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, netWrapEnv+"=") })
	run := &exec.Cmd{
		Path: args[i+1], Args: args[i+1:], Env: env,
		ExtraFiles: extra,
		// bwrap dies with this helper, and the sandbox with bwrap.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	if err := wrapStdio(run, asIs); err != nil {
		return fail("%v", err)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, netWrapSignals...)
	gate := &netGate{serve: p.serve, stub: newDNSStub(p), ports: stubPorts(n)}
	if _, err := gate.prepare(run); err != nil {
		return fail("%v", err)
	}
	if err := run.Start(); err != nil {
		gate.abort()
		return fail("%v", helperStartError(args[i+1], err))
	}
	if err := gate.started(); err != nil {
		_ = run.Process.Kill()
		_ = run.Wait()
		return fail("%v", err)
	}
	for _, f := range extra {
		if f != nil {
			f.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = run.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	_ = run.Wait()
	close(done)
	gate.close()
	ws, _ := run.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		// The caller sees bwrap's death by the same signal.
		sig := ws.Signal()
		signal.Reset(sig)
		_ = unix.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
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
