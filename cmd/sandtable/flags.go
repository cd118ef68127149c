package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

// helpText is what a command prints for --help, around its flag list.
type helpText struct {
	synopsis    string // after "usage: sandtable "
	description string
	example     string
}

// newFlagSet returns a flag set that prints nothing by itself: on an error
// parseFlags prints one line, and --help goes to stdout with exit 0.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs. done reports that the command must stop
// now with status code: after --help (0) or a bad flag (2).
func parseFlags(fs *flag.FlagSet, h helpText, args []string) (code int, done bool) {
	err := fs.Parse(args)
	if err == nil {
		return 0, false
	}
	if errors.Is(err, flag.ErrHelp) {
		printHelp(os.Stdout, fs, h)
		return 0, true
	}
	return report(fs.Name(), usageError{err}), true
}

func printHelp(w io.Writer, fs *flag.FlagSet, h helpText) {
	fmt.Fprintf(w, "usage: sandtable %s\n\n%s\n", h.synopsis, strings.TrimSpace(h.description))
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprint(w, "\nflags:\n")
			first = false
		}
		value, text := flag.UnquoteUsage(f)
		if value != "" {
			value = " " + value
		}
		fmt.Fprintf(w, "  --%s%s\n        %s\n", f.Name, value, text)
	})
	fmt.Fprintf(w, "\nexample:\n%s\n", strings.TrimRight(h.example, "\n"))
}

// noArgs rejects positional arguments for commands that take none.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// pathList is a repeatable path flag.
type pathList []string

func (l *pathList) String() string     { return strings.Join(*l, ",") }
func (l *pathList) Set(s string) error { *l = append(*l, s); return nil }

// setString is a string flag that remembers whether it was given, so that
// an empty value is told apart from none.
type setString struct {
	v   string
	set bool
}

func (s *setString) String() string     { return s.v }
func (s *setString) Set(v string) error { s.v, s.set = v, true; return nil }

// sandboxFlags are the flags run and explain share; config turns them into
// a sandbox.Config.
type sandboxFlags struct {
	workspace                 setString
	hide, read, write, reveal pathList
	keepEnv                   pathList
	allowHost, allowPrivate   pathList
	sockets                   pathList
	noNetwork, interactive    bool
	hostAbstract              bool
	noCache                   bool
	allowAllMach              bool
	policy                    setString
	backend                   setString
	network                   setString
	limits                    limitFlags
	allowGitConfig            bool
}

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.workspace, "workspace", "the one writable `dir` (default: the current directory)")
	fs.Var(&f.hide, "hide", "hide `path` as well as the default hidden set (repeatable)")
	fs.Var(&f.read, "read", "mount the existing `path` read-only, e.g. inside a hidden one (repeatable)")
	fs.Var(&f.write, "write", "make the existing `path` writable too (repeatable)")
	fs.Var(&f.reveal, "reveal", "do not hide this default-hidden `path`, or redact this file, e.g. ~/.npmrc (repeatable)")
	fs.Var(&f.keepEnv, "keep-env", "pass the variable `name` on although a strip-env row removes it,\n        e.g. GITHUB_TOKEN or SSH_AUTH_SOCK (repeatable; sandtable rules lists the rows)")
	fs.Var(&f.network, "network", "the network `mode`: off (a private loopback only), proxy (a private\n        namespace whose only way out is a proxy in sandtable: public addresses,\n        or only --allow-host's) or host (the host's network: its loopback\n        services and abstract unix sockets too); default: proxy on Linux,\n        host on macOS (the table's network-default rows)")
	fs.Var(&f.allowHost, "allow-host", "with --network proxy, allow only these destinations: `NAME[:PORT]`,\n        *.NAME[:PORT] or IP[:PORT] (repeatable); an exact entry may be private")
	fs.Var(&f.allowPrivate, "allow-private", "with --network proxy, let the proxy reach this exact `NAME[:PORT]` or\n        IP[:PORT] on a loopback, link-local or private address (repeatable)")
	fs.BoolVar(&f.hostAbstract, "host-abstract", false, "with --network host, leave the host's abstract unix sockets reachable\n        (X11, D-Bus); without it they are not, where Landlock can scope them")
	fs.Var(&f.sockets, "socket", "let CMD connect to the host's unix socket at `path`, e.g. /run/docker.sock;\n        every other named socket of the host outside the workspace is hidden (repeatable)")
	fs.BoolVar(&f.noNetwork, "no-network", false, "--network off: cut the command off from the network, loopback included")
	fs.BoolVar(&f.interactive, "interactive", false, "keep the terminal's session for job control and /dev/tty\n        (CMD can signal the terminal's processes; typing into the terminal\n        stays refused on amd64 and arm64 only: for a human at a terminal)")
	fs.BoolVar(&f.allowGitConfig, "allow-git-config", false, "leave the git config files in the workspace writable (git remote add,\n        git config; CMD can then make the next git command run anything)")
	fs.BoolVar(&f.noCache, "no-cache", false, "no private tool caches: GOCACHE, npm_config_cache and the rest of the\n        table's caches section stay as they are, their host caches read-only")
	fs.BoolVar(&f.allowAllMach, "allow-all-mach", false, "macOS: every Mach service, not the table's list (the pasteboard,\n        launch services, Apple Events: a reviewed opt-in)")
	fs.Var(&f.policy, "policy", "the `policy`: required (sandbox, or refuse to run) or off (never sandbox:\n        run unsandboxed); default: $"+sandbox.PolicyVariable+", else required")
	fs.Var(&f.backend, "backend", "Linux: how to build the sandbox: bwrap (every rule), landlock (the\n        reduced backend, for where user namespaces cannot be made: it keeps less,\n        sandtable probe says what) or auto (bwrap where it works, else landlock);\n        default: $"+sandbox.BackendVariable+", else bwrap")
	f.limits.register(fs)
}

// config resolves the flags' paths the way a shell user expects (relative to
// the current directory, ~ and ~/x expanded) and leaves every other check to
// the sandbox package, which rejects rather than repairs.
func (f *sandboxFlags) config() (sandbox.Config, error) {
	var cfg sandbox.Config
	cwd, err := os.Getwd()
	if err != nil {
		return cfg, fmt.Errorf("current directory: %w", err)
	}
	cfg.Workspace = cwd
	if f.workspace.set {
		if f.workspace.v == "" {
			return cfg, usageError{errors.New("--workspace: empty (want a directory; leave the flag out for the current directory)")}
		}
		if cfg.Workspace, err = absPath(cwd, "--workspace", f.workspace.v); err != nil {
			return cfg, err
		}
	}
	for _, l := range []struct {
		flag string
		in   pathList
		out  *[]string
	}{{"--hide", f.hide, &cfg.Hidden}, {"--read", f.read, &cfg.Read}, {"--write", f.write, &cfg.Write}, {"--reveal", f.reveal, &cfg.Reveal}, {"--socket", f.sockets, &cfg.Sockets}} {
		for _, p := range l.in {
			abs, err := absPath(cwd, l.flag, p)
			if err != nil {
				return cfg, err
			}
			*l.out = append(*l.out, abs)
		}
	}
	if cfg.Network, err = f.networkConfig(); err != nil {
		return cfg, usageError{err}
	}
	cfg.Interactive = f.interactive
	cfg.KeepEnv = f.keepEnv
	f.limits.apply(&cfg.Limits)
	cfg.AllowGitConfig = f.allowGitConfig
	cfg.NoCache = f.noCache
	cfg.AllowAllMach = f.allowAllMach
	if f.policy.set {
		if cfg.Policy, err = sandbox.ParsePolicy(f.policy.v); err != nil {
			return cfg, usageError{fmt.Errorf("--policy: %w", err)}
		}
	} else if cfg.Policy, err = sandbox.PolicyFromEnv(); err != nil {
		return cfg, err
	}
	if f.backend.set {
		if cfg.Backend, err = sandbox.ParseBackend(f.backend.v); err != nil {
			return cfg, usageError{fmt.Errorf("--backend: %w", err)}
		}
	} else if cfg.Backend, err = sandbox.BackendFromEnvironment(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// absPath expands ~ and ~/x and makes p absolute against cwd. A relative
// path is cleaned as it is joined, like cd does; an absolute one only loses
// a trailing slash, so that "/a/../b" still reaches the sandbox package's
// validator instead of silently naming another path.
func absPath(cwd, flagName, p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%s: empty path: %w", flagName, sandbox.ErrBadPath)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", flagName, p, err)
		}
		p = home + p[1:]
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%s %s: only ~ and ~/ are expanded: %w", flagName, p, sandbox.ErrBadPath)
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(cwd, p), nil
	}
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	return p, nil
}
