package sandbox

import (
	"net"

	"github.com/sandtable/sandtable/internal/proxy"
)

// pathKind is what one lstat, after symlink resolution, says a path is. The
// builders choose a rule by kind because bwrap's --tmpfs fails the whole
// spawn on anything but an existing directory.
type pathKind uint8

const (
	kindMissing pathKind = iota
	kindDir
	kindFile // any non-directory: regular file, socket, device, fifo
)

// pathFact is one resolved path with everything the rule conditions ask of it.
type pathFact struct {
	path     string
	kind     pathKind
	ancestor bool // a strict ancestor of the workspace
	inside   bool // strictly inside the workspace
	// writable: inside the workspace or a write path (set for hidden
	// paths, by darwinFacts). folded: a pattern matching a hidden path in
	// any letter case, "" when it is not ASCII (macOS only).
	writable bool
	folded   string
	fd       string // a redacted file's descriptor
	// sharedTemp: a host socket under a world-writable sticky directory
	// (socketFacts).
	sharedTemp bool
	// rule is the row that put the path in the plan (a default-hidden,
	// protect, redact or caches row); "" for a Config entry. Why names it.
	rule string
	// target is a symlink's own target (socketLayout).
	target string
}

// mount is one entry of the bwrap "mounts" group: the rule that emits it and
// the path it applies to. plan.mounts holds them in depth order.
type mount struct {
	rule   int
	path   string
	target string // a symlink's target, for a rule that makes one
}

// plan is the builders' whole input: the config after validation and path
// facts. Keeping I/O out of it is what lets every builder run, and be
// golden-tested, on any OS.
type plan struct {
	workspace string
	hidden    []pathFact
	read      []pathFact
	write     []pathFact
	// pins are the directories between a writable root and a hidden
	// path inside it; see pinFacts.
	pins []pathFact
	// protected are the protect section's paths found in the writable
	// roots; a missing one (kindMissing) gets a placeholder.
	protected []pathFact
	// gitCuts are where the git-search bounds stopped the search for
	// repositories below the roots (for explain).
	gitCuts []gitSearchCut
	// caches are the table's tool caches (cacheDirs, in its order):
	// sandtable's own directories, writable; none under NoCache or Off.
	caches []pathFact
	// cacheRoots are the cache roots the command must not see: the one
	// the caches are in (whether or not NoCache) and, when that is
	// elsewhere, each home's default one; each resolved, missing where
	// nobody made it. cacheScopes are the directories from the root in
	// use down to the caches' scope directories (macOS looks at them).
	cacheRoots  []pathFact
	cacheScopes []pathFact
	// macOS only (darwinFacts): the directories above the workspace and
	// the granted paths; those from a hidden path inside a writable root
	// up to it; the terminals the command's standard descriptors are.
	ancestors []pathFact
	guards    []pathFact
	ttys      []pathFact
	// home is the resolved home directory on macOS, "" without one;
	// homeRegex the same as a pattern matches it (darwinHome).
	home      string
	homeRegex string
	allMach   bool // Config.AllowAllMach
	// redacted are the redact section's files that exist, each with the
	// descriptor (fd) its copy, redactData[i], is read from.
	redacted   []pathFact
	redactData [][]byte
	// tmpdir is the spawn's own temporary directory on macOS, made by
	// attachTmpdir for a spawn on a Mac; "" when rendering without one.
	tmpdir string
	// sockets are the host's named unix sockets to hide, and
	// socketGrants the ones Config.Sockets grants; see socketFacts.
	sockets      []pathFact
	socketGrants []pathFact
	// socketDirs are the directories of host sockets rebuilt without
	// them, and socketSubdirs, socketLinks and socketEntries what is made
	// again inside them; see socketLayout.
	socketDirs    []pathFact
	socketSubdirs []pathFact
	socketLinks   []pathFact
	socketEntries []pathFact

	network  bool    // any mode but NetworkOff
	netHost  bool    // NetworkHost
	netProxy bool    // NetworkProxy: bwrap runs in the network helper's namespace
	net      Network // the proxy's lists, for a spawn in mode proxy
	// proxyPort is the port of the proxy's loopback listener on macOS,
	// proxyLn the listener itself for a spawn (proxy_mac.go).
	proxyPort   string
	proxyLn     net.Listener
	proxyCred   *proxy.Cred // the proxy-auth credential of a spawn's proxy
	interactive bool
	callerRoot  bool
	// varTmp: the host's varTmpDir is a directory, not a symlink, so the
	// sandbox's own (rule var-tmp) can take its place.
	varTmp bool
	// disableUserns: the installed bwrap knows --disable-userns. It,
	// statusFD and blockFD are host facts (hostFacts): set only in the
	// copy plan.with gives the builders, never in a plan newPlan made.
	disableUserns bool

	// The descriptor numbers bwrap reads, each "" when there is nothing to
	// read: the /dev/null every hidden file is replaced by (bwrap
	// --ro-bind-data), and the seccomp filter. numberFiles hands them out
	// and wrapFiles lists what goes behind them, in the same order.
	nullFD    string
	seccompFD string
	resolvFD  string // the DNS stub's resolv.conf in mode proxy
	// statusFD is the pipe bwrap reports its progress on (bwrap
	// --json-status-fd). Only NewCmd's Start has one, for the argv it
	// starts; every other argv has none.
	statusFD string
	// blockFD is the pipe bwrap waits on before it runs the command
	// (bwrap --block-fd), set like statusFD; limitArgs are the limits'
	// bwrap operands (see limitArg).
	blockFD   string
	limitArgs [limitCount]string
	// run are the limits NewCmd applies while bwrap holds the command.
	run runLimits

	// roots are the writable roots (writableRoots, then the caches),
	// computed once by newPlanWith; nil under Off.
	roots []string

	// mounts is the Linux mount group in depth order, parent before child
	// and table order on ties; see sortMounts.
	mounts []mount

	// watch is what a Linux spawn's watch covers (watchTargets), found
	// with the resolve's own lstats; watchPlanned says it was.
	watch        []watchTarget
	watchPlanned bool

	// ownArgs is the length of a Linux spawn's bwrap argv before the
	// command, with every option a spawn's host facts can add.
	ownArgs int
}

// newPlan makes the plan the builders for goos read from cfg: the validate
// stage (checkConfig), the resolve stage (resolve), the refuse stage
// (refuseStage, over every row of the refuse section) and the plan
// stage (makePlan), in that order, each once. It is the only place that
// touches the file system on the way to a profile; the plan it returns
// is never changed afterwards, and everything after it is pure.
func newPlan(goos string, cfg Config) (*plan, error) {
	var r resolver
	return newPlanWith(&r, goos, cfg)
}

// newPlanWith is newPlan with the spawn's resolver, which the program lookup
// shares afterwards, so a component both need (a PATH entry under the
// workspace's parent, say) is looked at once per spawn.
func newPlanWith(r *resolver, goos string, cfg Config) (*plan, error) {
	return planWithRows(r, goos, cfg, refuseRows[:])
}

// planWithRows is newPlanWith with the refuse stage's check list: a test
// leaves a row out of it.
func planWithRows(r *resolver, goos string, cfg Config, rows []refuseRow) (*plan, error) {
	cfg = withDefaultNetwork(goos, cfg)
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	res, err := resolve(r, goos, cfg)
	if err != nil {
		return nil, err
	}
	if err := refuseStage(rows, res); err != nil {
		return nil, err
	}
	return makePlan(res, rows)
}

// makePlan is the plan stage: from the facts the refuse stage passed, it
// makes the caches' directories (the one write on the way), and derives
// what the builders read: the pins, the macOS patterns and guards, the
// Linux mount group (once, the hidden host sockets merged in) and the
// descriptors' numbers.
func makePlan(res *resolved, rows []refuseRow) (*plan, error) {
	p := res.p
	if res.strict {
		if err := makeCaches(res, rows); err != nil {
			return nil, err
		}
		if err := makeCacheRoots(res, rows); err != nil {
			return nil, err
		}
		p.pins = pinFacts(p)
	}
	if res.goos == "darwin" && res.strict {
		if err := darwinFacts(p); err != nil {
			return nil, err
		}
	}
	if res.goos == "linux" {
		p.mounts = sortMounts(linuxMounts(p, nil))
		hideSockets(p, res.r, &res.sockDirs, res.hostSockets)
		if res.strict {
			p.watch, p.watchPlanned = watchTargets(p, res.r.isDir), true
		}
	}
	p.numberFiles(nativeSeccomp() != nil)
	if res.goos == "linux" && res.strict {
		// The most a spawn's own options add (host facts): counted here
		// with the command as one argument, and again with the command
		// itself by Command and NewCmd.
		p.ownArgs = linuxArgCount(p.with(hostFacts{disableUserns: true, statusFD: "3", blockFD: "4"}))
		if err := refuseArgv(rows, p, 1); err != nil {
			return nil, err
		}
	}
	return p, nil
}
