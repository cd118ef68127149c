package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"github.com/sandtable/sandtable/internal/cmdlookup"
	"github.com/sandtable/sandtable/sandbox"
)

var runHelp = helpText{
	synopsis: "run [flags] [--] CMD [ARGS...]",
	description: `Run CMD in the sandbox, in the workspace directory. CMD can write only to
the workspace (and a private /tmp) and cannot read the hidden paths. On
Linux it cannot connect to the host's named unix sockets outside the
workspace either (an ssh-agent, a database, containerd), unless --socket
grants one.

A terminal or /dev/null as stdin, stdout or stderr reaches CMD as it is. A
pipe, FIFO, socket, file or device is copied through a pipe of the
sandbox's own, so CMD cannot reopen it (a pipe it reads its input from, for
writing); a directory is replaced by /dev/null ('sandtable rules', the
stdio-* rows). Like ssh, sandtable reads a copied stdin ahead of CMD: input
CMD does not read is consumed, so give a command that should not read a
script's remaining lines </dev/null.

CMD's environment is this one less the rule table's strip-env rows:
tokens, API keys and passwords by name and pattern (*_TOKEN, *SECRET*,
*_API_KEY, ...) and the variables that point at the caller's agents
(SSH_AUTH_SOCK, DISPLAY, DBUS_SESSION_BUS_ADDRESS, ...); --keep-env NAME
passes one on. 'sandtable rules' lists them. Tool caches (GOCACHE,
npm_config_cache, ...) point at private, writable directories under
~/.cache/sandtable/caches (--no-cache: none).

When CMD fails and its stderr (a pipe or a file, not a terminal) names a
path the sandbox hides or redacts, run adds a hint after it: the rule that
does it and the --reveal that shows it. For a path it names as a
read-only file system, or as permission denied where this user could
write it, the hint is the --write that would grant it, and what creates
it first (touch for a file, mkdir -p for a directory; no --write for a
dot path in the home directory, which runs outside the sandbox later;
CMD chose the words). 'sandtable why PATH' answers the same question
before a run. An interactive shell on a terminal without --interactive
gets a note that it has no job control there.
When the tool caches' file system is full after a failed CMD, run says so:
a tool may have reported that in other words.

sandtable exits with CMD's status, or 128+N when CMD is killed by signal N;
2 for a bad flag, path, limit or --keep-env name, 125 when the sandbox cannot be
set up here (see 'sandtable probe'), 126 when CMD cannot be executed, 127
when it is not found.
SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed on to CMD. With --interactive,
CMD shares the terminal's process group, so only SIGTERM is passed on: the
terminal delivers the others itself, and any sent to sandtable alone (with
kill, say) are ignored; stop such a run with SIGTERM. A terminal among
stdin, stdout and stderr gets back its settings after the run, however CMD
ended, and while sandtable is stopped: a ^Z (SIGTSTP, SIGTTIN, SIGTTOU)
stops every process of the sandbox first, so none reads what is typed at
the shell meanwhile, and fg continues them.`,
	example: `  sandtable run -- sh -c 'echo hi > out.txt'
  sandtable run --workspace ~/src/app --no-network -- make test
  sandtable run --network proxy --allow-host registry.npmjs.org:443 -- npm install
  sandtable run --socket /run/docker.sock -- docker ps`,
}

func cmdRun(args []string) int {
	// Two once-per-process costs of a spawn, paid here in the background
	// while the flags are parsed and the plan is built.
	sigs := catchSignals()
	go checkPidfdEarly()

	fs := newFlagSet("run")
	var sf sandboxFlags
	sf.register(fs)
	if code, done := parseFlags(fs, runHelp, args); done {
		return code
	}
	if fs.NArg() == 0 {
		return report("run", usageError{errors.New("missing command (sandtable run [flags] -- CMD [ARGS...])")})
	}
	cfg, err := sf.config()
	if err != nil {
		return report("run", err)
	}
	name := fs.Arg(0)
	if note := shellNote(runtime.GOOS, name, fs.Args()[1:], cfg.Interactive, stdinIsTerminal()); note != "" && cfg.Policy != sandbox.Off {
		fmt.Fprintln(os.Stderr, note)
	}
	// A refusal the command sees from the proxy is repeated here, where a
	// tool that hides the response's body cannot swallow it.
	cfg.Network.Refused = func(msg string) { fmt.Fprintln(os.Stderr, msg) }
	// NewCmd, not Command: its spawn is the availability check, so a run
	// costs one bwrap execution instead of a probe and then the command.
	sandbox.KeepClosesForExit() // for main's sandbox.Exit
	cmd, err := sandbox.NewCmd(context.Background(), cfg, name, fs.Args()[1:]...)
	if err != nil {
		return report("run", err)
	}
	if err := checkRunnable(name, cmd.Workdir(), cmd.Env, cmd.Sees); err != nil {
		return report("run", err)
	}
	wrapped := cfg.Policy != sandbox.Off
	var tail *stderrTail
	if wrapped {
		if tail = teeStderr(); tail != nil {
			cmd.Stderr = tail
		}
	}
	code := spawn(cmd, wrapped, sigs)
	if code != 0 && tail != nil {
		for _, h := range readOnlyHints(tail.String(), cfg) {
			fmt.Fprintln(os.Stderr, h)
		}
	}
	if code != 0 && wrapped && !cfg.NoCache {
		if h := fullCacheHint(); h != "" {
			fmt.Fprintln(os.Stderr, h)
		}
	}
	return code
}

// signals are the ones run passes on to CMD.
type signals struct {
	c     chan os.Signal
	stop  chan os.Signal // job-control stops (suspend.go)
	ready chan struct{}  // closed once they are caught
	mu    sync.Mutex
	ended bool // the command was waited for: handle nothing more
}

// during runs f, a signal's handling, unless the command was waited for.
func (s *signals) during(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		f()
	}
}

// end stops the handling, once a handling under way is done.
func (s *signals) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

// catchSignals starts catching the signals run passes on. signal.Notify
// takes 0.35 to 0.7 ms here, a round trip with the runtime's signal thread
// per signal, so it runs alongside the rest of the setup, and spawn waits
// for it before starting bwrap, so that no signal arrives uncaught once
// bwrap exists. One caught earlier ends the run before anything starts.
func catchSignals() *signals {
	s := &signals{c: make(chan os.Signal, 4), stop: make(chan os.Signal, 4), ready: make(chan struct{})}
	go func() {
		signal.Notify(s.c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		if len(stopSignals) > 0 {
			signal.Notify(s.stop, stopSignals...)
		}
		close(s.ready)
	}()
	return s
}

// spawn runs cmd to completion, passing signals on, and returns its status.
//
// Without --interactive bwrap starts CMD in a new session, so CMD never sees
// the terminal's signals; bwrap then gets a process group of its own too, so
// that a ^C reaches sandtable alone, which passes it on to CMD exactly once.
// Sending it to bwrap instead would kill bwrap, and with it, through
// --die-with-parent, CMD, with SIGKILL and no chance to clean up.
func spawn(cmd *sandbox.Cmd, wrapped bool, sigs *signals) int {
	<-sigs.ready // before the thread is locked, which would slow the wait
	// Start applies the table's stdio rules: a pipe, socket, file or
	// device reaches the command through a pipe of its own.
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	ownSession := wrapped && runtime.GOOS == "linux" && hasFlag(cmd.Args[1:], "--new-session")
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	setProcessGroup(cmd.SysProcAttr, ownSession)
	setParentDeathSignal(cmd.SysProcAttr)
	// The parent-death signal fires when the thread that forked exits, so
	// keep this goroutine on its thread until sandtable exits.
	runtime.LockOSThread()

	// A signal that arrived while the plan was built ends the run before
	// anything starts, as it would have ended sandtable then: passed on
	// later it could reach bwrap mid-setup, or, without a session of our
	// own, nobody.
	select {
	case sig := <-sigs.c:
		if s, ok := sig.(syscall.Signal); ok {
			return exitSignal + int(s)
		}
	default:
	}
	terminals := &runTerminals{saved: saveTerminals()}
	if err := cmd.Start(); err != nil {
		if wrapped {
			if errors.Is(err, sandbox.ErrUnavailable) {
				return report("run", err) // bwrap's own reason and the hint
			}
			return report("run", fmt.Errorf("start %s: %w", cmd.Path, err))
		}
		return report("run", startError(cmd.Args[0], err))
	}
	warnUnenforced(cmd)
	go func() {
		for sig := range sigs.c {
			if ownSession || sig == syscall.SIGTERM {
				sigs.during(func() { forward(cmd.Process.Pid, sig.(syscall.Signal)) })
			}
		}
	}()
	go suspendOnStop(cmd, terminals, sigs)
	err := cmd.Wait()
	// Not signal.Stop, a round trip with the runtime's signal thread per
	// channel (0.3 to 0.4 ms each here): what arrives from now on is
	// caught and dropped while sandtable exits, and nothing is sent to
	// the pid Wait has reaped.
	sigs.end()
	terminals.restore()
	if errors.Is(err, sandbox.ErrHostChanged) {
		// Killed by the watch: the status says how, this says why.
		fmt.Fprintf(os.Stderr, "sandtable: %v\n", err)
	}
	// NewCmd tells bwrap's own failures apart from CMD's status. CMD that
	// cannot be executed was mostly caught by checkRunnable already.
	switch {
	case !wrapped || err == nil:
	case errors.Is(err, sandbox.ErrUnavailable):
		return report("run", err)
	case errors.Is(err, exec.ErrNotFound):
		return report("run", exitError{exitNotFound, err})
	case errors.Is(err, fs.ErrPermission):
		return report("run", exitError{exitCannotRun, err})
	}
	return waitStatus(cmd.ProcessState)
}

// hasFlag reports whether a wrapper argv has flag before its "--".
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case flag:
			return true
		}
	}
	return false
}

// checkRunnable finds name as execvp will inside the sandbox: from dir (the
// workspace), with env's PATH, on this file system where sees says the
// sandbox shows it (not its private /tmp, nor a hidden directory); see
// cmdlookup.Find. Deciding "not found" (127) and "cannot execute" (126)
// here, before anything is spawned, is what makes them reliable: from
// outside, bwrap's own exec failure is just exit status 1.
func checkRunnable(name, dir string, env []string, sees func(string) bool) error {
	switch v, why := cmdlookup.Find(name, dir, env, sees); v {
	case cmdlookup.NotFound:
		return exitError{exitNotFound, fmt.Errorf("%s: %s", name, why)}
	case cmdlookup.CannotRun:
		return exitError{exitCannotRun, fmt.Errorf("%s: %s", name, why)}
	}
	return nil
}

// startError maps an unwrapped (policy off) exec failure like a shell does.
func startError(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return exitError{exitNotFound, fmt.Errorf("%s: command not found", name)}
	}
	return exitError{exitCannotRun, fmt.Errorf("%s: %w", name, err)}
}
