package sandbox

import (
	"cmp"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// newPlan validates cfg and gathers the path facts the builders for goos
// need. It is the only place that touches the file system on the way to a
// profile; everything after it is pure.
func newPlan(goos string, cfg Config) (*plan, error) {
	var r resolver
	return newPlanWith(&r, goos, cfg)
}

// newPlanWith is newPlan with the spawn's resolver, which the program lookup
// shares afterwards, so a component both need (a PATH entry under the
// workspace's parent, say) is looked at once per spawn.
func newPlanWith(r *resolver, goos string, cfg Config) (*plan, error) {
	cfg = withDefaultNetwork(goos, cfg)
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	wsGrant, err := resolveWorkspace(r, cfg.Workspace)
	if err != nil {
		return nil, err
	}
	ws := wsGrant.real
	homes := readHomes()
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
	if err := p.setLimits(cfg.Limits); err != nil {
		return nil, err
	}
	grants := []grantPath{wsGrant}
	if p.write, err = grantFacts(r, "write path", cfg.Write, ws, nil, &grants); err != nil {
		return nil, err
	}
	// What follows the syntax and the paths' existence guards a sandbox
	// against the command it runs, and under Off nothing is hidden or
	// granted: no roots, no refusals for the sandbox's sake.
	strict := cfg.Policy != Off
	if strict {
		// The writable roots, computed once: the caches' root is checked
		// against those known before it, and the caches join them.
		p.roots = writableRoots(goos, p)
		if p.caches, err = cachePaths(r, cfg, p, homes); err != nil {
			return nil, err
		}
		for _, c := range p.caches {
			p.roots = append(p.roots, c.path)
		}
	}
	roots := p.roots
	// The workspace and the write paths are checked against the roots once
	// all of them are known, since one can lie inside another, with the
	// links their one resolve went through.
	for i, g := range grants {
		s := refuseSubject{in: refuseWritePath, field: "write path", path: g.path, via: g.via, r: r, roots: roots, guard: true}
		if i == 0 {
			s.in, s.field = refuseWorkspace, "workspace"
		}
		if err := refuse(&s); err != nil {
			return nil, err
		}
	}
	if strict {
		if err := checkHomes(r, grants, homes, roots); err != nil {
			return nil, err
		}
		if goos == "linux" {
			if err := checkLoaderEnv(r, roots, os.LookupEnv); err != nil {
				return nil, err
			}
		}
	}
	if p.read, err = grantFacts(r, "read path", cfg.Read, ws, roots, nil); err != nil {
		return nil, err
	}
	if p.hidden, err = hiddenFacts(r, cfg, ws, homes, roots, strict); err != nil {
		return nil, err
	}
	if strict {
		if p.protected, err = protectFacts(r, p, cfg); err != nil {
			return nil, err
		}
		if err := redactFacts(r, goos, cfg, p, homes, roots); err != nil {
			return nil, err
		}
		p.pins = pinFacts(p)
		if err := makeCaches(r, goos, p); err != nil {
			return nil, err
		}
	}
	if goos == "darwin" && strict {
		p.allMach = cfg.AllowAllMach
		if err := darwinHome(r, p); err != nil {
			return nil, err
		}
		p.ttys = ownTerminals()
		if err := darwinFacts(p); err != nil {
			return nil, err
		}
	}
	if goos == "linux" {
		p.mounts = sortMounts(linuxMounts(p, nil))
	}
	if p.sockets, p.socketGrants, err = socketFacts(r, goos, cfg, p, roots, strict); err != nil {
		return nil, err
	}
	if goos == "linux" && len(p.sockets)+len(p.socketGrants) > 0 {
		p.mounts = sortMounts(linuxMounts(p, p.mounts[:0]))
	}
	p.numberFiles(nativeSeccomp() != nil)
	return p, nil
}

// grantFacts resolves Read or Write paths, which must exist: bwrap cannot
// bind a missing source. Each runs the refuse rows of its input: with
// roots, those that look at the links it went through. grants, when not
// nil, gets each path's grantPath.
func grantFacts(r *resolver, field string, paths []string, ws string, roots []string, grants *[]grantPath) ([]pathFact, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	facts := make([]pathFact, 0, len(paths))
	for _, p := range paths {
		real, fi, err := r.resolve(p)
		if err != nil && field == "write path" && isMissing(err) {
			return nil, missingGrantError(field, p, err)
		}
		if err != nil {
			return nil, fsPathError(field, p, err)
		}
		in := refuseReadPath
		if field == "write path" {
			in = refuseWritePath
		}
		if err := refuse(&refuseSubject{in: in, field: field, path: p, resolved: true, real: real, r: r, roots: roots, guard: roots != nil}); err != nil {
			return nil, err
		}
		if err := checkResolved(field, p, real); err != nil {
			return nil, err
		}
		if grants != nil {
			*grants = append(*grants, r.grant(p, real))
		}
		facts = append(facts, fact(real, kindOf(fi), ws))
	}
	return facts, nil
}

// hiddenFacts builds the hidden set: the table's defaults that are not
// revealed, then the caller's paths, deduplicated after resolution so two
// spellings of one directory produce one mount.
func hiddenFacts(r *resolver, cfg Config, ws string, homeDirs homeDirs, roots []string, strict bool) ([]pathFact, error) {
	home, err := homeDirs.home, homeDirs.err
	if err != nil {
		return nil, err
	}
	var derived []derivedPath
	if strict {
		if derived, err = derivedHidden(os.LookupEnv); err != nil {
			return nil, err
		}
	}
	revealed, err := checkReveal(cfg.Reveal, home, derived)
	if err != nil {
		return nil, err
	}
	facts := make([]pathFact, 0, len(defaultHidden)+len(cfg.Hidden))
	seen := make(map[string]bool, cap(facts))
	add := func(f pathFact) {
		if !seen[f.path] {
			seen[f.path] = true
			facts = append(facts, f)
		}
	}

	// The defaults are hidden under $HOME and, when it differs, under the
	// home the password database gives, which is where the shell and ssh
	// look whatever HOME says.
	if homeDirs.passwdErr != nil {
		return nil, homeDirs.passwdErr
	}
	homes := homeDirs.list()
	for hi, home := range homes {
		// Defaults are resolved from the resolved home, so ~/.ssh costs one
		// lstat, not one per component of $HOME.
		var realHome string
		if home != "" {
			var err error
			if realHome, _, err = r.resolve(home); err != nil {
				if !isMissing(err) {
					return nil, fsPathError("home", home, err)
				}
				if err := refuse(&refuseSubject{in: refuseHome, field: "home", path: home, real: realHome, err: err, r: r, roots: roots, guard: strict}); err != nil {
					return nil, err
				}
				home, realHome = "", "" // no home: nothing under it to hide
			}
		}
		var starErr error
		for i, d := range homeRows(r, realHome, &starErr) {
			// Reveals name paths under $HOME, and reveal nothing under
			// the other home.
			if hi == 0 && len(revealed) > 0 && revealed[i] || hi > 0 && !d.underHome || d.env != "" {
				continue
			}
			// The path as the table spells it is built only for an
			// error: it would be one allocation per entry and spawn.
			const field = "default hidden path"
			var (
				real string
				fi   fs.FileInfo
				err  error
			)
			if d.underHome {
				if realHome == "" {
					continue
				}
				real, fi, err = r.resolveUnder(realHome, d.path)
			} else {
				real, fi, err = r.resolve(d.path)
			}
			s := refuseSubject{in: refuseDefaultHidden, field: field, path: d.path, real: real, err: err, r: r, roots: roots, guard: strict}
			if d.underHome {
				s.under = home
			}
			if err == nil {
				s.fi = fi
			}
			if err := refuse(&s); err != nil {
				return nil, err
			}
			if err != nil {
				if !isMissing(err) {
					return nil, fsPathError(field, defaultPath(d, home), err)
				}
				// Kept, as a missing Config.Hidden entry is: the Linux rules
				// skip it, and on macOS its deny pair stops the path from
				// appearing, readable, while the sandbox runs. One that could
				// not be written in a profile has nothing to hide either.
				// (The table's path is valid, so checkResolved's verdict is
				// checkPath's on real.)
				if checkPath(field, real) == nil {
					add(fact(real, kindMissing, ws))
				}
				continue
			}
			if real == ws {
				continue // the caller chose to work there
			}
			if checkPath(field, real) != nil {
				return nil, checkResolved(field, defaultPath(d, home), real)
			}
			add(fact(real, kindOf(fi), ws))
		}
		if starErr != nil {
			return nil, starErr
		}
	}

	for i := range derived {
		// npm names ~/.npmrc in npm_config_userconfig for every script it
		// runs: a redact row serves that file, token removed.
		if isRedactPath(derived[i].path, home) {
			derived[i].revealed = true
		}
	}
	if err := derivedFacts(r, derived, ws, roots, add); err != nil {
		return nil, err
	}

	for _, h := range cfg.Hidden {
		real, fi, err := r.resolve(h)
		if err != nil && !isMissing(err) {
			if err := checkVia(r, refuseHiddenPath, "hidden path", h, roots); err != nil {
				return nil, err
			}
			return nil, fsPathError("hidden path", h, err)
		}
		// Kept when missing: a deny rule on macOS is harmless and stops
		// the path from appearing later; the Linux rules skip it.
		kind := kindOf(fi)
		s := refuseSubject{in: refuseHiddenPath, field: "hidden path", path: h, resolved: true, real: real, err: err, ws: ws, r: r, roots: roots, guard: strict}
		if err == nil {
			s.fi = fi
		}
		if err := refuse(&s); err != nil {
			return nil, err
		}
		if err := checkResolved("hidden path", h, real); err != nil {
			return nil, err
		}
		add(fact(real, kind, ws))
	}
	return facts, nil
}

// checkReveal maps Config.Reveal to indexes of defaultHidden, and marks
// the derived paths it names (by their expanded path). An entry that
// names no default is an error: a typo must not look like a reveal that
// worked.
func checkReveal(reveal []string, home string, derived []derivedPath) ([]bool, error) {
	if len(reveal) == 0 {
		return nil, nil
	}
	revealed := make([]bool, len(defaultHidden))
	for _, want := range reveal {
		found := false
		for i, d := range defaultHidden {
			if d.underHome && home == "" || d.env != "" {
				continue
			}
			if defaultPath(d, home) == want {
				revealed[i], found = true, true
			}
		}
		for i := range derived {
			if derived[i].path == want {
				derived[i].revealed, found = true, true
			}
		}
		if !found && isRedactPath(want, home) {
			found = true // passes the file whole
		}
		if !found {
			var accepted []string
			for _, d := range defaultHidden {
				if (!d.underHome || home != "") && d.env == "" {
					accepted = append(accepted, defaultPath(d, home))
				}
			}
			for _, d := range derived {
				accepted = append(accepted, d.path)
			}
			return nil, badPath("reveal path", want, "not in the default hidden set (accepted: "+strings.Join(accepted, ", ")+")")
		}
	}
	return revealed, nil
}

func defaultPath(d defaultHiddenPath, home string) string {
	if d.underHome {
		return home + "/" + d.path
	}
	return d.path
}

func fact(real string, kind pathKind, ws string) pathFact {
	return pathFact{
		path:     real,
		kind:     kind,
		ancestor: under(ws, real),
		inside:   under(real, ws),
	}
}

// under reports whether p lies strictly below dir, without building dir+"/".
func under(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// sortMounts orders the mount group parent before child, keeping table order
// between equal depths, so a grant inside a hidden directory punches through
// and a hidden path inside the workspace stays hidden.
func sortMounts(m []mount) []mount {
	slices.SortStableFunc(m, func(a, b mount) int {
		return cmp.Compare(strings.Count(a.path, "/"), strings.Count(b.path, "/"))
	})
	return m
}
