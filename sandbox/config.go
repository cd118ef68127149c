// Package sandbox runs a native subprocess inside an OS sandbox: bubblewrap
// (bwrap) on Linux, Seatbelt (sandbox-exec) on macOS. The policy is the rule
// table under rules/, compiled into this package by go generate; this file and
// its neighbours turn a [Config] into the facts the generated builders need.
//
// The subprocess can write only to its workspace (and a private /tmp), reads
// the host read-only on Linux minus the hidden paths, and reads only system
// directories and the workspace on macOS. A Config that cannot be enforced
// exactly is rejected before anything is spawned.
//
// The mechanisms with narrow interfaces are packages of their own under
// internal/ (docs/architecture.md, "Packages"): the seccomp assembler, the
// proxy with its DNS stub and relay, the cgroup run groups, the APFS case
// folding, the process-tree stop, the Landlock ruleset. What stays here is
// the public API, the pipeline (validate, resolve, refuse, plan, build),
// zz_generated.go, and what reads or writes the plan itself: the spawn and
// its helpers, the watch, the placeholders, the redactors and the socket
// hiding, each of which takes the plan's facts and rows as they are.
//
// The sandbox re-executes the calling program as helpers (the wrap helper
// in front of bwrap in every mode, mode proxy's network helper, the reduced
// backend's landlock helper, the closer Exit hands slow closes to): one
// table in takeover_linux.go catches them before main, so nothing needs
// adding to main; init functions of packages this one does not import run
// in them too, so keep those free of side effects. docs/network.md says how
// the helpers start and what they do.
package sandbox

import "errors"

// Sentinels for errors.Is. Every error this package returns for a rejected
// path, an unusable sandbox or an unknown policy wraps exactly one of them, so
// a caller can tell "fix your config" from "fix your machine".
var (
	ErrBadPath     = errors.New("bad path")
	ErrUnavailable = errors.New("sandbox unavailable")
	ErrBadPolicy   = errors.New("bad policy")
)

// Config describes one sandboxed spawn. Every path must be absolute, already
// clean and free of quotes, backslashes and control characters: the paths end
// up inside bwrap arguments and SBPL string literals, so they are rejected
// rather than repaired.
//
// Paths are resolved anew on every spawn, and a sandboxed command can change
// what it can write before the next one. So no path here may go through a
// symlink in the workspace, a Write path or (macOS) a temporary directory:
// the command could have re-pointed it. Name the link's target instead.
type Config struct {
	// Workspace is the one writable tree, bound at its real path. It must
	// exist; symlinks are resolved first, because bwrap cannot mount onto a
	// path that goes through one. It is also the child's working directory.
	// It cannot be, or contain, the home directory: the command could
	// write the shell's startup files there.
	Workspace string

	// Hidden paths are added to the table's default hidden set. A hidden
	// directory reads as empty, a hidden file as an empty file. A missing
	// path is accepted: nothing is there to hide on Linux, and on macOS
	// the deny rule still stops it from appearing later. A hidden file
	// with a second name (a hard link) is refused, since that name would
	// still read it.
	Hidden []string

	// Read and Write are extra read-only and writable paths; they must
	// exist. A Write path inside a hidden directory punches through it. A
	// Write path, like the workspace, cannot be or contain the home.
	Read, Write []string

	// Reveal drops entries of the default hidden set, or of the redacted
	// files (which then pass whole), named by absolute path after $HOME
	// expansion (for example "/home/me/.npmrc" when a private registry
	// needs its token). Anything else is an error, so a typo cannot
	// silently reveal nothing.
	Reveal []string

	// Sockets are host unix sockets the command may connect to. On Linux
	// every other named socket the host has outside the workspace and the
	// Write paths is replaced by an empty file (the table's
	// hide-host-socket rule), whatever the network mode; a granted one is
	// shown, even inside a hidden directory (grant-socket). Each must
	// resolve to a socket. macOS's profile decides sockets by its own rules.
	Sockets []string

	// Network is how the child reaches the network: off, or the host's
	// (see NetworkMode). The network is on by default because package
	// managers fetch.
	Network Network

	// NoNetwork is Network.Mode = NetworkOff, and an error with any other
	// explicit mode.
	//
	// Deprecated: set Network.Mode to NetworkOff.
	NoNetwork bool

	// Interactive keeps the caller's session so job control and /dev/tty
	// work. It gives up --new-session, so the child shares the caller's
	// session and can signal its process group. Pushing keystrokes into
	// the terminal (TIOCSTI, CVE-2017-5226) stays refused by the seccomp
	// filter on amd64 and arm64 only; elsewhere it is possible too. Use it
	// only for a human at a terminal.
	Interactive bool

	// KeepEnv names variables that the table's strip-env rows remove
	// (tokens, keys, passwords by name and pattern; the host agents'
	// sockets), or its strip-env-values rows (a URL or connection string
	// with a password in its value; see docs/POLICY.md), and that the
	// command gets anyway, one
	// exact name each. A name no row strips changes nothing; a malformed
	// one (empty, with = or *) is an error wrapping ErrBadEnv.
	KeepEnv []string

	// Env, when not nil, is the command's environment as NAME=VALUE
	// entries, in place of this process's: for a runtime that builds the
	// environment itself. The keep-env rows' variables (HOME, PATH) and
	// the KeepEnv names are added from this process's environment when
	// Env lacks them, and the strip-env rows apply to Env as to any
	// environment, so a secret in it needs KeepEnv too. An entry without
	// = or with a NUL is an error wrapping ErrBadEnv. The environment
	// also reaches bwrap: a bwrap that needs LD_LIBRARY_PATH to start
	// needs it in Env.
	Env []string

	// Limits bound what one run may use; the zero value takes the table's
	// defaults. See Limits.
	Limits Limits
	// AllowGitConfig leaves the git config files in the writable roots
	// writable (the protect rows with unless: allow-git-config), for a run
	// that must write them: git remote add, git config, git submodule
	// init. The command can then set core.fsmonitor or an alias that the
	// user's next git command runs outside the sandbox.
	AllowGitConfig bool
	// NoCache turns off the sandbox's private tool caches (the caches
	// section of the rule table): no cache directory is created or bound,
	// and no cache variable is set, so tools find their host caches
	// read-only, as without the table's rows. The directories are made
	// for the caller (0700): a caller that starts the command as another
	// user (SysProcAttr.Credential) sets NoCache.
	NoCache bool

	// AllowAllMach gives a macOS command every Mach service instead of
	// the table's list: the pasteboard, launch services (an app it opens
	// runs outside the sandbox), Apple Events, the window server. A
	// reviewed opt-in for a tool that fails without a service the list
	// lacks; it changes nothing on Linux.
	AllowAllMach bool

	// Policy says whether the sandbox is required or off; the zero value,
	// FromEnv, leaves it to PolicyVariable (required when unset).
	Policy Policy

	// Backend chooses how Linux builds the sandbox (see Backend); the zero
	// value, BackendFromEnv, leaves it to BackendVariable (bwrap when
	// unset). Required never moves to the reduced backend by itself.
	Backend Backend
	// LandlockProtectReadOnly makes the reduced backend keep the
	// protected paths read-only by its ruleset instead of detecting a
	// change (the landlock-protect rows of docs/POLICY.md): then the
	// workspace's top level, and each directory down to a protected
	// path, take no new entries. It changes nothing under bwrap.
	LandlockProtectReadOnly bool
}
