package sandbox

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
)

// Wrap is what goes in front of the command: run Program with Args, then the
// command's own name and arguments.
type Wrap struct {
	// Program is bwrap resolved on PATH (never from inside a writable
	// path, where the child could plant its own) or /usr/bin/sandbox-exec;
	// "" when the policy is Off. From Prefix on Linux it is
	// /proc/self/exe, this process's executable as the wrap helper that
	// applies the stdio rows (and the mode's scope or proxy) and runs
	// bwrap, the first argument after its --: run it from this process,
	// with Env. PrefixFor renders bwrap itself.
	Program string
	// Args is bwrap's argv ending in "--" (from Prefix on Linux after the
	// wrap helper's own), or ["-p", Profile, "--"].
	Args []string
	// Profile is the SBPL profile on darwin, "" elsewhere.
	Profile string
	// Files are passed to Program as descriptors 3, 4, ... in order
	// (exec.Cmd.ExtraFiles): on Linux, /dev/null when a hidden file is
	// replaced by an empty one, the redacted files' copies, in network
	// mode proxy the DNS stub's resolv.conf, then the seccomp filter's
	// bytes.
	Files []WrapFile
	// Env is NAME=VALUE for the command's environment, in place of any
	// value it had: the table's cache variables, each pointing at its
	// private directory; on macOS TMPDIR; on Linux, when Program is the
	// wrap helper, the pid of the process that may run it (the helper's
	// parent), which the helper checks and removes.
	Env []string
	// TempDir is the spawn's own temporary directory on macOS, which the
	// profile lets the command write and TMPDIR names: the caller of
	// Prefix removes it once the command has exited (NewCmd's Wait does
	// that itself). "" elsewhere, and from PrefixFor.
	TempDir string
	// Backend is what the wrapper was built for: BackendBwrap (on macOS,
	// Seatbelt), or BackendLandlock, whose Program is the landlock helper
	// (this executable, re-executed: run it from this process, with Env);
	// Reduced is then what that backend does not keep on this kernel
	// (Reduced). Zero under Off.
	Backend Backend
	Reduced []Guarantee
}

// Prefix builds the wrapper for this machine's OS and proves, once per
// process, that it works here. Under [Off] it validates cfg and returns an
// empty [Wrap]. Otherwise, as [Command] does, it marks every descriptor of
// this process from 3 up close-on-exec, for good: run with them, the argv
// would hand an inherited one to the command (pass one in ExtraFiles).
func Prefix(cfg Config) (Wrap, error) {
	w, p, hf, err := prefix(runtime.GOOS, cfg, checkWorks)
	if err == nil {
		if err = refuseMacProxy(built(p, hf), "Prefix"); err != nil {
			removeTmpdir(w.TempDir)
			return Wrap{}, err
		}
	}
	if err == nil && p != nil && w.Program != "" {
		// The caller runs the argv with this process's descriptors, as
		// Command's exec.Cmd does (TestPrefixStrayDescriptor).
		if err = closeStrayFDs(); err != nil {
			removeTmpdir(w.TempDir)
			return Wrap{}, err
		}
		if w.Backend != BackendLandlock {
			w = wrapPrefix(w, p)
		}
	}
	return w, err
}

// PrefixFor builds the wrapper for goos ("linux" or "darwin") without
// checking that it can run here, so Linux CI can render the macOS profile.
// Path facts still come from this machine's file system.
func PrefixFor(goos string, cfg Config) (Wrap, error) {
	w, _, _, err := prefix(goos, cfg, checkNone)
	return w, err
}

// prefix builds the wrapper from one resolver, so that validation, the path
// facts and the program lookup together lstat each path at most once.
func prefix(goos string, cfg Config, check hostCheck) (Wrap, *plan, hostFacts, error) {
	policy, err := cfg.Policy.resolve()
	if err != nil {
		return Wrap{}, nil, hostFacts{}, err
	}
	if check != checkNone && goos == "linux" && runtime.GOOS == "linux" {
		// What a killed run left in a workspace goes before the plan
		// looks at it (placeholders.go).
		repairPlaceholders()
	}
	var r resolver
	cfg.Policy = policy
	p, err := newPlanWith(&r, goos, cfg)
	if err != nil {
		return Wrap{}, nil, hostFacts{}, err
	}
	if policy == Off {
		return Wrap{}, p, hostFacts{}, nil
	}
	if goos != "linux" && goos != "darwin" {
		return Wrap{}, nil, hostFacts{}, &unavailableError{reason: "no sandbox for GOOS " + goos, hint: optOut()}
	}
	// The backend (backend_choose.go): bwrap's argv below, or the
	// reduced backend's helper.
	prog, hf, landlock, err := chooseBackend(goos, cfg, p, &r, check)
	if err != nil {
		return Wrap{}, nil, hostFacts{}, err
	}
	if landlock {
		w, err := landlockPrefix(cfg, p, check, check == checkFound)
		return w, p, hostFacts{}, err
	}
	if goos == "darwin" {
		// The spawn's own listener and directory are host facts: made in
		// the copy the builders read, never in p.
		q := p.with(hf)
		if p.netProxy {
			if err := attachProxyPort(q, check != checkNone && runtime.GOOS == "darwin"); err != nil {
				return Wrap{}, nil, hostFacts{}, err
			}
		}
		if check != checkNone && runtime.GOOS == "darwin" {
			if err := attachTmpdir(q); err != nil {
				refuseMacProxy(q, "")
				return Wrap{}, nil, hostFacts{}, err
			}
		}
		hf = q.spawnFacts()
		prof := darwinProfile(q)
		env := tableEnv(p)
		if p.netProxy {
			env = append(env, proxyEnv(q)...)
		}
		return Wrap{Program: prog, Args: darwinArgs(prof), Profile: prof, Env: tmpdirEnv(q, env), TempDir: hf.tmpdir, Backend: BackendBwrap}, p, hf, nil
	}
	return Wrap{Program: prog, Args: linuxArgs(p.with(hf)), Files: wrapFiles(p), Env: tableEnv(p), Backend: BackendBwrap}, p, hf, nil
}

// Explain returns what each rule contributes for goos and cfg, from the same
// facts [Prefix] would use. The policy does not matter here: it explains the
// sandbox, with every check [Required] makes.
func Explain(goos string, cfg Config) ([]Step, error) {
	var r resolver
	cfg.Policy = Required
	p, err := newPlanWith(&r, goos, cfg)
	if err != nil {
		return nil, err
	}
	switch goos {
	case "linux":
		_, hf, err := hostProgramWith(goos, p, &r, checkNone)
		if err != nil {
			return nil, err
		}
		return linuxSteps(p.with(hf)), nil
	case "darwin":
		q := p.with(hostFacts{})
		if p.netProxy {
			attachProxyPort(q, false) // the port a spawn would choose, as a stand-in
		}
		return darwinSteps(q), nil
	}
	return nil, &unavailableError{reason: "no sandbox for GOOS " + goos}
}

// Rules returns a copy of the rule table, for documentation and review.
func Rules() []Rule {
	return slices.Clone(ruleTable[:])
}

// Command returns an [exec.Cmd] that runs name inside the sandbox cfg
// describes (unwrapped under [Off]): the table's environment, the resolved
// workspace as its directory, and only cmd.ExtraFiles among this process's
// descriptors. On Linux its program is the wrap helper (this executable,
// re-executed: run it from this process), which applies the stdio rows to
// the Stdin, Stdout and Stderr the caller sets, the abstract-socket scope
// in mode host and the proxy in mode proxy before it starts bwrap. A
// descriptor meant to reach the command as it is goes in ExtraFiles (the
// helper's stdio=as-is word, before its --, passes the three as they are).
// Append to ExtraFiles rather than replacing it, and close the memfds in it
// once Start has returned (in mode proxy, [Network.Refused]'s socket follows
// them, likewise). The first Command in a process runs a probe
// first; [NewCmd] needs none. README.md, "Command, NewCmd and Cmd", has
// the details.
func Command(ctx context.Context, cfg Config, name string, args ...string) (*exec.Cmd, error) {
	s, err := command(ctx, cfg, checkWorks, name, args...)
	if err == nil && s.backend != BackendLandlock {
		err = refuseRequired(s.plan, "Command returns a plain exec.Cmd, which has no moment to apply it", "use NewCmd, which applies it while bwrap holds the command")
	}
	if err == nil {
		err = refuseMacProxy(built(s.plan, s.host), "Command")
	}
	switch {
	case err != nil || s.plan == nil:
	case s.backend == BackendLandlock:
		err = landlockCommand(s.cmd, s.plan)
	default:
		err = wrapCommand(s.cmd, s.plan)
	}
	if err != nil {
		closeAll(s.owned)
		removeTmpdir(s.host.tmpdir)
		return nil, err
	}
	removeTmpdirLater(s.cmd, s.host.tmpdir)
	return s.cmd, nil
}

// spawn is what command builds: the exec.Cmd, and for a sandboxed one the
// plan and the wrapper's files, of which owned are the descriptors opened
// for this spawn alone.
type spawn struct {
	cmd     *exec.Cmd
	plan    *plan
	files   []WrapFile
	owned   []*os.File
	workdir string    // the command's own working directory: the workspace
	host    hostFacts // what the wrapper's argv was built with
	backend Backend   // the wrapper's (Wrap.Backend)
	reduced []Guarantee
}

// command builds the exec.Cmd that Command returns and NewCmd embeds.
func command(ctx context.Context, cfg Config, check hostCheck, name string, args ...string) (spawn, error) {
	w, p, hf, err := prefix(runtime.GOOS, cfg, check)
	if err != nil {
		return spawn{}, err
	}
	var cmd *exec.Cmd
	if w.Program == "" {
		cmd = exec.CommandContext(ctx, name, args...)
	} else {
		if err := closeStrayFDs(); err != nil {
			removeTmpdir(w.TempDir)
			refuseMacProxy(built(p, hf), "")
			return spawn{}, err
		}
		if p != nil && p.ownArgs > 0 {
			if err := refuseArgv(refuseRows[:], p, 1+len(args)); err != nil {
				removeTmpdir(w.TempDir)
				refuseMacProxy(built(p, hf), "")
				return spawn{}, err
			}
		}
		argv := make([]string, 0, len(w.Args)+1+len(args))
		argv = append(append(append(argv, w.Args...), name), args...)
		cmd = exec.CommandContext(ctx, w.Program, argv...)
	}
	cmd.Env = commandEnv(cfg, os.Environ(), w.Env)
	cmd.Dir = p.workspace
	if w.Program != "" && runtime.GOOS == "linux" {
		cmd.Dir = "/" // bwrap's own; the command's is the chdir rule's
	}
	if w.Program == "" {
		return spawn{cmd: cmd, workdir: p.workspace}, nil // nothing wraps the command
	}
	fds, owned, err := openFiles(w.Files)
	if err != nil {
		removeTmpdir(w.TempDir)
		refuseMacProxy(built(p, hf), "") // closes a macOS spawn's proxy listener
		return spawn{}, err
	}
	cmd.ExtraFiles = fds
	return spawn{cmd: cmd, plan: p, files: w.Files, owned: owned, workdir: p.workspace, host: hf, backend: w.Backend, reduced: w.Reduced}, nil
}

// openFiles opens the descriptors for one spawn of a wrapper: the shared
// /dev/null for a Path, a fresh sealed memfd for Data. owned are the
// memfds, which the caller closes after the spawn has started.
func openFiles(files []WrapFile) (fds, owned []*os.File, err error) {
	if len(files) == 0 {
		return nil, nil, nil
	}
	fds = make([]*os.File, 0, len(files))
	for _, f := range files {
		var fd *os.File
		if f.Path != "" {
			fd, err = openShared(f.Path)
		} else {
			fd, err = dataFile(f.Data)
			if err == nil {
				owned = append(owned, fd)
			}
		}
		if err != nil {
			closeAll(owned)
			return nil, nil, err
		}
		fds = append(fds, fd)
	}
	return fds, owned, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// devNull is opened once and never closed: every spawn passes a duplicate of
// it to its child, and one descriptor for the life of the process is cheaper
// than an open and a close the caller could forget for every spawn.
// A failed open is not cached: running out of descriptors once must not
// break every later spawn.
var devNull struct {
	sync.Mutex
	f *os.File
}

func sharedDevNull() (*os.File, error) {
	devNull.Lock()
	defer devNull.Unlock()
	if devNull.f == nil {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return nil, err
		}
		devNull.f = f
	}
	return devNull.f, nil
}

func openShared(name string) (*os.File, error) {
	if name != os.DevNull {
		// Wrap.Files only ever names /dev/null; anything else is a
		// builder bug, and an fd the caller would have to close.
		return nil, &unavailableError{reason: "cannot pass " + name + " to the sandbox"}
	}
	f, err := sharedDevNull()
	if err != nil {
		return nil, &unavailableError{reason: "open " + name + ": " + err.Error()}
	}
	return f, nil
}
