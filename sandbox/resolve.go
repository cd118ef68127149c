package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The resolve stage: each path of a Config is resolved once, and what the
// refuse stage needs of that resolve (where it led, its kind, the links it
// went through, its error) is kept as an input of that stage, with the
// plan's facts; nothing is refused here but what the file system or the
// path syntax refuses.

// resolved is what the resolve stage learnt of a Config: the plan's
// facts, not yet checked, and every input as the refuse rows look at it.
type resolved struct {
	r      *resolver
	p      *plan
	goos   string
	strict bool   // every policy but Off: the sandbox guards against its command
	wsAs   string // the workspace as spelled
	homes  homeDirs
	// realHomes are the homes as resolved (where a missing one would be),
	// for holds-home; none under Off or with a bad home.
	realHomes []string
	// inputs are the refuse stage's, in the order resolved.
	inputs []refuseSubject
	// later is the first resolve error that the refuse stage reports
	// after its rows (a hidden path that cannot be looked at).
	later error
	// cacheDirs are sandtable's cache directories, outermost first, and
	// cacheSeen which of them the resolve found as directories (and gave
	// the refuse stage); the plan stage makes the others.
	cacheDirs []string
	cacheSeen []bool
	// hostSockets are the host's named sockets that could be hidden;
	// the plan stage keeps those its mounts would show.
	hostSockets []pathFact
	// sockDirs are the listings of their directories, which the plan
	// stage reads again (socketLayout).
	sockDirs sockListings
}

// input gives the refuse stage s.
func (res *resolved) input(s refuseSubject) { res.inputs = append(res.inputs, s) }

// fail keeps err for after the refuse stage, the first one only.
func (res *resolved) fail(err error) {
	if res.later == nil {
		res.later = err
	}
}

// noLinks is the via of a resolve that went through no link.
var noLinks = []string{}

// viaOf is the links r's last resolve went through, kept: r.via is
// reused by the next resolve.
func viaOf(r *resolver) []string {
	if len(r.via) == 0 {
		return noLinks
	}
	return slices.Clone(r.via)
}

// resolve is the resolve stage: cfg passed checkConfig.
func resolve(r *resolver, goos string, cfg Config) (*resolved, error) {
	res := &resolved{r: r, goos: goos, strict: cfg.Policy != Off, wsAs: cfg.Workspace}
	wsGrant, err := resolveWorkspace(r, cfg.Workspace)
	if err != nil {
		return nil, err
	}
	ws := wsGrant.real
	res.homes = readHomes()
	// One input for each default hidden path under each home, at most,
	// and for each path the caller names, with room for the rest.
	res.inputs = make([]refuseSubject, 0, 16+len(cfg.Write)+len(cfg.Read)+len(cfg.Hidden)+len(cfg.Sockets)+len(res.homes.list())*len(defaultHidden))
	if res.homes.home != "" {
		res.input(refuseSubject{in: refuseHome, field: "home", path: res.homes.home, spelled: true})
	}
	mode, _ := networkMode(cfg) // checkConfig refused a bad one
	p := &plan{
		workspace:   ws,
		network:     mode != NetworkOff,
		netHost:     mode == NetworkHost,
		netProxy:    mode == NetworkProxy,
		net:         cfg.Network,
		interactive: cfg.Interactive,
		callerRoot:  os.Geteuid() == 0,
	}
	res.p = p
	if err := p.setLimits(cfg.Limits); err != nil {
		return nil, err
	}
	if cfg.Limits.Memory > 0 {
		res.input(refuseSubject{in: refuseMemoryLimit, field: "memory limit", amount: uint64(cfg.Limits.Memory)})
	}
	grants := []grantPath{wsGrant}
	if p.write, err = grantFacts(res, "write path", cfg.Write, ws, &grants); err != nil {
		return nil, err
	}
	// What follows the syntax and the paths' existence guards a sandbox
	// against the command it runs, and under Off nothing is hidden or
	// granted: no roots, and the refuse rows that guard pass.
	if res.strict {
		// The writable roots, computed once: the caches join them.
		p.roots = writableRoots(goos, p)
		if p.caches, err = cachePaths(res, cfg, p); err != nil {
			return nil, err
		}
		for _, c := range p.caches {
			p.roots = append(p.roots, c.path)
		}
	}
	for i, g := range grants {
		s := refuseSubject{in: refuseWritePath, field: "write path", path: g.path, spelled: true, resolved: true, real: g.real, via: g.via}
		if i == 0 {
			s.in, s.field = refuseWorkspace, "workspace"
		}
		res.input(s)
	}
	if res.strict {
		resolveHomes(res)
		if goos == "linux" {
			loaderInputs(res, os.LookupEnv)
		}
	}
	if p.read, err = grantFacts(res, "read path", cfg.Read, ws, nil); err != nil {
		return nil, err
	}
	if p.hidden, err = hiddenFacts(res, cfg, ws); err != nil {
		return nil, err
	}
	if res.strict {
		if p.protected, err = protectFacts(res, p, cfg); err != nil {
			return nil, err
		}
		if err := redactFacts(res, goos, cfg, p); err != nil {
			return nil, err
		}
		cacheInputs(res, goos)
		// After the home's defaults, whose lookups list the home.
		cacheRootFacts(res, p)
	}
	if goos == "darwin" && res.strict {
		p.allMach = cfg.AllowAllMach
		if err := darwinHome(res, p); err != nil {
			return nil, err
		}
		p.ttys = ownTerminals()
		darwinInputs(res, p)
	}
	if p.socketGrants, err = socketFacts(res, cfg, p); err != nil {
		return nil, err
	}
	if goos == "linux" {
		p.varTmp = hostVarTmp(r.lstat) && !showsVarTmp(p)
	}
	if res.strict && goos == "linux" {
		res.hostSockets = hostSocketFacts(r, p, p.socketGrants, &res.sockDirs)
	}
	return res, nil
}

// grantPath is a workspace or write path as its one resolve found it.
type grantPath struct {
	path string   // as the caller spelled it
	real string   // symlink-free
	via  []string // the symlinks the resolve went through
}

// homeDirs are the caller's home directories, read once per plan.
type homeDirs struct {
	home string // homeDir's: $HOME, or the password database's when HOME is unset; "" for none
	err  error  // homeDir's refusal of it
	// passwd is the password database's home, trailing slashes trimmed,
	// when it differs from home (and home is set): the shell and ssh
	// look there whatever HOME says. passwdErr is its syntax refusal.
	passwd    string
	passwdErr error
}

// readHomes reads the caller's home directories.
func readHomes() homeDirs {
	var h homeDirs
	if h.home, h.err = homeDir(); h.err != nil {
		return h
	}
	if ph := strings.TrimRight(ownPasswdHome(), "/"); ph != "" && ph != h.home && h.home != "" {
		h.passwd, h.passwdErr = ph, checkPath("home", ph)
	}
	return h
}

// list is home, then passwd when there is one.
func (h homeDirs) list() []string {
	if h.passwd != "" {
		return []string{h.home, h.passwd}
	}
	return []string{h.home}
}

// grant is the grantPath of p, just resolved by r to real.
func (r *resolver) grant(p, real string) grantPath {
	return grantPath{path: p, real: real, via: viaOf(r)}
}

// resolveWorkspace resolves the workspace, which must be a directory.
func resolveWorkspace(r *resolver, ws string) (grantPath, error) {
	real, fi, err := r.resolve(ws)
	if err != nil {
		return grantPath{}, fsPathError("workspace", ws, err)
	}
	if !fi.IsDir() {
		return grantPath{}, badPath("workspace", ws, "not a directory")
	}
	return r.grant(ws, real), checkResolved("workspace", ws, real)
}

// homeDir is $HOME, or the password database's entry when HOME is unset (a
// service manager's environment), cleaned. A home that is no path is an
// error rather than a reason to skip the credential directories under it;
// the refuse rows that look at the home are the refuse stage's.
func homeDir() (string, error) {
	home := os.Getenv("HOME")
	if home == "" {
		if home = passwdHome(os.Getuid()); home == "" {
			return "", nil // no home to hide anything under
		}
	}
	if home != "/" {
		home = strings.TrimRight(home, "/")
	}
	if err := checkPath("home", home); err != nil {
		return "", err
	}
	return home, nil
}

// checkResolved runs the syntax check again on where a path's symlinks led:
// a link target is as untrusted as the path itself.
func checkResolved(field, orig, real string) error {
	if real == orig {
		return nil
	}
	if err := checkPath(field, real); err != nil {
		var pe *pathError
		if errors.As(err, &pe) {
			pe.path, pe.problem = orig, "resolves to "+strconv.Quote(real)+": "+pe.problem
		}
		return err
	}
	return nil
}

// fsPathError reports a path the file system would not resolve.
func fsPathError(field, p string, err error) error {
	problem := "does not exist"
	if !errors.Is(err, fs.ErrNotExist) {
		problem = "cannot be resolved: " + err.Error()
	}
	return &pathError{field: field, path: p, problem: problem, err: err}
}

func kindOf(fi fs.FileInfo) pathKind {
	switch {
	case fi == nil:
		return kindMissing
	case fi.IsDir():
		return kindDir
	}
	return kindFile
}
